// Renderers: the terminal table fits one screen, has no ANSI codes without colour, puts the
// worst findings first with their fix; the Markdown carries the exact report JSON in a
// <details> block and escapes "<user>"-style placeholders so GitHub does not eat them.
#include <gtest/gtest.h>

#include <sstream>

#include "report/report.h"
#include "support/sample_facts.h"

namespace gs {
namespace {

using nlohmann::json;

json typical_report() {
  static machine_facts f = gs::test::amd_machine();
  report_input in;
  in.facts = &f;
  in.findings = {gs::test::sample_finding("GS-PKG-002", severity::info),
                 gs::test::sample_finding("GS-ENV-001", severity::fail),
                 gs::test::sample_finding("GS-ALLOC-001", severity::warn),
                 gs::test::sample_finding("GS-TRITON-001", severity::warn)};
  in.findings[0].title = "bitsandbytes 0.48.0 has ROCm wheels";
  in.probes = {gs::test::sample_probe("device.open", status::pass, "hipInit ok"),
               gs::test::sample_probe("gemm.bf16", status::pass, "max rel err 3.1e-3 < 1e-2; 81 TFLOP/s"),
               gs::test::sample_probe("fla.chunk_gated_delta", status::hang, "no progress for 30 s")};
  report_options o;
  o.created_utc = "2026-12-02T10:00:00Z";
  return build_report(in, o);
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(RenderHuman, FitsOneScreenWithoutColour) {
  std::string t = render_human(typical_report(), false, 100);
  EXPECT_EQ(t.find('\x1b'), std::string::npos);
  auto lines = lines_of(t);
  EXPECT_LE(lines.size(), 40u) << t;
  EXPECT_GE(lines.size(), 12u) << t;
  for (const std::string& l : lines) {
    if (l.find("fix:  ") == std::string::npos) {  // a fix's command is never folded
      EXPECT_LE(l.size(), 100u) << l;
    }
  }
}

TEST(RenderHuman, WrapsAtTheTerminalWidthAndNeverCutsAFix) {
  nlohmann::json r = typical_report();
  const std::string fix = "gpustack fix triton-stages --max 1  # caps num_stages of every Triton launch in this Python "
                          "environment through a .pth hook that gpustack writes and removes with --remove";
  r["findings"][0]["remediation"] = fix;
  r["findings"][0]["evidence"] = std::string(300, 'e').replace(100, 1, " ").replace(200, 1, " ");
  for (size_t width : {80u, 120u, 200u}) {
    std::string t = render_human(r, false, width);
    EXPECT_EQ(t.find("..."), std::string::npos) << "nothing is cut at " << width << ":\n" << t;
    EXPECT_NE(t.find("fix:  gpustack fix triton-stages --max 1"), std::string::npos) << width << ":\n" << t;
    for (const std::string& l : lines_of(t)) {
      if (l.find("fix:  ") == std::string::npos && l.find("eeeeeeeeee") == std::string::npos) {
        EXPECT_LE(l.size(), width) << l;
      }
    }
    // Every word of the comment is there, folded under the fix where it does not fit.
    EXPECT_NE(t.find("--remove"), std::string::npos) << t;
  }
  // A pipe or a file: whole lines, the fix with its comment on one line.
  std::string whole = render_human(r, false, 0);
  EXPECT_NE(whole.find("fix:  " + fix + "\n"), std::string::npos) << whole;
  EXPECT_NE(whole.find(std::string(r["findings"][0]["evidence"])), std::string::npos);
}

TEST(RenderHuman, AVerdictIsNeverCollapsedWithThePasses) {
  report_input in;
  for (int i = 0; i < 20; ++i) in.probes.push_back(gs::test::sample_probe(("fla.native.stages" + std::to_string(i)).c_str(), status::pass));
  in.probes.push_back(gs::test::sample_probe("fla.verdict", status::pass, "native: every stage passed (1..20)"));
  std::string t = render_human(build_report(in, report_options{}), false, 0);
  EXPECT_NE(t.find("... and 20 more passed"), std::string::npos) << t;
  EXPECT_NE(t.find("native: every stage passed (1..20)"), std::string::npos) << t;
}

TEST(RenderHuman, HasTheParts) {
  std::string t = render_human(typical_report(), false);
  EXPECT_EQ(t.rfind("gpustack " GPUSTACK_VERSION " | Ubuntu 24.04.1 LTS | kernel 6.8.0-49-generic", 0), 0u) << t;
  EXPECT_NE(t.find("gfx1201"), std::string::npos);
  EXPECT_NE(t.find("Radeon AI PRO R9700"), std::string::npos);
  EXPECT_NE(t.find("32.0"), std::string::npos);  // VRAM GiB
  EXPECT_NE(t.find("torch         2.11.0+rocm7.2 (HIP 7.2.26015)"), std::string::npos) << t;
  EXPECT_NE(t.find("flash-linear-attention 0.5.0"), std::string::npos);
  EXPECT_NE(t.find("trl 0.24.0"), std::string::npos);
  EXPECT_EQ(t.find("causal-conv1d"), std::string::npos);  // only what is present
  EXPECT_NE(t.find("/dev/kfd EACCES (group render, not a member)"), std::string::npos) << t;
  EXPECT_NE(t.find("fix:  unset HSA_OVERRIDE_GFX_VERSION"), std::string::npos);
  // Worst first: FAIL, then the WARNs, then INFO, whatever order they came in.
  size_t fail = t.find("[FAIL] GS-ENV-001"), warn = t.find("[WARN] GS-ALLOC-001"),
         warn2 = t.find("[WARN] GS-TRITON-001"), info = t.find("[INFO] GS-PKG-002");
  ASSERT_NE(fail, std::string::npos) << t;
  ASSERT_NE(info, std::string::npos) << t;
  EXPECT_LT(fail, warn);
  EXPECT_LT(warn, warn2);
  EXPECT_LT(warn2, info);
  EXPECT_NE(t.find("fla.chunk_gated_delta"), std::string::npos);
  EXPECT_NE(t.find("[phase launch]"), std::string::npos);
  EXPECT_NE(t.find("Summary HANG"), std::string::npos) << t;
  EXPECT_NE(t.find("1 detection note"), std::string::npos);
  // Redacted report in, redacted table out.
  EXPECT_EQ(t.find("alice"), std::string::npos);
  EXPECT_NE(t.find("/home/<user>/.venv/bin/python"), std::string::npos);
}

TEST(RenderHuman, ColourOnlyWhenAsked) {
  std::string t = render_human(typical_report(), true);
  EXPECT_NE(t.find("\x1b[1;31m[FAIL]\x1b[0m"), std::string::npos);
  EXPECT_NE(t.find("\x1b[33m[WARN]\x1b[0m"), std::string::npos);
  EXPECT_NE(t.find("\x1b[36m[INFO]\x1b[0m"), std::string::npos);
}

TEST(RenderHuman, ManyFindingsAndProbesStayOnOneScreen) {
  report_input in;
  for (int i = 0; i < 30; ++i) in.findings.push_back(gs::test::sample_finding("GS-ENV-001", severity::warn));
  for (int i = 0; i < 40; ++i) in.probes.push_back(gs::test::sample_probe("p.q", i == 7 ? status::fail : status::pass));
  std::string t = render_human(build_report(in, report_options{}), false);
  EXPECT_LE(lines_of(t).size(), 60u) << t;
  EXPECT_NE(t.find("... 18 more"), std::string::npos) << t;
  EXPECT_NE(t.find("... and 39 more passed"), std::string::npos) << t;
  EXPECT_NE(t.find("fail "), std::string::npos);
}

TEST(RenderHuman, EmptyAndMalformedReportsRender) {
  std::string e = render_human(build_report(report_input{}, report_options{}), false);
  EXPECT_NE(e.find("GPUs  none found"), std::string::npos) << e;
  EXPECT_NE(e.find("Findings  none"), std::string::npos);
  EXPECT_NE(e.find("Python        not found"), std::string::npos) << e;
  EXPECT_NE(e.find("Summary UNTESTED  nothing was tested (no GPU found)"), std::string::npos) << e;
  for (const json& bad : {json(), json::array({1, 2}), json{{"gpus", 3}, {"stack", "x"}},
                          json{{"findings", json::array({1, json{{"severity", 5}}})}, {"probes", json::array({"x"})}}}) {
    std::string t;
    EXPECT_NO_THROW(t = render_human(bad, false)) << bad;
    EXPECT_NE(t.find("Summary"), std::string::npos);
    EXPECT_NO_THROW(t = render_markdown(bad)) << bad;
  }
}

/// The text between the opening ```json fence and the closing fence.
std::string json_block(const std::string& md) {
  size_t open = md.find("```json\n");
  if (open == std::string::npos) return "";
  size_t start = open + 8;
  size_t close = md.find("\n```", start);
  return close == std::string::npos ? "" : md.substr(start, close - start);
}

TEST(RenderMarkdown, DetailsBlockHoldsTheExactReport) {
  json r = typical_report();
  std::string md = render_markdown(r);
  EXPECT_EQ(md.rfind("### gpustack check: HANG on 1x Radeon AI PRO R9700 (gfx1201), Ubuntu 24.04.1 LTS", 0), 0u) << md;
  size_t details = md.find("<details><summary>gpustack report (JSON)</summary>");
  ASSERT_NE(details, std::string::npos);
  EXPECT_NE(md.find("</details>", details), std::string::npos);
  json back = json::parse(json_block(md));
  EXPECT_EQ(back, r);
}

TEST(RenderMarkdown, TablesFindingsProbesAndEscaping) {
  std::string md = render_markdown(typical_report());
  EXPECT_NE(md.find("| GPU 0 | `Radeon AI PRO R9700` gfx1201, 32.0 GiB, wave32, 1002:7551 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| ROCm | `7.2.0` |"), std::string::npos);
  EXPECT_NE(md.find("| torch | `2.11.0+rocm7.2` (HIP 7.2.26015) |"), std::string::npos) << md;
  EXPECT_NE(md.find("- **FAIL** `GS-ENV-001`"), std::string::npos);
  EXPECT_NE(md.find("  - fix: unset HSA\\_OVERRIDE\\_GFX\\_VERSION"), std::string::npos) << md;
  EXPECT_NE(md.find("| `fla.chunk_gated_delta` | **hang** | 12.5 ms |"), std::string::npos) << md;
  EXPECT_LT(md.find("**FAIL**"), md.find("**INFO**"));
}

TEST(RenderMarkdown, PlaceholdersAndPipesAreEscaped) {
  machine_facts f;
  f.host.os_pretty = "Distro | with <pipes>";
  report_input in;
  in.facts = &f;
  finding x = gs::test::sample_finding("GS-ENV-001", severity::warn);
  x.evidence = "python at /home/bob/.venv (a|b) `tick`";
  in.findings = {x};
  probe_result p = gs::test::sample_probe("odd|id", status::fail, "x | y");
  in.probes = {p};
  json r = build_report(in, report_options{});
  std::string md = render_markdown(r);
  EXPECT_NE(md.find("/home/\\<user\\>/.venv (a\\|b) \\`tick\\`"), std::string::npos) << md;
  EXPECT_NE(md.find("| `odd\\|id` | **fail** |"), std::string::npos) << md;
  EXPECT_NE(md.find("Distro \\| with \\<pipes\\>"), std::string::npos) << md;
  EXPECT_EQ(json::parse(json_block(md)), r);
}

TEST(RenderMarkdown, AProbeRowCarriesTheCardWhileItRan) {
  // data.card as the sampler leaves it (watch/card_sampler.h): clocks and power beside the figure.
  probe_result p = gs::test::sample_probe("memory.bandwidth", status::pass, "4210 GB/s");
  p.data = {{"card",
             {{"source", "nvml 0000:00:06.0"},
              {"samples", 12},
              {"clock_sm_mhz", {{"min", 1755}, {"max", 1980}, {"mean", 1962}}},
              {"power_w", {{"min", 412}, {"max", 688}, {"mean", 601}}}}}};
  report_input in;
  in.probes = {p, gs::test::sample_probe("device.open", status::pass, "ok")};
  std::string md = render_markdown(build_report(in, report_options{}));
  EXPECT_NE(md.find("4210 GB/s \\[card: SM 1755-1980 MHz (mean 1962), 412-688 W (mean 601)\\] |"), std::string::npos) << md;
  EXPECT_NE(md.find("| ok |"), std::string::npos) << "no card, no bracket";
}

TEST(RenderMarkdown, FenceOutgrowsBackticksInTheJson) {
  report_input in;
  in.probes = {gs::test::sample_probe("p.q", status::pass, "````` five")};
  json r = build_report(in, report_options{});
  std::string md = render_markdown(r);
  EXPECT_NE(md.find("``````json\n"), std::string::npos);
  size_t start = md.find("``````json\n") + 11;
  size_t end = md.find("\n``````\n", start);
  ASSERT_NE(end, std::string::npos);
  EXPECT_EQ(json::parse(md.substr(start, end - start)), r);
}

}  // namespace
}  // namespace gs
