// The embedded kernel sources keep the rules of research/aesthetics.md (b)1-2: they include
// gs_device.h first and nothing but the embedded kernels/*.h device headers (gs_mma.h,
// gs_async.h, layouts shared with the host), never spell a warp width, and every extern "C" kernel has a CPU
// implementation in the cpu backend (and every CPU implementation a kernel).
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "core/assets.h"
#include "kernels/ref/gemm_ref.h"
#include "runtime/runtime_cpu.h"

namespace {

std::vector<gs::asset> kernel_sources() {
  std::vector<gs::asset> out;
  for (const gs::asset& a : gs::assets_under("kernels/")) {
    std::string_view p = a.path;
    if (p.ends_with(".cu") && p.find('/', 8) == std::string_view::npos) out.push_back(a);
  }
  return out;
}

TEST(KernelSources, AreEmbedded) {
  std::set<std::string> names;
  for (const gs::asset& a : kernel_sources()) names.insert(a.path);
  for (const char* want : {"kernels/vector_add.cu", "kernels/reduce_sum.cu", "kernels/copy_bandwidth.cu", "kernels/gemm.cu"})
    EXPECT_TRUE(names.count(want)) << want;
  EXPECT_TRUE(gs::find_asset("kernels/gs_device.h").has_value());
}

// The code part of each line (after stripping a // comment), numbered from 1.
std::vector<std::string> code_lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    std::string line(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    lines.push_back(line.substr(0, line.find("//")));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return lines;
}

TEST(KernelSources, IncludeTheDevicePreludeFirstAndOnlyEmbeddedDeviceHeaders) {
  std::regex include(R"re(^\s*#\s*include\s*"([^"]*)"\s*$)re"), any_include(R"re(^\s*#\s*include\b.*)re");
  for (const gs::asset& a : kernel_sources()) {
    std::vector<std::string> names;
    for (const std::string& line : code_lines(a.text)) {
      if (!std::regex_match(line, any_include)) continue;
      std::smatch m;
      ASSERT_TRUE(std::regex_match(line, m, include)) << a.path << ": " << line << " (only \"name.h\" headers)";
      names.push_back(m[1].str());
    }
    ASSERT_FALSE(names.empty()) << a.path;
    EXPECT_EQ(names.front(), "gs_device.h") << a.path;
    // The JIT has no include path: every header must be one it passes from the embedded assets.
    for (const std::string& n : names)
      EXPECT_TRUE(n.find('/') == std::string::npos && gs::find_asset("kernels/" + n).has_value()) << a.path << ": " << n;
  }
}

TEST(KernelSources, NeverSpellAWarpWidth) {
  // A literal 32 or 64 in code about lanes, warps or shuffles is a hard-coded wave size.
  std::regex about_waves(R"((shfl|lane|warp|wave))", std::regex::icase);
  std::regex width(R"(\b(32|64)\b)");
  for (const gs::asset& a : kernel_sources()) {
    std::vector<std::string> lines = code_lines(a.text);
    for (size_t i = 0; i < lines.size(); ++i)
      if (std::regex_search(lines[i], about_waves) && std::regex_search(lines[i], width))
        ADD_FAILURE() << a.path << ":" << i + 1 << ": " << lines[i];
  }
  EXPECT_NE(gs::find_asset("kernels/reduce_sum.cu")->find("GS_WARP_SIZE"), std::string_view::npos);
}

TEST(KernelSources, EveryKernelHasACpuImplementationAndBack) {
  std::regex kernel(R"(GS_KERNEL\s+void\s+(?:(?:__launch_bounds__|GS_AMD_LAUNCH_BOUNDS)\([^)]*\)\s+)?(\w+)\s*\()");
  std::set<std::pair<std::string, std::string>> in_sources, in_table;
  for (const gs::asset& a : kernel_sources()) {
    std::string text(a.text), file = std::string(a.path).substr(8);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), kernel); it != std::sregex_iterator(); ++it)
      in_sources.insert({file, (*it)[1].str()});
  }
  for (const gs::cpu_kernel& k : gs::cpu_kernels()) in_table.insert({k.file, k.name});
  EXPECT_EQ(in_sources, in_table);
  EXPECT_GE(in_sources.size(), 10u);
}

// The number a kernel source #defines `name` to, or -1.
int numeric_define(const std::string& text, const char* name) {
  std::smatch m;
  std::regex def(std::string(R"(#define\s+)") + name + R"(\s+(\d+))");
  return std::regex_search(text, m, def) ? std::stoi(m[1].str()) : -1;
}

TEST(KernelSources, GemmTileDefaultsMatchTheHostTiling) {
  std::string text(*gs::find_asset("kernels/gemm.cu"));
  auto value = [&](const char* name) { return numeric_define(text, name); };
  const gs::gemm_tiling& t = gs::gemm_v2_tiling;
  EXPECT_EQ(value("GS_GEMM_BM"), t.bm);
  EXPECT_EQ(value("GS_GEMM_BN"), t.bn);
  EXPECT_EQ(value("GS_GEMM_BK"), t.bk);
  EXPECT_EQ(value("GS_GEMM_TM"), t.tm);
  EXPECT_EQ(value("GS_GEMM_TN"), t.tn);
}

TEST(KernelSources, GemmMmaTileMatchesTheHostTiling) {
  std::string text(*gs::find_asset("kernels/gemm_mma.cu"));
  auto value = [&](const char* name) { return numeric_define(text, name); };
  const gs::gemm_mma_tiling& t = gs::gemm_mma_tile;
  EXPECT_EQ(value("GS_MMA_BM"), t.bm);
  EXPECT_EQ(value("GS_MMA_BN"), t.bn);
  EXPECT_EQ(value("GS_MMA_BK"), t.bk);
  EXPECT_EQ(value("GS_MMA_THREADS"), t.threads);
}

}  // namespace
