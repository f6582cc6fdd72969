// build_report and exit_code_for: every report validates against the JSON Schema (empty
// machine, AMD, NVIDIA, findings, probes incl. a hang), the summary counts what is there, the
// exit code follows GUIDE "Exit codes", and malformed input never throws.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/assets.h"
#include "report/report.h"
#include "support/sample_facts.h"
#include "support/report_schema.h"

namespace gs {
namespace {

using gs::test::amd_machine;
using gs::testing::matches_report_schema;
using gs::test::nvidia_machine;
using gs::test::sample_finding;
using gs::test::sample_probe;
using nlohmann::json;

report_options pinned(bool identifiers = false) {
  report_options o;
  o.created_utc = "2026-12-02T10:00:00Z";
  o.include_identifiers = identifiers;
  return o;
}

TEST(ReportJson, EmptyMachineValidatesAndTestedNothing) {
  machine_facts f;
  report_input in;
  in.facts = &f;
  json r = build_report(in, pinned());
  EXPECT_TRUE(matches_report_schema(r));
  EXPECT_EQ(r["schema_version"], 1);
  EXPECT_EQ(r["tool"]["name"], "gpustack");
  EXPECT_EQ(r["tool"]["command"], "check");
  // No GPU: `check` tested no GPU stack, so it must not say PASS.
  EXPECT_EQ(r["summary"]["status"], "untested");
  EXPECT_EQ(r["summary"]["text"], "untested: nothing was tested (no GPU found); 0 failures, 0 warnings, 0 notes");
  EXPECT_EQ(exit_code_for(r), exit_ok);
}

TEST(ReportJson, PassMeansSomethingRanOnAGpu) {
  machine_facts none;
  machine_facts gpu = gs::test::amd_machine();
  probe_result cpu_ref = sample_probe("tensor.vector_add", status::pass);
  cpu_ref.data["device"] = {{"arch", "cpu"}, {"backend", "cpu"}};
  struct row {
    const machine_facts* facts;
    std::string command;
    std::vector<probe_result> probes;
    const char* status;
    const char* why;
  };
  const row rows[] = {
      {&none, "probe", {sample_probe("device.visible", status::skip), sample_probe("tensor.reduce", status::skip)}, "untested",
       "nothing was tested (no GPU found; every step was skipped)"},
      {&gpu, "probe", {sample_probe("py.torch", status::skip)}, "untested", "nothing was tested (every step was skipped)"},
      {&gpu, "probe", {cpu_ref, sample_probe("fla.verdict", status::pass)}, "untested",
       "nothing was tested (only gpustack's CPU references ran)"},
      {&none, "probe fla", {cpu_ref}, "untested", "nothing was tested (no GPU found; only gpustack's CPU references ran)"},
      {&gpu, "probe", {cpu_ref, sample_probe("gemm.bf16", status::pass)}, "pass", ""},
      {&gpu, "check", {}, "pass", ""},
      {&none, "explain", {}, "pass", ""},  // explain decides "unknown" itself (explain_report)
  };
  for (const row& x : rows) {
    report_input in;
    in.facts = x.facts;
    in.probes = x.probes;
    report_options o = pinned();
    o.command = x.command;
    json r = build_report(in, o);
    std::string text = r["summary"]["text"];
    EXPECT_EQ(r["summary"]["status"], x.status) << x.command << ": " << text;
    if (*x.why) {
      EXPECT_NE(text.find(x.why), std::string::npos) << text;
    }
    EXPECT_TRUE(matches_report_schema(r)) << text;
  }
}

TEST(ReportJson, NullFactsIsAnEmptyMachine) {
  json r = build_report(report_input{}, pinned());
  EXPECT_TRUE(matches_report_schema(r));
  EXPECT_TRUE(r["gpus"].empty());
}

TEST(ReportJson, AmdMachineWithFindingsValidates) {
  machine_facts f = amd_machine();
  report_input in;
  in.facts = &f;
  in.findings = {sample_finding("GS-ENV-001", severity::fail), sample_finding("GS-ENV-004", severity::warn),
                 sample_finding("GS-PKG-002", severity::info)};
  json r = build_report(in, pinned());
  EXPECT_TRUE(matches_report_schema(r));
  ASSERT_EQ(r["gpus"].size(), 1u);
  const json& g = r["gpus"][0];
  EXPECT_EQ(g["arch"], "gfx1201");
  EXPECT_EQ(g["wave_size"], 32);
  EXPECT_EQ(g["vram_bytes"], 32ull << 30);
  EXPECT_EQ(g["gfx_target_version"], 120001);
  EXPECT_EQ(r["stack"]["rocm"]["version"], "7.2.0");
  EXPECT_EQ(r["stack"]["torch"]["version"], "2.11.0+rocm7.2");
  EXPECT_EQ(r["stack"]["torch"]["hip"], "7.2.26015");
  EXPECT_EQ(r["stack"]["python"]["packages"]["flash-linear-attention"], "0.5.0");
  EXPECT_TRUE(r["stack"]["compiler"].contains("comgr"));
  EXPECT_EQ(r["env"]["HSA_OVERRIDE_GFX_VERSION"], "11.0.0");
  EXPECT_EQ(r["access"][0]["error"], "EACCES");
  EXPECT_EQ(r["issues"].size(), 1u);
  EXPECT_EQ(r["findings"][0]["rule_source"], "matrix/rules/env.toml:12");
  EXPECT_EQ(r["summary"]["status"], "fail");
  EXPECT_EQ(r["summary"]["findings"]["fail"], 1);
  EXPECT_EQ(r["summary"]["findings"]["warn"], 1);
  EXPECT_EQ(r["summary"]["findings"]["info"], 1);
  EXPECT_NE(r["summary"]["text"].get<std::string>().find("1 failure"), std::string::npos);
  EXPECT_EQ(exit_code_for(r), exit_failed);
}

TEST(ReportJson, NvidiaMachineWithHungProbeValidates) {
  machine_facts f = nvidia_machine();
  report_input in;
  in.facts = &f;
  in.probes = {sample_probe("gemm.bf16", status::pass, "max rel err 3.1e-3"),
               sample_probe("fla.chunk_gated_delta", status::hang, "no progress for 30 s"),
               sample_probe("bnb.nf4", status::skip, "bitsandbytes not installed")};
  in.probes[1].kernel_log = {"NVRM: Xid (PCI:0000:18:00): 79, GPU has fallen off the bus."};
  in.probes[1].finding_ids = {"GS-TRITON-001"};
  json r = build_report(in, pinned());
  EXPECT_TRUE(matches_report_schema(r));
  EXPECT_EQ(r["gpus"][0]["arch"], "sm_90");
  EXPECT_EQ(r["stack"]["driver"]["nvidia"]["version"], "580.159.04");
  EXPECT_EQ(r["stack"]["torch"]["cuda"], "13.0");
  EXPECT_TRUE(r["stack"]["compiler"].contains("nvrtc"));
  EXPECT_TRUE(r["host"]["container"]["detected"]);
  EXPECT_EQ(r["probes"][1]["status"], "hang");
  EXPECT_EQ(r["probes"][1]["phase"], "launch");
  EXPECT_EQ(r["probes"][0]["data"]["tflops"], 612.0);
  EXPECT_EQ(r["summary"]["status"], "hang");
  EXPECT_EQ(r["summary"]["probes"]["hang"], 1);
  EXPECT_EQ(r["summary"]["probes"]["skip"], 1);
  EXPECT_EQ(exit_code_for(r), exit_hang);
  // A four-part package version is a version, not an IP address.
  EXPECT_EQ(r["stack"]["python"]["packages"]["nvidia-cudnn-cu12"], "9.1.0.70");
}

TEST(ReportJson, NonObjectProbeDataIsWrapped) {
  report_input in;
  probe_result p = sample_probe("x.y", status::pass);
  p.data = json::array({1, 2});
  in.probes = {p};
  json r = build_report(in, pinned());
  EXPECT_TRUE(matches_report_schema(r));
  EXPECT_EQ(r["probes"][0]["data"]["value"], json::array({1, 2}));
}

TEST(ReportJson, InvalidUtf8BecomesReplacementCharacters) {
  machine_facts f;
  f.python.found = true;
  f.python.packages["odd"] = {"odd", "1.0\xff\xfe", "/x", "pip", false};
  f.issues.push_back({"/proc/cpuinfo", std::string("bad \xc3\x28 byte")});
  report_input in;
  in.facts = &f;
  json r = build_report(in, pinned());
  EXPECT_NO_THROW((void)r.dump());
  EXPECT_TRUE(matches_report_schema(r));
  EXPECT_EQ(r["stack"]["python"]["packages"]["odd"], "1.0\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(ReportJson, HostHasNoIdentityUnlessAsked) {
  machine_facts f = amd_machine();
  report_input in;
  in.facts = &f;
  json r = build_report(in, pinned());
  EXPECT_FALSE(r["host"].contains("identity"));
  EXPECT_EQ(r["redaction"]["identifiers"], "redacted");
  EXPECT_EQ(r.dump().find("gpu-box-01"), std::string::npos);
  json with = build_report(in, pinned(true));
  EXPECT_TRUE(matches_report_schema(with));
  EXPECT_EQ(with["host"]["identity"]["hostname"], "gpu-box-01");
  EXPECT_EQ(with["redaction"]["identifiers"], "included");
}

TEST(ReportJson, CreatedUtcDefaultsToNow) {
  json r = build_report(report_input{}, report_options{});
  EXPECT_TRUE(matches_report_schema(r));
  EXPECT_EQ(r["created_utc"].get<std::string>().substr(0, 2), "20");
}

TEST(ReportJson, SchemaRejectsBrokenReports) {
  // The validator itself must be able to say no, or every test above proves nothing.
  json r = build_report(report_input{}, pinned());
  json missing = r;
  missing.erase("summary");
  EXPECT_FALSE(matches_report_schema(missing));
  json bad_status = r;
  bad_status["summary"]["status"] = "ok";
  EXPECT_FALSE(matches_report_schema(bad_status));
  json extra = r;
  extra["hostname"] = "gpu-box-01";
  EXPECT_FALSE(matches_report_schema(extra));
}

TEST(ReportJson, SchemaIsEmbeddedAsOnDisk) {
  // The binary carries its schema (a saved report can be checked without the sources).
  auto embedded = find_asset("reports/schema/report.schema.json");
  ASSERT_TRUE(embedded.has_value());
  std::ifstream f(GPUSTACK_SCHEMA, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(std::string(*embedded), ss.str());
  json schema = json::parse(*embedded);
  EXPECT_EQ(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
}

struct exit_case {
  std::vector<severity> findings;
  std::vector<status> probes;
  int expected;
  const char* status_text;
};

TEST(ReportJson, ExitCodesAndSummaryStatus) {
  const exit_case cases[] = {
      {{}, {}, exit_ok, "pass"},
      {{severity::info}, {}, exit_ok, "pass"},
      {{severity::warn}, {status::pass}, exit_ok, "warn"},
      {{}, {status::warn}, exit_ok, "warn"},
      {{}, {status::skip, status::pass}, exit_ok, "pass"},
      {{severity::fail}, {}, exit_failed, "fail"},
      {{}, {status::fail}, exit_failed, "fail"},
      {{}, {status::crash}, exit_failed, "fail"},
      {{}, {status::error}, exit_failed, "fail"},
      {{severity::fail}, {status::hang}, exit_hang, "hang"},
      {{}, {status::pass, status::hang, status::crash}, exit_hang, "hang"},
  };
  machine_facts gpu = gs::test::amd_machine();  // with no GPU the empty rows are "untested" (above)
  for (const exit_case& c : cases) {
    report_input in;
    in.facts = &gpu;
    for (severity s : c.findings) in.findings.push_back(sample_finding("GS-ENV-001", s));
    for (status s : c.probes) in.probes.push_back(sample_probe("p.q", s));
    json r = build_report(in, pinned());
    EXPECT_EQ(exit_code_for(r), c.expected) << r["summary"]["text"];
    EXPECT_EQ(r["summary"]["status"], c.status_text) << r["summary"]["text"];
    // The verdict line survives redaction ("pass: 0 failures" once lost its 0 to a PASS rule).
    EXPECT_EQ(r["summary"]["text"].get<std::string>().find("<redacted>"), std::string::npos) << r["summary"]["text"];
  }
}

TEST(ReportJson, ExitCodeToleratesMalformedReports) {
  EXPECT_EQ(exit_code_for(json()), exit_ok);
  EXPECT_EQ(exit_code_for(json::array()), exit_ok);
  EXPECT_EQ(exit_code_for(json{{"probes", 3}, {"findings", "x"}}), exit_ok);
  EXPECT_EQ(exit_code_for(json{{"probes", json::array({1, json{{"status", 2}}, json{{"status", "hang"}}})}}), exit_hang);
  EXPECT_EQ(exit_code_for(json{{"findings", json::array({json{{"severity", "fail"}}})}}), exit_failed);
  EXPECT_EQ(exit_code_for(json{{"probes", json::array({json{{"status", "nonsense"}}})}}), exit_ok);
}

}  // namespace
}  // namespace gs
