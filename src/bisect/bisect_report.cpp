// The bisection's report and renderings; see bisect_report.h.
#include "bisect/bisect_report.h"
#include "report/json_path.h"

#include <fmt/format.h>

#include "core/status.h"
#include "core/utc_time.h"
#include "detect/identity.h"
#include "report/redact.h"
#include "sys/sysroot.h"

namespace gs {
namespace {

using nlohmann::json;

/// "2025-10-13" from PEP 700's "2025-10-13T16:37:49.588576Z"; "" when absent.
std::string day_of(const std::string& uploaded) { return uploaded.substr(0, 10); }

std::string release_text(const std::string& pkg, const listed_version& v) {
  std::string day = day_of(v.uploaded);
  return pkg + " " + v.version + (day.empty() ? "" : " (uploaded " + day + ")");
}

std::string trial_reason(const std::optional<trial_result>& t) {
  return t ? t->status + (t->detail.empty() ? "" : ": " + t->detail) : "not tried";
}

}  // namespace

std::string bisect_answer_sentence(const bisect_request& r, const bisect_outcome& o) {
  const auto& line = o.range.line;
  const bool fix = o.range.descending;
  const bisect_answer& a = o.answer;
  if (!o.error.empty()) return o.error;
  std::string resume = " Run the same command again to resume from the journal.";
  if (o.interrupted) return "Interrupted before an answer." + resume;
  if (!o.stopped.empty()) return "Stopped before an answer: " + o.stopped + "." + resume;
  switch (a.what) {
    case bisect_answer::kind::found:
      if (fix)
        return fmt::format("First release that works again: {}; the last bad one before it: {}.",
                           release_text(r.package, line[a.last_good]), line[a.first_bad].version);
      return fmt::format("First bad release: {}; the last good one: {}.", release_text(r.package, line[a.first_bad]),
                         line[a.last_good].version);
    case bisect_answer::kind::hidden: {
      std::string c, skipped;
      bool conflict = false;
      for (size_t i : a.candidates) {
        c += (c.empty() ? "" : ", ") + line[i].version;
        if (i == a.first_bad || !o.trials[i]) continue;
        skipped += (skipped.empty() ? "" : "; ") + line[i].version + " " + trial_reason(o.trials[i]);
        conflict = conflict || o.trials[i]->status == "conflict";
      }
      return fmt::format("The first bad release is one of {} (the last good one: {}); those before {} could not be "
                         "judged: {}.{}",
                         c, line[a.last_good].version, line[a.first_bad].version, skipped,
                         conflict && !r.allow_conflicts ? " --allow-conflicts runs a release despite a conflict." : "");
    }
    case bisect_answer::kind::good_end_bad:
      if (o.trials.back() && o.trials.back()->verdict == trial_verdict::good)
        return fmt::format("The ends look swapped: {} {} (--good) fails ({}) and {} (--bad) passes. To find the "
                           "release that {} it, run again with --good {} --bad {}.",
                           r.package, line.front().version, trial_reason(o.trials.front()), line.back().version,
                           fix ? "broke" : "fixed", line.back().version, line.front().version);
      return fmt::format("{} {} (--good) is bad too ({}): nothing to search. Pick {} --good, or check the probe "
                         "fails for the reason you think.",
                         r.package, line.front().version, trial_reason(o.trials.front()), fix ? "a newer" : "an older");
    case bisect_answer::kind::bad_end_good:
      return fmt::format("{} {} (--bad) passes this probe: the problem does not show with it there.", r.package,
                         line.back().version);
    case bisect_answer::kind::end_untestable: {
      size_t i = o.trials.front() && o.trials.front()->verdict == trial_verdict::skip ? 0 : line.size() - 1;
      return fmt::format("{} {} ({}) could not be judged ({}): choose another {}.", r.package, line[i].version,
                         i == 0 ? "--good" : "--bad", trial_reason(o.trials[i]), i == 0 ? "--good" : "--bad");
    }
    case bisect_answer::kind::empty: return "Fewer than two releases in the range: nothing to search.";
    case bisect_answer::kind::searching: break;
  }
  return "The search did not finish.";
}

int bisect_exit_code(const bisect_outcome& o) {
  if (!o.error.empty()) return exit_usage;
  if (o.interrupted) return 130;
  return o.stopped.empty() && o.answer.what == bisect_answer::kind::found ? exit_ok : exit_failed;
}

json bisect_report(const bisect_request& r, const bisect_outcome& o, bool include_identifiers,
                   const std::string& created_utc) {
  const auto& line = o.range.line;
  json versions = json::array();
  for (size_t i = 0; i < line.size(); ++i) {
    json v = {{"version", line[i].version}, {"uploaded", line[i].uploaded.empty() ? json() : json(line[i].uploaded)},
              {"tried", o.trials[i].has_value()}};
    if (o.trials[i]) {
      json t = o.trials[i]->to_json();
      t.erase("version");
      v.update(t);
    }
    versions.push_back(std::move(v));
  }
  json left_out = json::array();
  for (const listed_version& l : o.range.left_out) left_out.push_back({{"version", l.version}, {"why", l.why_not}});
  json answer = {{"kind", to_string(o.answer.what)}, {"sentence", bisect_answer_sentence(r, o)}};
  if (o.answer.what == bisect_answer::kind::found || o.answer.what == bisect_answer::kind::hidden) {
    answer["first_bad"] = line[o.answer.first_bad].version;
    answer["last_good"] = line[o.answer.last_good].version;
    if (o.range.descending) answer["first_good_again"] = line[o.answer.last_good].version;
    json c = json::array();
    for (size_t i : o.answer.candidates) c.push_back(line[i].version);
    answer["candidates"] = c;
  }
  json ooo = json::array();
  for (size_t i : o.answer.out_of_order) ooo.push_back(line[i].version);
  answer["good_after_first_bad"] = ooo;
  json links = json::object();
  if (!o.listing.changelog.empty()) links["changelog"] = o.listing.changelog;
  if (!o.listing.releases.empty()) links["releases"] = o.listing.releases;
  if (!o.listing.links_from.empty()) links["from"] = o.listing.links_from;
  json b = {{"package", r.package},
            {"good", r.good},
            {"bad", r.bad},
            {"direction", o.range.descending ? "fix" : "regression"},
            {"source", o.listing.source},
            {"locations", o.listing.locations},
            {"python", r.python},
            {"installer", o.installer},
            {"trial", r.run_command.empty() ? json{{"probe", r.probe_args}} : json{{"run", r.run_command}}},
            {"compile_only_target", r.compile_target.empty() ? json() : json(r.compile_target)},
            {"allow_conflicts", r.allow_conflicts},
            {"match", r.match.empty() ? json() : json(r.match)},
            {"versions", versions},
            {"left_out", left_out},
            {"prereleases_left_out", o.range.prereleases_left_out},
            {"yanked_left_out", o.range.yanked_left_out},
            {"answer", answer},
            {"links", links},
            {"tried", o.answer.tried},
            {"resumed", o.resumed},
            {"interrupted", o.interrupted},
            {"stopped", o.stopped.empty() ? json() : json(o.stopped)},
            {"work_dir", o.work_dir},
            {"wall_s", std::round(o.wall_s * 10) / 10}};
  json rep = {{"schema_version", 1},
              {"tool", {{"name", "gpustack"}, {"version", GPUSTACK_VERSION}, {"command", "bisect"}}},
              {"created_utc", created_utc.empty() ? utc_now_iso() : created_utc},
              {"summary", {{"status", o.interrupted || !o.stopped.empty() ? "untested"
                                      : o.answer.what == bisect_answer::kind::found ? "pass" : "fail"},
                           {"text", answer["sentence"]}}},
              {"bisect", b}};
  machine_facts who;
  detect_identity(sysroot::live(), who);
  redactor::for_facts(who, include_identifiers).scrub_json(rep);
  return rep;
}

std::string render_bisect_human(const json& report, bool color) {
  const json& b = report.value("bisect", json::object());
  auto paint = [color](const std::string& s, const char* code) {
    return color ? std::string("\033[") + code + "m" + s + "\033[0m" : s;
  };
  std::string out = fmt::format("gpustack bisect {}: {} good, {} bad ({}, {})\n", json_text_at(b, {"package"}), json_text_at(b, {"good"}),
                                json_text_at(b, {"bad"}), json_text_at(b, {"direction"}), json_text_at(b, {"source"}));
  for (const json& v : b.value("versions", json::array())) {
    std::string verdict = v.value("tried", false) ? json_text_at(v, {"verdict"}) : "-";
    const char* code = verdict == "good" ? "32" : verdict == "bad" ? "31" : "33";
    std::string times;
    if (v.value("install_s", 0.0) > 0) times += fmt::format("install {:.1f} s", v.value("install_s", 0.0));
    if (v.value("probe_s", 0.0) > 0) times += fmt::format("{}probe {:.1f} s", times.empty() ? "" : ", ", v.value("probe_s", 0.0));
    std::string day = json_text_at(v, {"uploaded"}).substr(0, 10);
    out += fmt::format("  {:<12} {:<10} {} {:<16} {:<26} {}\n", json_text_at(v, {"version"}), day.empty() ? "" : day,
                       paint(fmt::format("{:<5}", verdict), code), json_text_at(v, {"status"}), times, json_text_at(v, {"detail"}));
  }
  for (const json& l : b.value("left_out", json::array()))
    out += fmt::format("  {:<12} left out: {}\n", json_text_at(l, {"version"}), json_text_at(l, {"why"}));
  const json& a = b.value("answer", json::object());
  out += "\n" + paint(json_text_at(a, {"sentence"}), a.value("kind", "") == "found" ? "1" : "1;33") + "\n";
  const json& links = b.value("links", json::object());
  if (!json_text_at(links, {"changelog"}).empty()) out += "Changelog: " + json_text_at(links, {"changelog"}) + "\n";
  else if (!json_text_at(links, {"releases"}).empty()) out += "Release notes: " + json_text_at(links, {"releases"}) + "\n";
  out += fmt::format("{} trials ({} from an earlier run) in {:.0f} s; reports and logs in {}\n", b.value("tried", 0),
                     b.value("resumed", 0), b.value("wall_s", 0.0), json_text_at(b, {"work_dir"}));
  return out;
}

std::string render_bisect_markdown(const json& report) {
  const json& b = report.value("bisect", json::object());
  std::string out = fmt::format("### gpustack bisect: {} {} (good) .. {} (bad)\n\n", json_text_at(b, {"package"}), json_text_at(b, {"good"}),
                                json_text_at(b, {"bad"}));
  out += "**" + json_text_at(b.value("answer", json::object()), {"sentence"}) + "**\n\n";
  out += "| version | uploaded | verdict | status | install s | probe s | detail |\n|---|---|---|---|---|---|---|\n";
  for (const json& v : b.value("versions", json::array())) {
    std::string detail = json_text_at(v, {"detail"});
    for (char& c : detail)
      if (c == '|') c = '/';
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", json_text_at(v, {"version"}), json_text_at(v, {"uploaded"}).substr(0, 10),
                       v.value("tried", false) ? json_text_at(v, {"verdict"}) : "not tried", json_text_at(v, {"status"}),
                       v.value("install_s", 0.0) > 0 ? fmt::format("{:.1f}", v.value("install_s", 0.0)) : "",
                       v.value("probe_s", 0.0) > 0 ? fmt::format("{:.1f}", v.value("probe_s", 0.0)) : "", detail);
  }
  const json& links = b.value("links", json::object());
  if (!links.empty())
    out += "\nLinks: " + (json_text_at(links, {"changelog"}).empty() ? json_text_at(links, {"releases"}) : json_text_at(links, {"changelog"})) + "\n";
  out += "\n<details><summary>JSON report</summary>\n\n```json\n" + report.dump(2) + "\n```\n</details>\n";
  return out;
}

}  // namespace gs
