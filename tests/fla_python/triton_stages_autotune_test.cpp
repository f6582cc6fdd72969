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

}  // namespace
}  // namespace gs
