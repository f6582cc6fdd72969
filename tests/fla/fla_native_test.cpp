// The native backend's step on the cpu backend (no GPU: the CPU chunked path through the
// runtime's kernel table, with the ring at this depth), at stages 1..4, in-process.
#include <gtest/gtest.h>

#include "fla/fla_probes.h"
#include "runtime/runtime.h"
#include "runtime/runtime_cpu.h"

namespace gs {
namespace {

class CollectPhases : public phase_sink {
 public:
  void phase(std::string_view p) override { phases.emplace_back(p); }
  void heartbeat() override {}
  std::vector<std::string> phases;
};

probe_context small_ctx(int stage, CollectPhases& sink, int V = 24, const std::string& kernel = "v2") {
  probe_context ctx;
  ctx.progress = &sink;
  ctx.device = "cpu";
  fla_settings s;
  s.shape = {2, 150, 2, 4, 32, V};  // grouped heads, a partial chunk; V = 24 is not a multiple of 8
  s.native_kernel = kernel;
  ctx.options = fla_step_options(s, stage);
  return ctx;
}

class FlaNative : public ::testing::TestWithParam<int> {};

TEST_P(FlaNative, CpuPathPassesWithFigures) {
  CollectPhases sink;
  probe_result r = run_fla_native(small_ctx(GetParam(), sink));
  EXPECT_EQ(r.outcome, status::pass) << r.detail;
  EXPECT_EQ(r.id, "fla.native.stages" + std::to_string(GetParam()));
  EXPECT_EQ(r.data["stage"], GetParam());
  EXPECT_EQ(r.data["backend"], "native");
  EXPECT_EQ(r.data["device"]["backend"], "cpu");
  for (const char* k : {"compile_ms", "run_ms", "max_abs_err", "rel_err", "num_warps"})
    EXPECT_TRUE(r.data[k].is_number()) << k << " " << r.data.dump();
  EXPECT_LE(r.data["rel_err"].get<double>(), fla_native_rel_tol);
  EXPECT_EQ(r.data["shape"]["HV"], 4);
  EXPECT_EQ(sink.phases, (std::vector<std::string>{"load", "compile", "run", "verify"}));
  // V = 24 is not a multiple of 16: v2 cannot take it, so v1 ran and the report says why.
  EXPECT_EQ(r.data["kernel"], "gdn_chunk_v1");
  EXPECT_NE(r.data["v1_because"].get<std::string>().find("multiple of 16"), std::string::npos);
}

TEST_P(FlaNative, V2RunsWhereTheShapeAllowsAndV1WhenAskedFor) {
  CollectPhases sink;
  probe_result r = run_fla_native(small_ctx(GetParam(), sink, 32));
  EXPECT_EQ(r.outcome, status::pass) << r.detail;
  EXPECT_EQ(r.data["kernel"], "gdn_chunk_v2");
  EXPECT_FALSE(r.data.contains("v1_because"));
  EXPECT_EQ(r.data["path"], "cpu chunked (kernels/ref/gdn_v2_ref.cpp)");
  EXPECT_LE(r.data["rel_err"].get<double>(), fla_native_rel_tol);
  CollectPhases sink1;
  probe_result r1 = run_fla_native(small_ctx(GetParam(), sink1, 32, "v1"));
  EXPECT_EQ(r1.outcome, status::pass) << r1.detail;
  EXPECT_EQ(r1.data["kernel"], "gdn_chunk_v1");
  EXPECT_EQ(r1.data["v1_because"], "asked for (--native-kernel v1)");
}

INSTANTIATE_TEST_SUITE_P(Stages, FlaNative, ::testing::Values(1, 2, 3, 4));

TEST(FlaNativeCpuKernel, GridThatMissesHeadsIsRefused) {
  // The cpu backend's row checks the grid like a GPU would leave outputs unwritten.
  std::unique_ptr<runtime> rt = open_cpu_runtime(32);
  compile_request req{"gdn_chunk.cu", "// any text", {"GS_STAGES=2", "GS_DK=8"}};
  compiled_code code;
  module_handle mod;
  kernel_handle k;
  ASSERT_TRUE(rt->compile(req, code).ok);
  ASSERT_TRUE(rt->load(code, mod).ok);
  ASSERT_TRUE(rt->get_kernel(mod, "gdn_chunk_v1", k).ok);
  buffer q, o;
  ASSERT_TRUE(rt->alloc(4096, q).ok);
  ASSERT_TRUE(rt->alloc(4096, o).ok);
  void *pq = q.ptr, *po = o.ptr, *null = nullptr;
  int T = 4, H = 1, HV = 2, V = 8;
  float scale = 0.35f;
  void* args[] = {&pq, &pq, &pq, &pq, &pq, &null, &po, &po, &po, &T, &H, &HV, &V, &scale};
  launch_dims d;
  d.grid[1] = 1;  // HV = 2 heads, one block row
  runtime_status st = rt->launch(k, d, args);
  EXPECT_FALSE(st.ok);
  EXPECT_NE(st.message.find("grid must be"), std::string::npos) << st.message;
  rt->free(q);
  rt->free(o);
}

}  // namespace
}  // namespace gs
