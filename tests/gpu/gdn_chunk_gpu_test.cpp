// GPU only (label gpu): kernels/gdn_chunk.cu on the machine's GPU at stages 1..4 against the fp64
// recurrence, through the same step `gpustack probe fla` runs, on a shape with grouped heads,
// a partial chunk and V not a multiple of the block's 8 columns. Skips without a GPU.
#include <gtest/gtest.h>

#include "fla/fla_probes.h"

namespace gs {
namespace {

class NoSink : public phase_sink {
 public:
  void phase(std::string_view) override {}
  void heartbeat() override {}
};

TEST(GdnChunkGpu, MatchesTheFp64RecurrenceAtEveryDepth) {
  for (int stage = 1; stage <= 4; ++stage) {
    NoSink sink;
    probe_context ctx;
    ctx.progress = &sink;
    ctx.device = "0";  // the first GPU; no GPU: the step skips
    fla_settings s;
    s.shape = {2, 1000, 4, 8, 128, 100};
    ctx.options = fla_step_options(s, stage);
    probe_result r = run_fla_native(ctx);
    if (r.outcome == status::skip) GTEST_SKIP() << r.detail;
    EXPECT_NE(r.data["device"]["backend"], "cpu");
    EXPECT_EQ(r.outcome, status::pass) << "stage " << stage << ": " << r.detail;
  }
}

}  // namespace
}  // namespace gs
