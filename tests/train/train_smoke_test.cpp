// train-smoke's orchestration without a GPU: the script against this machine's torch-less
// python3 through the real watched run (a clean skip with the reason); recorded outputs (a pass,
// a NaN loss, tests/fixtures/python_outputs/train_smoke_*.stdout) through the same result path;
// a run that hangs in step 1's backward, replayed by a stand-in interpreter and killed by the
// watchdog, reported with its step and phase and no process left; the deadlines, the live
// progress line, the estimate ratio; and the script compiles.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/assets.h"
#include "models/model_registry.h"
#include "python/script_runner.h"
#include "train/train_smoke.h"

#include "support/files.h"
#include "support/probe_harness.h"
#include "support/shell.h"

namespace gs {
namespace {

namespace fs = std::filesystem;
using test::facts_for;
using test::scoped_env;
const std::string kOutputs = std::string(GPUSTACK_TEST_FIXTURES) + "/python_outputs/";
const std::string kReplay = std::string(GPUSTACK_TEST_FIXTURES) + "/train/replay_python";

train_smoke_request qwen_request() {
  train_smoke_request r;
  r.model = "qwen3.5-0.8b";
  r.model_type = "qwen3_5_text";
  r.hf_config = {{"num_hidden_layers", 4}};
  r.target_modules = {"in_proj_qkv", "out_proj"};
  return r;
}

probe_result recorded(const std::string& name) {
  python_probe_outcome o = outcome_from_output(gs::test::read_file(kOutputs + name), "", 0, 0);
  probe_result r = to_probe_result("train_smoke", o);
  return r;
}

TEST(TrainSmoke, ScriptIsEmbeddedAndCompiles) {
  std::optional<std::string_view> text = find_asset("probes/python/train_smoke.py");
  ASSERT_TRUE(text);
  fs::path dir = fs::path(::testing::TempDir()) / ("gs-train-compile-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "train_smoke.py") << *text;
  std::string cmd = "cd '" + dir.string() + "' && python3 -m py_compile train_smoke.py";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << "py_compile failed";
  // transformers 5.x's name when the model has it (the old one warns FutureWarning), 4.x's otherwise.
  std::optional<std::string_view> proto = find_asset("probes/python/gs_protocol.py");
  ASSERT_TRUE(proto);
  std::ofstream(dir / "gs_protocol.py") << *proto;
  std::ofstream(dir / "ckpt_check.py")
      << "import train_smoke as t\n"
         "class New:\n"
         "    def activation_checkpointing_enable(self, activation_checkpointing_kwargs=None): self.got = ('new', activation_checkpointing_kwargs)\n"
         "    def gradient_checkpointing_enable(self, **k): raise SystemExit('the deprecated name was called')\n"
         "class Old:\n"
         "    def gradient_checkpointing_enable(self, gradient_checkpointing_kwargs=None): self.got = ('old', gradient_checkpointing_kwargs)\n"
         "n, o = New(), Old()\n"
         "t.enable_checkpointing(n); t.enable_checkpointing(o)\n"
         "assert n.got == ('new', {'use_reentrant': False}), n.got\n"
         "assert o.got == ('old', {'use_reentrant': False}), o.got\n";
  cmd = "cd '" + dir.string() + "' && python3 ckpt_check.py";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << "enable_checkpointing picked the wrong API";
  fs::remove_all(dir);
  // The phases a hang must be able to name.
  for (const char* p : {"\"import\"", "\"build\"", "\"quantize\"", "\"lora\"", "\"step%d.forward\"",
                        "\"step%d.backward\"", "\"step%d.optimizer\"", "\"loss.%.4f\""})
    EXPECT_NE(text->find(p), std::string_view::npos) << p;
}

TEST(TrainSmoke, WithoutTorchTheRealRunIsACleanSkipWithTheReason) {
  const std::string py = gs::test::torchless("/usr/bin/python3");
  std::vector<std::string> phases;
  probe_result r = run_train_smoke(qwen_request(), facts_for(py), nullptr,
                                   [&phases](std::string_view p) { phases.emplace_back(p); }, {});
  finish_train_smoke_result(r, qwen_request(), std::nullopt);
  EXPECT_EQ(r.outcome, status::skip) << r.detail << "\n" << r.data.dump();
  EXPECT_EQ(r.detail, "torch is not installed in " + py);
  EXPECT_EQ(r.id, "train_smoke.qwen3.5-0.8b");
  EXPECT_EQ(r.data["shape"]["model_type"], "qwen3_5_text");  // the arguments arrived
  EXPECT_EQ(r.data["shape"]["seq"], 512);
  EXPECT_NE(std::find(phases.begin(), phases.end(), "import"), phases.end());
}

TEST(TrainSmoke, NoInterpreterIsASkipSayingWhere) {
  probe_result r = run_train_smoke(qwen_request(), facts_for("/nonexistent/python3"), nullptr, {}, {});
  EXPECT_EQ(r.outcome, status::skip);
  EXPECT_NE(r.detail.find("/nonexistent/python3 cannot be executed"), std::string::npos) << r.detail;
}

TEST(TrainSmoke, RecordedPassHasTheFiguresAndTheEstimateRatio) {
  probe_result r = recorded("train_smoke_pass.stdout");
  ASSERT_EQ(r.outcome, status::pass) << r.detail;
  nlohmann::json est = {{"peak_gpu_bytes", 3.2e9}};
  finish_train_smoke_result(r, qwen_request(), est);
  EXPECT_EQ(r.id, "train_smoke.qwen3.5-0.8b");
  ASSERT_EQ(r.data["loss"].size(), 5u);
  EXPECT_LT(r.data["loss"].back().get<double>(), r.data["loss"].front().get<double>());
  EXPECT_EQ(r.data["step_ms"].size(), 5u);
  EXPECT_EQ(r.data["linear_attention_path"]["path"], "torch");
  EXPECT_NE(r.data["linear_attention_path"]["why"].get<std::string>().find("not installed"), std::string::npos);
  EXPECT_EQ(r.data["params"]["quantized_linears"], 31);
  double ratio = r.data["peak_vs_estimate"].get<double>();
  EXPECT_NEAR(ratio, 3521093632.0 / 3.2e9, 1e-9);
  EXPECT_TRUE(r.data["estimate_within_15pct"].get<bool>());
  EXPECT_EQ(r.data["estimate"]["peak_gpu_bytes"], 3.2e9);
  EXPECT_NE(r.detail.find("estimate 2.98 GiB (+10 %)"), std::string::npos) << r.detail;
  // Far off: the flag says so.
  probe_result off = recorded("train_smoke_pass.stdout");
  finish_train_smoke_result(off, qwen_request(), nlohmann::json{{"gpu", {{"peak_bytes", 2.0e9}}}});
  EXPECT_FALSE(off.data["estimate_within_15pct"].get<bool>());
}

TEST(TrainSmoke, RecordedNanLossIsAFailNamingTheStep) {
  probe_result r = recorded("train_smoke_nan.stdout");
  finish_train_smoke_result(r, qwen_request(), std::nullopt);
  EXPECT_EQ(r.outcome, status::fail);
  EXPECT_NE(r.detail.find("loss is nan at step 1"), std::string::npos) << r.detail;
  EXPECT_EQ(r.data["loss"][1], "nan");  // JSON has no NaN: the script sends the word
  EXPECT_FALSE(r.data.contains("peak_vs_estimate"));
}

TEST(TrainSmoke, AHangInStepOneBackwardIsKilledAndNamed) {
  scoped_env replay("GS_REPLAY", kOutputs + "train_smoke_hang.stdout");
  scoped_env hang("GS_REPLAY_HANG", "1");
  train_smoke_request req = qwen_request();
  req.timeout_s = 1;  // every phase deadline 1 s: the replay reaches step1.backward at once
  std::vector<std::string> phases;
  train_progress progress;
  probe_result r = run_train_smoke(req, facts_for(kReplay), nullptr,
                                   [&](std::string_view p) {
                                     phases.emplace_back(p);
                                     progress.take_phase(p);
                                   },
                                   {});
  finish_train_smoke_result(r, req, std::nullopt);
  EXPECT_EQ(r.outcome, status::hang) << r.detail << "\n" << r.data.dump();
  EXPECT_EQ(r.phase, "step1.backward");
  EXPECT_EQ(r.data["hang_step"], 1);
  EXPECT_EQ(r.data["hang_part"], "backward");
  EXPECT_EQ(r.detail.rfind("hung in step 1 backward: no end to phase step1.backward", 0), 0u) << r.detail;
  ASSERT_TRUE(r.data.contains("pgid"));
  EXPECT_EQ(::kill(-r.data["pgid"].get<int>(), 0), -1) << "the killed group is gone";
  EXPECT_EQ(errno, ESRCH);
  // The live line saw the loss of step 0 and the phase it hung in.
  ASSERT_TRUE(progress.last_loss);
  EXPECT_DOUBLE_EQ(*progress.last_loss, 12.4612);
  EXPECT_EQ(progress.line(3.0), "train-smoke: step 1 backward 3 s, last loss 12.461");
}

TEST(TrainSmoke, DeadlinesPerPhaseAndTheTimeoutOverride) {
  watch_limits l = train_smoke_limits(3, 0);
  EXPECT_EQ(l.deadlines.for_phase("import"), 120);
  EXPECT_EQ(l.deadlines.for_phase("build"), 300);
  EXPECT_EQ(l.deadlines.for_phase("step0.backward"), 600);  // the first step compiles
  EXPECT_EQ(l.deadlines.for_phase("step2.backward"), 180);
  EXPECT_EQ(l.deadlines.for_phase("loss.12.5"), 120);
  EXPECT_EQ(l.waiting_phases.size(), 9u);
  EXPECT_EQ(l.waiting_phases.front(), "step0.forward");
  watch_limits t = train_smoke_limits(3, 7);
  EXPECT_EQ(t.deadlines.for_phase("step0.backward"), 7);
  EXPECT_EQ(t.deadlines.for_phase("import"), 7);
}

TEST(TrainSmoke, StepPhasesAndLossPhasesParse) {
  std::optional<step_phase> s = parse_step_phase("step12.optimizer");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->step, 12);
  EXPECT_EQ(s->part, "optimizer");
  EXPECT_FALSE(parse_step_phase("step.forward"));
  EXPECT_FALSE(parse_step_phase("stepx.forward"));
  EXPECT_FALSE(parse_step_phase("step3"));
  EXPECT_FALSE(parse_step_phase("build"));
  train_progress p;
  EXPECT_TRUE(p.take_phase("build"));
  EXPECT_EQ(p.line(1.4), "train-smoke: build 1 s");
  EXPECT_FALSE(p.take_phase("loss.nan"));
  ASSERT_TRUE(p.last_loss);
  EXPECT_TRUE(std::isnan(*p.last_loss));
  EXPECT_EQ(p.phase, "build");  // a loss is not a phase
  EXPECT_FALSE(p.take_phase("loss.garbage"));
  EXPECT_EQ(p.losses_seen, 2);
}

TEST(TrainSmoke, ARunEndingRightAfterALossPhaseBlamesThatStepsOptimizer) {
  probe_result r;
  r.outcome = status::crash;
  r.phase = "loss.11.2";
  r.detail = "died of SIGSEGV in phase loss.11.2";
  r.data["loss"] = {12.0, 11.2};
  finish_train_smoke_result(r, qwen_request(), std::nullopt);
  EXPECT_EQ(r.phase, "step1.optimizer");
  EXPECT_EQ(r.detail.rfind("crashed in step 1 optimizer", 0), 0u) << r.detail;
}

TEST(TrainSmoke, ArgumentsCarryTheRequest) {
  train_smoke_request r = qwen_request();
  r.grad_ckpt = false;
  r.weights = "/ckpt";
  nlohmann::json a = train_smoke_args(r);
  EXPECT_EQ(a["model_type"], "qwen3_5_text");
  EXPECT_EQ(a["hf_config"]["num_hidden_layers"], 4);
  EXPECT_EQ(a["target_modules"], nlohmann::json({"in_proj_qkv", "out_proj"}));
  EXPECT_EQ(a["grad_ckpt"], false);
  EXPECT_EQ(a["weights"], "/ckpt");
  EXPECT_EQ(a["steps"], 5);
  EXPECT_DOUBLE_EQ(a["lr"].get<double>(), 1e-3);
}

// A real run, not a synthetic recording: train_smoke.py on this dev machine's CPU (device "cpu",
// seq 16, 3 steps) with torch 2.11.0, transformers 5.17.0, peft 0.21.0 and bitsandbytes 0.50.2
// (tests/fixtures/python_outputs/README.md). What transformers and PEFT really built must be
// what the registry and the estimator count: every decoder Linear quantized, the LoRA
// parameters to the element, and the whole model's parameters. (The first capture counted the
// tied embedding twice, 593 M for 339 M: the script now counts each tensor once.)
TEST(TrainSmoke, RealCpuCaptureMatchesTheRegistrysCounts) {
  probe_result r = recorded("devbox_cpu_train_smoke.stdout");
  ASSERT_EQ(r.outcome, status::pass) << r.detail;
  const std::vector<double> loss = r.data["loss"].get<std::vector<double>>();
  ASSERT_EQ(loss.size(), 3u);
  // Random init predicts every token about equally: the first loss is near ln(vocab).
  EXPECT_NEAR(loss[0], std::log(248320.0), 0.1);
  EXPECT_LT(loss[2], loss[1]);
  EXPECT_LT(loss[1], loss[0]);
  EXPECT_EQ(r.data["linear_attention_path"]["path"], "torch");
  EXPECT_EQ(r.data["lora_layer_class"], nlohmann::json({"peft.tuners.lora.bnb.Linear4bit"}));
  EXPECT_NE(r.detail.find("GiB host RSS"), std::string::npos) << r.detail;

  std::string err;
  const model_spec* full = find_model(builtin_model_registry(), "qwen3.5-0.8b");
  ASSERT_TRUE(full);
  std::optional<model_spec> m = shrink(*full, 4, 1.0, &err);
  ASSERT_TRUE(m) << err;
  size_t linears = 0;
  for (layer_kind k : m->layer_types) linears += layer_linears(*m, k).size();
  const nlohmann::json& params = r.data["params"];
  EXPECT_EQ(params["quantized_linears"].get<size_t>(), linears);
  EXPECT_EQ(params["trainable"].get<int64_t>(), lora_params(*m, 16));
  // The base (tied lm_head counted once) plus the adapters.
  EXPECT_EQ(params["total"].get<int64_t>(), count_params(*m).total() + lora_params(*m, 16));
}

}  // namespace
}  // namespace gs
