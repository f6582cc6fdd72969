// The Python backends' results read from recorded script outputs (the @gs protocol), as the
// fla-python scripts print them: a pass with figures, a skip with its reason, a script that
// died mid-run, and the arguments the scripts receive.
#include <gtest/gtest.h>

#include "fla/fla_probes.h"

namespace gs {
namespace {

TEST(FlaPythonResult, PassCarriesFiguresAndPlace) {
  std::string out =
      "@gs phase import\n@gs phase compile\n@gs phase run\n@gs phase verify\n"
      "@gs result {\"status\": \"pass\", \"detail\": \"rel 2.1e-03\", \"data\": {\"compile_ms\": 1830.5, "
      "\"run_ms\": 0.51, \"max_abs_err\": 0.012, \"rel_err\": 0.0021, \"num_warps\": 4, \"num_stages_seen\": [2], "
      "\"versions\": {\"torch\": \"2.11.0+cu130\", \"triton\": \"3.6.0\", \"fla\": null}, \"arch\": \"sm_90\", "
      "\"backward\": {\"status\": \"skip\", \"detail\": \"not asked\"}}}\n";
  python_probe_outcome o = outcome_from_output(out, "", 0, 0);
  probe_result r = fla_python_result("triton", 2, {{"B", 2}}, o);
  EXPECT_EQ(r.id, "fla.triton.stages2");
  EXPECT_EQ(r.outcome, status::pass);
  EXPECT_EQ(r.data["stage"], 2);
  EXPECT_EQ(r.data["backend"], "triton");
  EXPECT_EQ(r.data["run_ms"], 0.51);
  EXPECT_EQ(r.data["num_stages_seen"], nlohmann::json::array({2}));
  EXPECT_EQ(r.data["versions"]["triton"], "3.6.0");
  EXPECT_EQ(r.data["shape"]["B"], 2);
}

TEST(FlaPythonResult, SkipWithoutTorchKeepsTheReasonAndNullFigures) {
  python_probe_outcome o = outcome_from_output(
      "@gs phase import\n@gs result {\"status\": \"skip\", \"detail\": \"torch is not installed in /usr/bin/python3\"}\n",
      "", 0, 0);
  probe_result r = fla_python_result("fla", 1, nlohmann::json::object(), o);
  EXPECT_EQ(r.outcome, status::skip);
  EXPECT_NE(r.detail.find("torch is not installed"), std::string::npos);
  EXPECT_TRUE(r.data["run_ms"].is_null());
  EXPECT_TRUE(r.data["compile_ms"].is_null());
}

TEST(FlaPythonResult, DiedWithoutAResultIsAnErrorWithTheLog) {
  python_probe_outcome o =
      outcome_from_output("@gs phase import\n@gs phase compile\n", "LLVM ERROR: operation destroyed but still has uses\n", 134, 0);
  probe_result r = fla_python_result("fla", 4, nlohmann::json::object(), o);
  EXPECT_NE(r.outcome, status::pass);
  EXPECT_EQ(r.data["stage"], 4);
  EXPECT_NE((r.detail + r.data.dump()).find("operation destroyed"), std::string::npos) << r.detail << r.data.dump();
}

TEST(FlaPythonArgs, TheScriptsContract) {
  probe_context ctx;
  fla_settings s;
  s.shape = {2, 4096, 16, 16, 128, 128};
  s.backward = true;
  s.spin_stage = 3;
  ctx.options = fla_step_options(s, 3);
  nlohmann::json a = fla_python_args(ctx);
  EXPECT_EQ(a["stage"], 3);
  EXPECT_EQ(a["B"], 2);
  EXPECT_EQ(a["T"], 4096);
  EXPECT_EQ(a["H"], 16);
  EXPECT_EQ(a["HV"], 16);
  EXPECT_EQ(a["K"], 128);
  EXPECT_EQ(a["V"], 128);
  EXPECT_EQ(a["chunk"], 64);
  EXPECT_EQ(a["dtype"], "bf16");
  EXPECT_EQ(a["seed"], s.seed);
  EXPECT_EQ(a["backward"], true);
  EXPECT_EQ(a["spin"], true);
  EXPECT_EQ(a["default_timing"], false);  // only at the first depth of the range
  ctx.options = fla_step_options(s, 2);
  EXPECT_EQ(fla_python_args(ctx)["spin"], false);  // only the named depth spins
  ctx.options = fla_step_options(s, 1);
  EXPECT_EQ(fla_python_args(ctx)["default_timing"], true);
  EXPECT_EQ(fla_python_args(ctx)["backward_refused_at"], 0);  // nothing refused yet: run it
  // probe fla passes the depth where FLA refused its backward (FLA#640) to the later depths.
  ctx.options["fla.backward_refused_at"] = "1";
  EXPECT_EQ(fla_python_args(ctx)["backward_refused_at"], 1);
}

}  // namespace
}  // namespace gs
