// Result parsing on recorded outputs (tests/fixtures/python_outputs: the h200_* files are real
// transcripts of the H200 run of 2026-12-03, the rest are synthetic; its README says which): the same outcome_from_output / to_probe_result /
// finding match / golden-vector comparison a live run goes through, checked for status, detail,
// the versions each step records, and the findings the failures name.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "probes/python_probes.h"
#include "probes/python_vectors.h"
#include "python/script_runner.h"

#include "support/files.h"
#include "support/sample_facts.h"

namespace gs {
namespace {

using gs::test::fixture_dir;



// The machines the recordings were made on, as far as their results depend on them: the GPU,
// and on the H200 the venv's interpreter.
machine_facts recorded_h200() { return test::facts_for("/opt/torch/.venv/bin/python3", /*with_gpu=*/true); }
machine_facts recorded_r9700() { return test::one_gpu("amd", "AMD Radeon AI PRO R9700", "gfx1201"); }

/// A recorded run as the probe would report it (`rc`/`sig`: how the interpreter ended).
probe_result replay(const std::string& name, const std::string& id, const machine_facts& facts, int rc = 0, int sig = 0) {
  python_probe_outcome o = outcome_from_output(gs::test::read_file(fixture_dir("python_outputs") + name + ".stdout"), gs::test::read_file(fixture_dir("python_outputs") + name + ".stderr"), rc, sig);
  probe_result r = to_probe_result(id, o);
  if (r.data.contains("golden")) {
    probe_context ctx;
    ctx.facts = &facts;
    handle_golden_vectors(ctx, r);
  }
  if (r.outcome != status::pass && r.outcome != status::skip) r.finding_ids = match_result_findings(r, facts);
  return r;
}

bool names(const probe_result& r, const std::string& id) {
  return std::find(r.finding_ids.begin(), r.finding_ids.end(), id) != r.finding_ids.end();
}

TEST(RecordedOutputs, HealthyH200StepsPassAndRecordTheirVersions) {
  struct row {
    const char* file;
    const char* id;
    const char* detail_has;
  } rows[] = {
      // Recorded before gs_protocol.device_name stopped reading CUDA's gcnArchName (which
      // torch 2.11+cu130 fills with the device name): hence "(NVIDIA H200)" for the arch.
      {"h200_torch", "py.torch", "torch 2.11.0+cu130 (CUDA 13.0) on NVIDIA H200 (NVIDIA H200)"},
      {"h200_bnb_load", "py.bnb.load", "bitsandbytes 0.50.2 loaded libbitsandbytes_cuda130.so (CUDA)"},
      {"h200_bnb_int8", "py.bnb.int8", "int32 matmul exact, Linear8bitLt max rel err 6.6e-03"},
      {"h200_hf_bnb_config", "py.transformers.bnb", "BitsAndBytesConfig(nf4, double quant, bf16) quantized 7"},
      {"h200_peft_lora", "py.peft.lora", "gradients reach every lora_B"},
      {"h200_trl_config", "py.trl.config", "trl 1.16.0 SFTConfig builds"},
      {"h200_sdpa", "py.sdpa", "torch picks cudnn"},
      {"h200_triton", "py.triton", "triton 3.6.0 compiles for cuda 90"},
  };
  for (const row& w : rows) {
    SCOPED_TRACE(w.file);
    probe_result r = replay(w.file, w.id, recorded_h200());
    EXPECT_EQ(r.outcome, status::pass) << r.detail;
    EXPECT_NE(r.detail.find(w.detail_has), std::string::npos) << r.detail;
    EXPECT_EQ(r.data["versions"]["torch"], "2.11.0+cu130");
    EXPECT_EQ(r.data["versions"]["torch_cuda"], "13.0");
    EXPECT_FALSE(r.data.contains("output_tail")) << "a pass keeps no log";
    EXPECT_TRUE(r.finding_ids.empty());
  }
  probe_result s = replay("h200_sdpa", "py.sdpa", recorded_h200());
  EXPECT_EQ(s.data["selected"], "cudnn");
  EXPECT_EQ(s.data["backends"].size(), 4u);
  EXPECT_EQ(replay("h200_triton", "py.triton", recorded_h200()).data["target"]["warp_size"], 32);
}

TEST(RecordedOutputs, TheNf4VectorsAreComparedWithGpustacksReferenceAndLeaveTheReport) {
  probe_result r = replay("h200_bnb_nf4", "py.bnb.nf4", recorded_h200());
  EXPECT_EQ(r.outcome, status::pass) << r.detail;
  EXPECT_FALSE(r.data.contains("golden")) << "the vectors themselves stay out of the report";
  EXPECT_EQ(r.data["reference_check"]["status"], "match") << r.data["reference_check"].dump(1);
  EXPECT_NE(r.detail.find("bit-exact with gpustack's reference on 1 case(s)"), std::string::npos) << r.detail;
  EXPECT_EQ(r.data["versions"]["bitsandbytes"], "0.50.2");
}

TEST(RecordedOutputs, Nf4BytesThatDifferFromTheReferenceFailTheStep) {
  std::string text = gs::test::read_file(fixture_dir("python_outputs") + "h200_bnb_nf4.stdout");
  // Flip one packed byte of the recorded bitsandbytes output (the first of the second block's
  // bytes, which holds the planted 40.0): the script's own checks would still pass.
  size_t p = text.find("\"packed_u8\":[");
  ASSERT_NE(p, std::string::npos);
  size_t q = p + 13;
  for (int i = 0; i < 32; ++i) q = text.find(',', q) + 1;
  size_t end = text.find(',', q);
  text.replace(q, end - q, text.substr(q, end - q) == "119" ? "120" : "119");
  probe_result r = to_probe_result("py.bnb.nf4", outcome_from_output(text, "", 0, 0));
  ASSERT_EQ(r.outcome, status::pass);
  machine_facts f = recorded_h200();
  probe_context ctx;
  ctx.facts = &f;
  handle_golden_vectors(ctx, r);
  EXPECT_EQ(r.outcome, status::fail) << r.detail;
  EXPECT_NE(r.detail.find("bitsandbytes disagrees with gpustack's reference"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("packed_u8"), std::string::npos) << r.detail;
  EXPECT_EQ(r.data["reference_check"]["status"], "mismatch");
}

TEST(RecordedOutputs, VectorsAreWrittenWhereVectorsDirSays) {
  std::string dir = ::testing::TempDir();
  machine_facts f = recorded_h200();
  probe_context ctx;
  ctx.facts = &f;
  ctx.options["vectors_dir"] = dir;
  probe_result r = to_probe_result("py.bnb.nf4", outcome_from_output(gs::test::read_file(fixture_dir("python_outputs") + "h200_bnb_nf4.stdout"), "", 0, 0));
  handle_golden_vectors(ctx, r);
  ASSERT_TRUE(r.data.contains("vectors_file")) << r.data.dump();
  nlohmann::json j = nlohmann::json::parse(gs::test::read_file(r.data["vectors_file"]));
  EXPECT_EQ(j["cases"][0]["kind"], "nf4");
  EXPECT_EQ(j["cases"][0]["packed_u8"].size(), 4096u);
}

TEST(RecordedOutputs, BitsandbytesCpuFallbackNamesItsFinding) {
  probe_result r = replay("r9700_bnb_cpu_fallback", "py.bnb.load", recorded_r9700());
  EXPECT_EQ(r.outcome, status::fail);
  EXPECT_TRUE(names(r, "GS-BNB-005")) << nlohmann::json(r.finding_ids).dump();
  EXPECT_EQ(r.data["versions"]["torch_hip"], "7.2.26015");
  EXPECT_NE(r.data["output_tail"].get<std::string>().find("cextension.py:127: UserWarning"), std::string::npos);
}

TEST(RecordedOutputs, TritonPipelinerCrashNamesTriton001) {
  machine_facts f = recorded_r9700();
  python_package t;
  t.name = "pytorch-triton-rocm";
  t.version = "3.6.0+rocm7.2";
  f.python.packages["pytorch-triton-rocm"] = t;
  probe_result r = replay("r9700_triton_pipeliner", "py.triton", f, 1);
  EXPECT_EQ(r.outcome, status::fail);
  EXPECT_TRUE(names(r, "GS-TRITON-001")) << nlohmann::json(r.finding_ids).dump();
  EXPECT_EQ(r.data["target"]["arch"], "gfx1201");
}

TEST(RecordedOutputs, MissingDriverNamesHost005) {
  probe_result r = replay("nodriver_torch", "py.torch", recorded_h200());
  EXPECT_EQ(r.outcome, status::fail);
  EXPECT_TRUE(names(r, "GS-HOST-005")) << nlohmann::json(r.finding_ids).dump();
}

TEST(RecordedOutputs, HipRuntimeAbortWithoutAResultStillNamesTheNoBinaryFinding) {
  probe_result r = replay("r9700_no_binary", "py.torch", recorded_r9700(), -1, 6);
  EXPECT_EQ(r.outcome, status::crash) << r.detail;
  EXPECT_EQ(r.data["signal"], "SIGABRT");
  EXPECT_TRUE(names(r, "GS-ROCM-003")) << nlohmann::json(r.finding_ids).dump() << r.data.dump();
}

TEST(RecordedOutputs, CrashAndGarbledResultsAreNotPasses) {
  probe_result c = replay("crash_midway", "py.sdpa", recorded_h200(), -1, 11);
  EXPECT_EQ(c.outcome, status::crash);
  EXPECT_NE(c.detail.find("Python died of SIGSEGV before sending a result"), std::string::npos) << c.detail;
  EXPECT_NE(c.data["output_tail"].get<std::string>().find("Fatal Python error"), std::string::npos);
  probe_result g = replay("garbled_result", "py.torch", recorded_h200(), 3);
  EXPECT_EQ(g.outcome, status::error);
  EXPECT_NE(g.detail.find("unreadable result"), std::string::npos) << g.detail;
}

TEST(RecordedOutputs, AScriptCannotClaimTheWatchdogsVerdicts) {
  for (const char* st : {"hang", "crash", "bogus"}) {
    std::string out = std::string("\n@gs result {\"status\":\"") + st + "\",\"detail\":\"x\"}\n";
    probe_result r = to_probe_result("py.torch", outcome_from_output(out, "", 0, 0));
    EXPECT_EQ(r.outcome, status::error) << st;
  }
}

TEST(RecordedOutputs, APassFollowedByADeathOnTheWayOutIsAWarn) {
  probe_result r = to_probe_result("py.torch", outcome_from_output(gs::test::read_file(fixture_dir("python_outputs") + "h200_torch.stdout"), "", -1, 11));
  EXPECT_EQ(r.outcome, status::warn);
  EXPECT_EQ(r.data["exit_signal"], "SIGSEGV");
}

}  // namespace
}  // namespace gs
