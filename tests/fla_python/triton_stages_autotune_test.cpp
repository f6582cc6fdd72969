// gpustack_triton_stages.py and Triton's autotuner (issue 15: "compile only the configurations
// that will run"): once num_stages is forced or capped, configs that differ only in num_stages
// are the same kernel, and the autotuner benchmarks one of each. Run with the real Python against
// the Triton stand-in (tests/fixtures/python_fakes/triton36), whose Autotuner benchmarks every
// config prune_configs() keeps by launching it.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "core/assets.h"
#include "support/files.h"
#include "support/shell.h"

namespace gs {
namespace {

/// "mode kept dropped [launched stages]" from one autotuner run over FLA's shape of config list:
/// BV 32/64 x num_warps 2/4 x num_stages 2/3/4 (12 configs, 4 kernels once num_stages is fixed).
std::string autotune(const std::string& limit, const std::string& mode) {
  test::temp_dir dir;
  std::optional<std::string_view> src = find_asset("probes/python/gpustack_triton_stages.py");
  EXPECT_TRUE(src);
  std::ofstream(dir.path + "/gpustack_triton_stages.py") << *src;
  std::ofstream(dir.path + "/run.py")
      << "import gpustack_triton_stages as st, triton\n"
         "from triton.runtime.autotuner import Autotuner, Config\n"
         "k = triton.jit(lambda: None)\n"
         "cfgs = [Config({'BV': bv}, num_warps=w, num_stages=s) for bv in (32, 64) for w in (2, 4) for s in (2, 3, 4)]\n"
         "st.activate(" << limit << ", mode='" << mode << "')\n"
         "a = Autotuner(k, cfgs)\n"
         "a.run()\n"
         "print('%s %d %d %s' % ('" << mode << "', len(a.benched), st.configs_dropped(), sorted(set(k.launches))))\n";
  std::string out;
  int rc = test::shell("env -u GPUSTACK_TRITON_STAGES_CAP PYTHONPATH='" + dir.path + ":" + GPUSTACK_TEST_FIXTURES +
                           "/python_fakes/triton36' python3 '" + dir.path + "/run.py'",
                       &out);
  EXPECT_EQ(rc, 0) << out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

TEST(TritonStagesAutotune, ForcingBenchmarksOneConfigPerKernel) {
  EXPECT_EQ(autotune("2", "force"), "force 4 8 [2]");
}

TEST(TritonStagesAutotune, CappingCollapsesOnlyTheDepthsAboveTheCap) {
  EXPECT_EQ(autotune("3", "cap"), "cap 8 4 [2, 3]");
}

TEST(TritonStagesAutotune, ObservingLeavesEveryConfig) {
  EXPECT_EQ(autotune("None", "observe"), "observe 12 0 [2, 3, 4]");
}

/// fla_fla.py's reset_autotuners over one of "FLA's" autotuners that already holds a result, as in
/// the warm worker's shared interpreter after an earlier depth: "benched-after-reset bench-args"
/// for a quick reset, then a default one.
std::string reset_and_bench() {
  test::temp_dir dir;
  for (const char* a : {"probes/python/fla_fla.py", "probes/python/fla_args.py", "probes/python/gs_protocol.py",
                        "probes/python/gpustack_triton_stages.py", "kernels/triton/gdn_ref.py"}) {
    std::optional<std::string_view> src = find_asset(a);
    EXPECT_TRUE(src) << a;
    std::string path(a);
    std::ofstream(dir.path + "/" + path.substr(path.rfind('/') + 1)) << (src ? *src : "");
  }
  std::ofstream(dir.path + "/run.py")
      << "import sys, types, triton\n"
         "from triton.runtime.autotuner import Autotuner, Config\n"
         "import fla_fla as ff  # its main() skips here (no torch)\n"
         "a = Autotuner(triton.jit(lambda: None), [Config({'BV': 32}), Config({'BV': 64})])\n"
         "a.run()  # an earlier depth's result\n"
         "sys.modules['fla.ops.fake'] = types.SimpleNamespace(kernel=types.SimpleNamespace(fn=a))\n"
         "out = []\n"
         "for quick in (True, False):\n"
         "    a.benched, a.bench_args = [], []\n"
         "    n = len(ff.reset_autotuners(quick=quick))\n"
         "    a.run()\n"
         "    out.append('%d:%d:%s' % (n, len(a.benched), sorted(set(a.bench_args))))\n"
         "print('RESULT ' + ' '.join(out).replace(' ', ''))\n";
  std::string out;
  int rc = test::shell("cd '" + dir.path + "' && env -u GPUSTACK_TRITON_STAGES_CAP PYTHONPATH='" + dir.path + ":" +
                           GPUSTACK_TEST_FIXTURES + "/python_fakes/triton36' python3 run.py",
                       &out);
  EXPECT_EQ(rc, 0) << out;
  size_t at = out.find("RESULT ");
  if (at == std::string::npos) return out;
  std::string line = out.substr(at + 7);
  return line.substr(0, line.find('\n'));
}

TEST(TritonStagesAutotune, EachDepthBenchmarksAgainAndQuickBenchmarksAreUndoneAfter) {
  // Both resets forget the earlier result (every config benchmarked again); the quick one
  // benchmarks 5 + 20 ms, and the next reset gives Triton's own 25 + 100 ms back.
  EXPECT_EQ(reset_and_bench(), "1:2:[(5,20)]1:2:[(25,100)]");
}

}  // namespace
}  // namespace gs
