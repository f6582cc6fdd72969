// Running and judging one trial; see bisect_trial.h.
#include "bisect/bisect_trial.h"
#include "report/json_path.h"

#include <unistd.h>

#include <cstdio>

#include "core/file_io.h"
#include "core/status.h"
#include "sys/child_spawn.h"
#include "watch/watch.h"

namespace gs {
namespace {

/// Derived steps and self-tests say nothing about the stack under test.
bool judged(const std::string& id) { return id != "fla.verdict" && id.rfind("selftest.", 0) != 0; }

}  // namespace

nlohmann::json trial_result::to_json() const {
  return {{"version", version}, {"verdict", to_string(verdict)}, {"status", status}, {"detail", detail},
          {"install_s", install_s}, {"probe_s", probe_s}, {"conflicts", conflicts}, {"probes", probes},
          {"report", report_path}, {"log", log_path}, {"exit_code", exit_code}};
}

trial_result trial_result::from_json(const nlohmann::json& j) {
  trial_result t;
  t.version = json_text_at(j, {"version"});
  std::string v = json_text_at(j, {"verdict"});
  t.verdict = v == "good" ? trial_verdict::good : v == "bad" ? trial_verdict::bad : trial_verdict::skip;
  t.status = json_text_at(j, {"status"});
  t.detail = json_text_at(j, {"detail"});
  t.install_s = j.value("install_s", 0.0);
  t.probe_s = j.value("probe_s", 0.0);
  if (j.contains("conflicts") && j["conflicts"].is_array())
    for (const auto& c : j["conflicts"])
      if (c.is_string()) t.conflicts.push_back(c.get<std::string>());
  if (j.contains("probes") && j["probes"].is_array()) t.probes = j["probes"];
  t.report_path = json_text_at(j, {"report"});
  t.log_path = json_text_at(j, {"log"});
  t.exit_code = j.value("exit_code", -1);
  return t;
}

void judge_report(const nlohmann::json& report, trial_result& t, const std::string& match) {
  t.probes = nlohmann::json::array();
  const nlohmann::json* bad = nullptr;
  const nlohmann::json* error = nullptr;
  bool ran = false;
  if (report.contains("probes") && report["probes"].is_array())
    for (const auto& p : report["probes"]) {
      const std::string id = json_text_at(p, {"id"});
      if (!judged(id)) continue;
      const std::string st = json_text_at(p, {"status"});
      t.probes.push_back({{"id", id}, {"status", st}, {"detail", json_text_at(p, {"detail"}).substr(0, 300)}});
      auto s = parse_status(st);
      if (!s) continue;
      if ((*s == status::fail || *s == status::hang || *s == status::crash) && !bad) bad = &p;
      if (*s == status::error && !error) error = &p;
      if (*s == status::pass || *s == status::warn) ran = true;
    }
  auto line = [](const nlohmann::json& p) { return json_text_at(p, {"id"}) + " " + json_text_at(p, {"status"}) + ": " + json_text_at(p, {"detail"}); };
  if (bad && !match.empty() && json_text_at(*bad, {"detail"}).find(match) == std::string::npos) {
    t.verdict = trial_verdict::skip;
    t.status = "other-failure";
    t.detail = line(*bad);
  } else if (bad) {
    t.verdict = trial_verdict::bad;
    t.status = json_text_at(*bad, {"status"});
    t.detail = line(*bad);
  } else if (error) {
    t.verdict = trial_verdict::skip;
    t.status = "error";
    t.detail = line(*error);
  } else if (ran) {
    t.verdict = trial_verdict::good;
    t.status = "pass";
    t.detail = std::to_string(t.probes.size()) + (t.probes.size() == 1 ? " probe passed" : " probes passed");
  } else {
    t.verdict = trial_verdict::skip;
    t.status = "skip";
    t.detail = t.probes.empty() ? "the report holds no probe" : line(t.probes.front());
  }
  if (t.detail.size() > 400) t.detail = t.detail.substr(0, 397) + "...";
}

void judge_exit(bool hang, int signal, int exit_code, double timeout_s, trial_result& t) {
  t.exit_code = exit_code;
  if (hang) {
    t.verdict = trial_verdict::bad;
    t.status = "hang";
    t.detail = "still running after " + std::to_string(int(timeout_s)) + " s (--timeout); killed";
  } else if (signal) {
    t.verdict = trial_verdict::bad;
    t.status = "crash";
    t.detail = "killed by " + signal_name(signal);
  } else if (exit_code == 0) {
    t.verdict = trial_verdict::good;
    t.status = "pass";
    t.detail = "exit 0";
  } else if (exit_code == 125 || exit_code == 126 || exit_code == 127) {
    t.verdict = trial_verdict::skip;
    t.status = "skip";
    t.detail = "exit " + std::to_string(exit_code) +
               (exit_code == 125 ? " (the command's own skip)" : " (the command could not be run)");
  } else {
    t.verdict = trial_verdict::bad;
    t.status = "fail";
    t.detail = "exit " + std::to_string(exit_code);
  }
}

program_end run_trial_program(const trial_run& r) {
  watch_limits lim;
  lim.deadlines.seconds.clear();
  lim.deadlines.fallback_s = r.timeout_s;
  lim.grace_s = 10;
  lim.output_tail_bytes = 256 * 1024;
  lim.waiting_phases.clear();
  const std::vector<std::string> env = environment_with(r.env);
  child_body body = [&](child_reporter&) -> std::string {
    std::vector<char*> argv, envp;
    for (const std::string& a : r.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    ::execve(argv[0], argv.data(), envp.data());
    std::fprintf(stderr, "gpustack bisect: cannot run %s\n", argv[0]);
    std::fflush(stderr);
    ::_exit(127);
  };
  watch_outcome w = run_watched(body, lim, nullptr);
  program_end e;
  e.hang = w.end == watch_end::hang;
  e.interrupted = w.end == watch_end::interrupted;
  e.spawn_failed = w.end == watch_end::spawn_failed;
  e.signal = w.end == watch_end::crashed ? w.signal : 0;
  e.exit_code = w.exit_code;
  e.seconds = w.elapsed_s;
  e.tail = w.output_tail;
  if (!r.log_path.empty()) {
    std::string why;
    write_file_atomically(r.log_path, w.output_tail, why);
  }
  return e;
}

}  // namespace gs
