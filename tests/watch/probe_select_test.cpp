// Which probes run (named ones and their dependencies, in table order; the default suite
// without selftest.*), "did you mean" suggestions, the registry, and the progress/list text.
#include <gtest/gtest.h>

#include "probes/probe.h"
#include "watch/probe_display.h"
#include "watch/probe_runner.h"

namespace gs {
namespace {

probe_result noop(const probe_context&) { return {}; }

const probe_spec kVis{"device.visible", "lists devices", {}, true, true, noop};
const probe_spec kAdd{"tensor.add", "vector add", {"device.visible"}, true, true, noop};
const probe_spec kGemm{"gemm.bf16", "bf16 GEMM", {"tensor.add"}, true, true, noop};
const probe_spec kGemm32{"gemm.fp32", "fp32 GEMM", {"device.visible"}, true, true, noop};
const probe_spec kSelf{"selftest.hang", "hangs", {}, true, false, noop};
const std::vector<const probe_spec*> kTable = {&kVis, &kAdd, &kGemm, &kGemm32, &kSelf};

std::vector<std::string> ids(const std::vector<const probe_spec*>& v) {
  std::vector<std::string> out;
  for (auto* p : v) out.push_back(p->id);
  return out;
}

TEST(ProbeSelect, NamedProbesBringTheirDependenciesInTableOrder) {
  std::vector<std::string> unknown;
  EXPECT_EQ(ids(select_probes(kTable, {"gemm.bf16"}, &unknown)),
            (std::vector<std::string>{"device.visible", "tensor.add", "gemm.bf16"}));
  EXPECT_EQ(ids(select_probes(kTable, {"selftest.hang", "gemm.fp32", "gemm.fp32"}, &unknown)),
            (std::vector<std::string>{"device.visible", "gemm.fp32", "selftest.hang"}));
  EXPECT_TRUE(unknown.empty());
}

TEST(ProbeSelect, UnknownIdsAreReported) {
  std::vector<std::string> unknown;
  auto sel = select_probes(kTable, {"gemm.bf61", "tensor.add"}, &unknown);
  EXPECT_EQ(unknown, (std::vector<std::string>{"gemm.bf61"}));
  EXPECT_EQ(ids(sel), (std::vector<std::string>{"device.visible", "tensor.add"}));
}

TEST(ProbeSelect, DefaultSuiteLeavesSelftestsOut) {
  EXPECT_EQ(ids(default_suite(kTable)),
            (std::vector<std::string>{"device.visible", "tensor.add", "gemm.bf16", "gemm.fp32"}));
}

TEST(ProbeSelect, CloseMatches) {
  EXPECT_EQ(close_matches(kTable, "gemm.bf61").front(), "gemm.bf16");
  auto gemm = close_matches(kTable, "gemm");
  EXPECT_NE(std::find(gemm.begin(), gemm.end(), "gemm.bf16"), gemm.end());
  EXPECT_NE(std::find(gemm.begin(), gemm.end(), "gemm.fp32"), gemm.end());
  EXPECT_EQ(close_matches(kTable, "selftest.hnag").front(), "selftest.hang");
  EXPECT_TRUE(close_matches(kTable, "completely.different").empty());
}

TEST(Registry, SelftestsAreRegisteredAndOutOfTheDefaultSuite) {
  ASSERT_NE(find_probe("selftest.hang"), nullptr);
  ASSERT_NE(find_probe("selftest.crash"), nullptr);
  ASSERT_NE(find_probe("selftest.pass"), nullptr);
  EXPECT_EQ(find_probe("no.such.probe"), nullptr);
  for (const probe_spec* p : default_suite(all_probes()))
    EXPECT_FALSE(std::string_view(p->id).starts_with("selftest.")) << p->id;
  // Every dependency is in the table and comes before its dependent.
  const auto& table = all_probes();
  for (size_t i = 0; i < table.size(); ++i)
    for (const char* dep : table[i]->depends_on) {
      auto it = std::find_if(table.begin(), table.end(),
                             [&](const probe_spec* p) { return std::string_view(p->id) == dep; });
      ASSERT_NE(it, table.end()) << table[i]->id << " depends on unknown " << dep;
      EXPECT_LT(static_cast<size_t>(it - table.begin()), i) << table[i]->id << " before " << dep;
    }
  // Ids are unique.
  for (size_t i = 0; i < table.size(); ++i)
    for (size_t j = i + 1; j < table.size(); ++j)
      EXPECT_STRNE(table[i]->id, table[j]->id);
}

TEST(ProbeDisplay, Lines) {
  EXPECT_EQ(progress_live_line(2, 13, "gemm.bf16", "compile", 12.34), "[ 3/13] gemm.bf16 ... compile 12 s");
  probe_result r;
  r.id = "gemm.bf16";
  r.outcome = status::pass;
  r.duration_ms = 1234;
  r.detail = "612 TFLOP/s";
  EXPECT_EQ(progress_final_line(2, 13, r), "[ 3/13] gemm.bf16 ... pass 1.2 s");
  r.id = "selftest.hang";
  r.outcome = status::hang;
  r.phase = "launch";
  r.duration_ms = 2310;
  r.detail = "no end to phase launch";
  EXPECT_EQ(progress_final_line(0, 1, r), "[1/1] selftest.hang ... hang in launch 2.3 s: no end to phase launch");
  r.outcome = status::skip;
  r.detail = std::string(200, 'x');
  std::string line = progress_final_line(0, 1, r);
  EXPECT_EQ(line.substr(0, 28), "[1/1] selftest.hang ... skip");
  EXPECT_LT(line.size(), 160u);
}

TEST(ProbeDisplay, List) {
  std::string t = format_probe_list(kTable);
  EXPECT_NE(t.find("ID"), std::string::npos);
  EXPECT_NE(t.find("DEPENDS ON"), std::string::npos);
  EXPECT_NE(t.find("gemm.bf16"), std::string::npos);
  EXPECT_NE(t.find("tensor.add"), std::string::npos);
  EXPECT_NE(t.find("run only when named"), std::string::npos);
  // header + 5 probes + the selftest note, then the options of the probes listed (gemm.*: 3 each)
  EXPECT_EQ(std::count(t.begin(), t.end(), '\n'), 1 + 5 + 2 + 2 + 6) << t;
  EXPECT_NE(t.find("gemm.bf16.size"), std::string::npos);
  EXPECT_NE(t.find("16..16384"), std::string::npos);
  EXPECT_NE(format_probe_list({}).find("(no probes)"), std::string::npos);
}

}  // namespace
}  // namespace gs
