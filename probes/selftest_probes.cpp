// The watchdog's self-tests (see selftest_probes.h). They must behave like the real failures
// they stand for: the hang burns no CPU (pause() in a loop, as a process blocked in a GPU
// driver wait), and the crash is a real SIGSEGV delivered to the child.
#include "probes/selftest_probes.h"

#include <signal.h>
#include <unistd.h>

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
