// explain_report and its renderings.
#include "explain/explain_report.h"

#include "report/text_wrap.h"

#include <algorithm>

#include "report/redact.h"
#include "report/report.h"

namespace gs {
namespace {

using nlohmann::json;

/// "user@host:~$" prompts in a paste name the user and the host: both are identity to redact.
/// Words that are also facts ("root@ubuntu", "user@localhost") are left alone: redacting the word
/// "ubuntu" everywhere would erase the OS from the report.
void identity_from_prompts(const std::vector<std::string>& lines, host_info& h) {
  static constexpr std::string_view common[] = {"root", "user", "ubuntu", "debian", "fedora", "arch", "archlinux", "gentoo",
                                                "localhost", "host", "docker", "container", "linux", "desktop", "pc",
                                                "server", "machine", "computer", "workstation", "admin", "rocm", "cuda"};
  auto is_common = [&](const std::string& w) {
    std::string l;
    for (char c : w) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return l.size() < 3 || std::find(std::begin(common), std::end(common), l) != std::end(common);
  };
  for (const std::string& l : lines) {
    size_t at = l.find('@');
    if (at == std::string::npos || at == 0) continue;
    size_t colon = l.find(':', at);
    size_t end = l.find_first_of(" \t", at);
    if (colon == std::string::npos || (end != std::string::npos && end < colon)) continue;
    if (colon + 1 >= l.size() || (l[colon + 1] != '~' && l[colon + 1] != '/')) continue;
    size_t b = at;
    while (b > 0 && (std::isalnum(static_cast<unsigned char>(l[b - 1])) || l[b - 1] == '_' || l[b - 1] == '-' || l[b - 1] == '.')) --b;
    if (b == at) continue;
    std::string user = l.substr(b, at - b), host = l.substr(at + 1, colon - at - 1);
    if (!is_common(user)) h.user = user;
    if (!is_common(host)) h.hostname = host;
    return;
  }
}

/// Facts whose values are versions: "9.19.0.56" or "5.15.153.1-microsoft" must not read as an IP.
bool version_fact(const std::string& key) {
  for (std::string_view p : {"pkg.", "torch.", "rocm.", "nvidia.", "cuda.", "python.version", "host.kernel", "host.os_version"})
    if (key.rfind(p, 0) == 0) return true;
  return false;
}

std::string str(const json& j, const char* k) { return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : ""; }

const char* level_tag(const std::string& sev, bool color) {
  if (sev == "fail") return color ? "\033[1;31mFAIL\033[0m" : "FAIL";
  if (sev == "warn") return color ? "\033[1;33mWARN\033[0m" : "WARN";
  return color ? "\033[1;36mINFO\033[0m" : "INFO";
}

}  // namespace

json explain_report(const explain_result& r, bool include_identifiers, const std::string& created_utc) {
  machine_facts facts = r.reading.facts;
  identity_from_prompts(r.reading.lines, facts.host);
  report_input in;
  in.facts = &facts;
  in.findings = r.findings;
  report_options ro;
  ro.include_identifiers = include_identifiers;
  ro.command = "explain";
  ro.created_utc = created_utc;
  json rep = build_report(in, ro);
  // The explain block is redacted here, not in build_report's pass, so that version values keep
  // their dots (a four-part version is not an IP address).
  redactor red = redactor::for_facts(facts, include_identifiers);
  json facts_read = json::array();
  for (const pasted_fact& p : r.reading.facts_read)
    facts_read.push_back({{"fact", red.scrub(p.key)},
                          {"value", red.scrub(p.value, version_fact(p.key) ? text_kind::version : text_kind::plain)},
                          {"line", p.line},
                          {"from", p.from}});
  auto scrub_all = [&](const std::vector<std::string>& v) {
    json a = json::array();
    for (const std::string& x : v) a.push_back(red.scrub(x));
    return a;
  };
  rep["explain"] = {{"inputs", r.reading.kinds},
                    {"lines", r.reading.lines.size()},
                    {"facts", facts_read},
                    {"undecided", scrub_all(r.undecided)},
                    {"next_step", r.next_step},
                    {"unmatched_error", red.scrub(r.findings.empty() ? r.first_error_line : "")}};
  if (r.findings.empty()) {
    // Nothing matched is not "this stack is fine": the paste may simply not show the problem.
    rep["summary"]["status"] = "unknown";
    rep["summary"]["text"] = "unknown: no known problem matched what was pasted";
  }
  return rep;
}

std::string render_explain_human(const json& rep, bool color, size_t width) {
  const json& ex = rep.value("explain", json::object());
  std::string out = "gpustack explain: read " + std::to_string(ex.value("lines", 0)) + " lines";
  std::string kinds;
  for (const json& k : ex.value("inputs", json::array())) kinds += (kinds.empty() ? "" : ", ") + k.get<std::string>();
  out += kinds.empty() ? " (plain text)\n" : " (" + kinds + ")\n";

  std::string facts;
  for (const json& f : ex.value("facts", json::array())) {
    std::string item = str(f, "fact") + " " + str(f, "value");
    if (f.value("line", 0) > 0) item += " (line " + std::to_string(f.value("line", 0)) + ")";
    facts += (facts.empty() ? "" : "; ") + item;
  }
  out += word_wrap("From the paste: " + (facts.empty() ? std::string("no GPU, version or setting recognised") : facts), width, 2) + "\n\n";

  const json& findings = rep.value("findings", json::array());
  if (findings.empty()) {
    out += "No known problem matched what was pasted.\n";
    std::string unmatched = str(ex, "unmatched_error");
    if (!unmatched.empty()) out += word_wrap("Not recognised: " + unmatched, width, 2) + "\n";
  }
  for (const json& f : findings) {
    out += std::string(level_tag(str(f, "severity"), color)) + "  " + str(f, "id") + "  " +
           word_wrap(str(f, "title"), width == 0 ? 0 : width, 6) + "\n";
    out += "      " + word_wrap("seen: " + str(f, "evidence"), width, 12) + "\n";
    std::string fix = str(f, "remediation");
    if (!fix.empty()) out += "      fix:  " + fix + "\n";  // a command is never wrapped
    const json& refs = f.value("refs", json::array());
    if (!refs.empty()) {
      std::string rs;
      for (const json& x : refs) rs += (rs.empty() ? "" : " ") + x.get<std::string>();
      out += "      refs: " + rs + "\n";
    }
  }
  const json& und = ex.value("undecided", json::array());
  if (!und.empty()) {
    out += "\nNot decided from the paste:\n";
    for (const json& u : und) out += "  - " + word_wrap(u.get<std::string>(), width, 4) + "\n";
  }
  std::string next = str(ex, "next_step");
  if (!next.empty()) out += "\nNext: " + next + "\n";
  return out;
}

std::string render_explain_markdown(const json& rep) {
  const json& ex = rep.value("explain", json::object());
  std::string out = "## gpustack explain\n\n";
  const json& findings = rep.value("findings", json::array());
  if (findings.empty()) out += "No known problem matched what was pasted.\n";
  for (const json& f : findings) {
    std::string sev = str(f, "severity");
    for (char& c : sev) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out += "- **" + sev + " " + str(f, "id") + "**: " + str(f, "title") + "\n";
    out += "  - seen: `" + str(f, "evidence") + "`\n";
    if (!str(f, "remediation").empty()) out += "  - fix: `" + str(f, "remediation") + "`\n";
    for (const json& x : f.value("refs", json::array())) out += "  - " + x.get<std::string>() + "\n";
  }
  const json& und = ex.value("undecided", json::array());
  if (!und.empty()) {
    out += "\n**Not decided from the paste:**\n";
    for (const json& u : und) out += "- " + u.get<std::string>() + "\n";
  }
  if (!str(ex, "next_step").empty()) out += "\n**Next:** " + str(ex, "next_step") + "\n";
  out += "\n<details><summary>gpustack explain report (JSON)</summary>\n\n```json\n" + rep.dump(2) + "\n```\n</details>\n";
  return out;
}

}  // namespace gs
