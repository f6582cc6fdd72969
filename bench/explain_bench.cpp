// `gpustack explain` on a big paste: the issue asks for a 1 MB log in well under a second.
// Two 1 MB inputs built from real text: (a) the corpus reports and captured tool outputs one
// after another, repeated (many distinct lines, every extractor busy); (b) a training log, a
// few hundred distinct lines repeated thousands of times with step counters (what users paste
// most), ending in a real HIP error.
// Run: build/bench/gpustack_bench --benchmark_filter=Explain
#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "explain/explain.h"
#include "rules/error_findings.h"

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string mixed_megabyte() {
  std::string all;
  fs::path tests = fs::path(GPUSTACK_TEST_FIXTURES).parent_path();
  for (const fs::path& dir : {tests / "corpus" / "cases", tests / "fixtures" / "paste"})
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file()) all += slurp(e.path());
  std::string out;
  while (out.size() < (1u << 20)) out += all;
  return out.substr(0, 1u << 20);
}

std::string training_log_megabyte() {
  std::string out;
  for (int step = 0; out.size() < (1u << 20) - 400; ++step)
    out += "{'loss': " + std::to_string(2.5 - step * 1e-4) + ", 'grad_norm': 0.43, 'learning_rate': 0.0002, 'epoch': " +
           std::to_string(step / 1000.0) + "}\n  " + std::to_string(step % 100) +
           "%|###       | " + std::to_string(step) + "/20000 [01:23<12:34,  1.52it/s]\n";
  return out + "RuntimeError: HIP error: invalid device function\nHIP kernel errors might be asynchronously reported\n";
}

void run(benchmark::State& state, const std::string& text) {
  const gs::knowledge_base& kb = gs::builtin_knowledge_base();
  for (auto _ : state) {
    gs::explain_result r = gs::explain_text(text, kb);
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}

void BM_ExplainMixedMegabyte(benchmark::State& state) { run(state, mixed_megabyte()); }
void BM_ExplainTrainingLogMegabyte(benchmark::State& state) { run(state, training_log_megabyte()); }
BENCHMARK(BM_ExplainMixedMegabyte)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExplainTrainingLogMegabyte)->Unit(benchmark::kMillisecond);

}  // namespace
