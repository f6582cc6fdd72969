// Folding a cluster's reports into one view (fleet.h).
#include "matrix/fleet.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "core/status.h"
#include "matrix/matrix.h"

namespace gs {
namespace {

int count_failing_probes(const nlohmann::json& r) {
  int n = 0;
  for (const auto& p : r.value("probes", nlohmann::json::array()))
    if (p.is_object() && p.contains("status") && p["status"].is_string())
      if (auto s = parse_status(p["status"].get<std::string>()); s && (is_failure(*s) || *s == status::hang)) ++n;
  return n;
}

int count_fail_findings(const nlohmann::json& r) {
  int n = 0;
  for (const auto& f : r.value("findings", nlohmann::json::array()))
    if (f.is_object() && f.value("severity", "") == "fail") ++n;
  return n;
}

/// "torch 2.6.0+cu124 -> 2.7.0+cu128" for each changed value, then the probes failing only there.
std::vector<std::string> difference_lines(const report_diff& d) {
  std::vector<std::string> out;
  auto side = [](const std::string& v) { return v.empty() ? std::string("(none)") : v; };
  for (const auto* list : {&d.versions, &d.settings})
    for (const value_change& c : *list) out.push_back(c.name + " " + side(c.before) + " -> " + side(c.after));
  for (const probe_change& p : d.probes)
    if (p.newly_failing) out.push_back("probe " + p.id + " " + side(p.before) + " -> " + p.after);
  return out;
}

}  // namespace

bool fleet_view::all_alike() const {
  if (stacks > 1) return false;
  return std::none_of(nodes.begin(), nodes.end(), [](const fleet_node& n) { return n.failing_probes || n.fail_findings; });
}

std::string fleet_label(const std::string& path) {
  std::filesystem::path p(path);
  return (p.extension() == ".json" || p.extension() == ".md" ? p.stem() : p.filename()).string();
}

fleet_view fold_fleet(const std::vector<std::pair<std::string, nlohmann::json>>& reports) {
  fleet_view v;
  std::vector<std::pair<std::string, const nlohmann::json*>> sorted;
  for (const auto& [label, r] : reports) sorted.push_back({label, &r});
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::map<std::string, size_t> per_stack;
  std::vector<std::string> stack_of;
  for (const auto& [label, r] : sorted) {
    stack_of.push_back(fingerprint_id(fingerprint_of(*r)));
    ++per_stack[stack_of.back()];
  }
  v.stacks = per_stack.size();
  for (const auto& [stack, n] : per_stack)  // ascending ids: the first of the largest wins a tie
    if (n > v.majority_nodes) {
      v.majority = stack;
      v.majority_nodes = n;
    }
  v.tie = std::count_if(per_stack.begin(), per_stack.end(), [&](const auto& s) { return s.second == v.majority_nodes; }) > 1;
  const nlohmann::json* reference = nullptr;
  for (size_t i = 0; i < sorted.size(); ++i)
    if (stack_of[i] == v.majority && !reference) {
      reference = sorted[i].second;
      v.majority_label = sorted[i].first;
    }
  for (size_t i = 0; i < sorted.size(); ++i) {
    fleet_node n;
    n.label = sorted[i].first;
    n.stack = stack_of[i];
    n.on_majority = n.stack == v.majority;
    n.failing_probes = count_failing_probes(*sorted[i].second);
    n.fail_findings = count_fail_findings(*sorted[i].second);
    if (!n.on_majority && reference) n.against_majority = diff_reports(*reference, *sorted[i].second);
    v.nodes.push_back(std::move(n));
  }
  return v;
}

nlohmann::json fleet_json(const fleet_view& v) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const fleet_node& n : v.nodes) {
    nlohmann::json j = {{"label", n.label},          {"stack", n.stack},
                        {"on_majority", n.on_majority}, {"failing_probes", n.failing_probes},
                        {"fail_findings", n.fail_findings}};
    if (!n.on_majority) j["against_majority"] = diff_json(n.against_majority);
    nodes.push_back(std::move(j));
  }
  return {{"command", "matrix fleet"},      {"nodes", nodes},
          {"majority", v.majority},         {"majority_nodes", v.majority_nodes},
          {"majority_reference", v.majority_label}, {"stacks", v.stacks},
          {"tie", v.tie},                   {"all_alike", v.all_alike()}};
}

std::string render_fleet_human(const fleet_view& v, bool color) {
  auto paint = [color](const char* code, const std::string& s) { return color ? std::string(code) + s + "\033[0m" : s; };
  std::string out = fmt::format("fleet: {} node{}, {} stack{}; ", v.nodes.size(), v.nodes.size() == 1 ? "" : "s", v.stacks,
                                v.stacks == 1 ? "" : "s");
  out += v.tie ? fmt::format("no majority ({} node{} each); compared with stack {} of {}\n", v.majority_nodes,
                             v.majority_nodes == 1 ? "" : "s", v.majority, v.majority_label)
               : fmt::format("stack {} on {} of {}\n", v.majority, v.majority_nodes, v.nodes.size());
  size_t width = 4;
  for (const fleet_node& n : v.nodes) width = std::max(width, n.label.size());
  for (const fleet_node& n : v.nodes) {
    std::string state = n.on_majority ? paint("\033[32m", "same   ") : paint("\033[31m", "DIFFERS");
    std::string health = n.failing_probes || n.fail_findings
                             ? paint("\033[31m", fmt::format("{} failing probe{}, {} fail finding{}", n.failing_probes,
                                                             n.failing_probes == 1 ? "" : "s", n.fail_findings,
                                                             n.fail_findings == 1 ? "" : "s"))
                             : std::string("healthy");
    out += fmt::format("  {:<{}}  {}  {}  {}\n", n.label, width, state, n.stack, health);
    if (!n.on_majority)
      for (const std::string& l : difference_lines(n.against_majority)) out += fmt::format("  {:<{}}    {}\n", "", width, l);
  }
  return out;
}

std::string render_fleet_markdown(const fleet_view& v) {
  std::string out = fmt::format("### gpustack fleet: {} nodes, {} stack{}\n\n", v.nodes.size(), v.stacks, v.stacks == 1 ? "" : "s");
  out += "| node | stack | health | differs from " + v.majority_label + " (majority" + (v.tie ? ", tied" : "") + ") |\n|---|---|---|---|\n";
  for (const fleet_node& n : v.nodes) {
    std::string diff;
    for (const std::string& l : difference_lines(n.against_majority)) diff += (diff.empty() ? "" : "<br>") + l;
    std::string health = n.failing_probes || n.fail_findings
                             ? fmt::format("**{} failing probes, {} fail findings**", n.failing_probes, n.fail_findings)
                             : "healthy";
    out += fmt::format("| `{}` | `{}`{} | {} | {} |\n", n.label, n.stack, n.on_majority ? "" : " **differs**", health,
                       n.on_majority ? "" : diff);
  }
  return out;
}

}  // namespace gs
