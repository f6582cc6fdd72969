// Wall time of `gpustack check`: the issue asks for well under half a second. Measured three
// ways: the whole binary as a user runs it (fork/exec, --json to /dev/null), the in-process
// pipeline on this machine, and on the fixture trees (a gfx1201 box with a Python venv).
// Run: build/bench/gpustack_bench --benchmark_filter=Check
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "detect/detect.h"
#include "report/report.h"
#include "rules/knowledge_base.h"

namespace {

void run_pipeline(const gs::sysroot& sys, const gs::knowledge_base& kb) {
  gs::machine_facts facts = gs::detect_machine(sys, {});
  gs::report_input in;
  in.facts = &facts;
  in.findings = kb.evaluate(facts);
  nlohmann::json report = gs::build_report(in, {});
  std::string text = report.dump(2);
  benchmark::DoNotOptimize(text);
}

void BM_CheckProcess(benchmark::State& state) {
  for (auto _ : state) {
    pid_t pid = fork();
    if (pid == 0) {
      int devnull = open("/dev/null", O_WRONLY);
      dup2(devnull, 1);
      dup2(devnull, 2);
      execl(GPUSTACK_BINARY, "gpustack", "check", "--json", static_cast<char*>(nullptr));
      _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) > 1) state.SkipWithError("gpustack check failed");
  }
}
BENCHMARK(BM_CheckProcess)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

void BM_CheckInProcessLive(benchmark::State& state) {
  std::vector<gs::kb_error> errors;
  gs::knowledge_base kb = gs::knowledge_base::load_builtin(errors);
  gs::sysroot sys = gs::sysroot::live();
  for (auto _ : state) run_pipeline(sys, kb);
}
BENCHMARK(BM_CheckInProcessLive)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_CheckFixture(benchmark::State& state, const char* machine) {
  std::vector<gs::kb_error> errors;
  gs::knowledge_base kb = gs::knowledge_base::load_builtin(errors);
  gs::sysroot sys = gs::sysroot::captured(std::string(GPUSTACK_TEST_FIXTURES) + "/machines/" + machine);
  for (auto _ : state) run_pipeline(sys, kb);
}
BENCHMARK_CAPTURE(BM_CheckFixture, r9700_rocm72, "r9700-rocm72")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_CheckFixture, h200, "h200")->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LoadKnowledgeBase(benchmark::State& state) {
  for (auto _ : state) {
    std::vector<gs::kb_error> errors;
    gs::knowledge_base kb = gs::knowledge_base::load_builtin(errors);
    benchmark::DoNotOptimize(kb.size());
  }
}
BENCHMARK(BM_LoadKnowledgeBase)->Unit(benchmark::kMillisecond);

}  // namespace
