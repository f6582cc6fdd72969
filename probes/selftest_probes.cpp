// The watchdog's self-tests (see selftest_probes.h). They must behave like the real failures
// they stand for: the hang burns no CPU (pause() in a loop, as a process blocked in a GPU
// driver wait), and the crash is a real SIGSEGV delivered to the child.
#include "probes/selftest_probes.h"

#include <signal.h>
#include <unistd.h>

#include "probes/python_probes.h"

namespace gs {
namespace {

probe_result run_pass(const probe_context& ctx) {
  ctx.phase("verify");
  probe_result r;
  r.id = "selftest.pass";
  r.outcome = status::pass;
  r.phase = "verify";
  r.detail = "the watchdog ran a probe and got its result back";
  return r;
}

probe_result run_hang(const probe_context& ctx) {
  ctx.phase("launch");
  for (;;) ::pause();  // no CPU, no heartbeat: only the deadline ends this
}

probe_result run_crash(const probe_context& ctx) {
  ctx.phase("launch");
  ::raise(SIGSEGV);
  probe_result r;  // not reached: SIGSEGV's default action ends the process
  r.outcome = status::error;
  r.detail = "SIGSEGV did not end the process";
  return r;
}

// The Python self-tests: one script (probes/python/selftest_py.py), its behaviour from the id.
probe_result run_py_selftest(const probe_context& ctx) {
  probe_context c = ctx;
  const std::string id = ctx.probe_id;
  const std::string behave = id == "selftest.py.hang" ? "hang" : id == "selftest.py.crash" ? "crash" : "pass";
  if (!c.options.count("behave")) c.options[id + ".behave"] = behave;
  c.options[id + ".preloaded"] = "json,decimal";
  return run_python_step(c, id, "probes/python/selftest_py.py");
}

}  // namespace

const probe_spec selftest_pass_probe = {
    "selftest.pass", "watchdog self-test: a child that passes at once", {}, true, false, run_pass};
const probe_spec selftest_hang_probe = {
    "selftest.hang", "watchdog self-test: blocks forever in phase launch (expect hang)", {}, true,
    false, run_hang};
const probe_spec selftest_crash_probe = {
    "selftest.crash", "watchdog self-test: SIGSEGV in phase launch (expect crash)", {}, true,
    false, run_crash};

}  // namespace gs

namespace gs {

// Forked from the warm worker (or a fresh interpreter with --fresh); they preload two standard
// modules so `pass` can show the worker's imports reached it (data.already_imported).
const probe_spec selftest_py_pass_probe = {
    "selftest.py.pass", "Python self-test: passes; says which process ran it and what was preloaded", {}, true, false,
    run_py_selftest, warm_python{{"json", "decimal"}, false}};
const probe_spec selftest_py_hang_probe = {
    "selftest.py.hang", "Python self-test: blocks forever in phase launch, or --set selftest.py.hang.phase=P (expect hang)",
    {}, true, false, run_py_selftest, warm_python{{"json", "decimal"}, false}};
const probe_spec selftest_py_crash_probe = {
    "selftest.py.crash", "Python self-test: SIGSEGV in phase launch (expect crash)", {}, true, false, run_py_selftest,
    warm_python{{"json", "decimal"}, false}};

}  // namespace gs
