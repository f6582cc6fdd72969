// AMD offload bundles around real comgr-built code objects (gfx90a, gfx1030): the bundle as
// Debian's clang-offload-bundler-14 writes it, the same bundle compressed (CCOB v1/v2/v3 with
// zlib and zstd), several back to back in a host object's .hip_fatbin, and bare code objects.
#include <gtest/gtest.h>

#include <set>

#include "inspect/code_judge.h"
#include "inspect/comgr_isa.h"
#include "inspect/library_scan.h"
#include "support/inspect_data.h"

namespace gs {
namespace {

#define NEED_AMD()                                        \
  do {                                                    \
    std::string why;                                      \
    if (!test::amd_built(&why)) GTEST_SKIP() << why;      \
  } while (0)

const test::amd_objects& amd() { return *test::amd_built(); }

/// Host entry first, then gfx90a and gfx1030 in either order (clang sorts its targets).
void expect_two_targets(const offload_bundle& b, bool isa_read = true) {
  EXPECT_EQ(b.error, "");
  ASSERT_EQ(b.entries.size(), 3u);
  EXPECT_EQ(b.entries[0].kind, "host");
  EXPECT_EQ(b.entries[0].target, "");
  std::set<std::string> targets{b.entries[1].target, b.entries[2].target};
  EXPECT_EQ(targets, (std::set<std::string>{"gfx90a", "gfx1030"}));
  if (isa_read) {
    for (int i : {1, 2}) {
      EXPECT_EQ(b.entries[i].elf_isa, b.entries[i].target) << b.entries[i].error;
    }
  }
}

const code_object_entry& entry(const offload_bundle& b, const std::string& target) {
  for (const code_object_entry& e : b.entries)
    if (e.target == target) return e;
  return b.entries.at(0);
}

TEST(InspectAmd, PlainBundleFromTheBundler) {
  NEED_AMD();
  SCOPED_TRACE(amd().bundler_used ? "clang-offload-bundler" : "bundle written by the test");
  library_scan s = scan_library_bytes(amd().bundle);
  EXPECT_EQ(s.format, "offload-bundle");
  ASSERT_EQ(s.bundles.size(), 1u);
  expect_two_targets(s.bundles[0]);
  EXPECT_EQ(entry(s.bundles[0], "gfx90a").size, amd().gfx90a.size());
  EXPECT_EQ(s.bundles[0].size, amd().bundle.size()) << "the bundle ends with its last code object";
}

TEST(InspectAmd, CompressedBundlesEveryVersionAndMethod) {
  NEED_AMD();
  for (int version : {1, 2, 3})
    for (int method : {0, 1}) {
      SCOPED_TRACE("CCOB v" + std::to_string(version) + (method ? " zstd" : " zlib"));
      std::string ccob = test::make_ccob(amd().bundle, version, method);
      library_scan s = scan_library_bytes(ccob);
      EXPECT_EQ(s.format, "ccob");
      ASSERT_EQ(s.bundles.size(), 1u);
      const offload_bundle& b = s.bundles[0];
      EXPECT_TRUE(b.compressed);
      EXPECT_EQ(b.ccob_version, version);
      EXPECT_EQ(b.method, method ? "zstd" : "zlib");
      EXPECT_EQ(b.uncompressed_size, amd().bundle.size());
      EXPECT_EQ(b.size, ccob.size());
      // Prefix mode decompresses 64 KiB: the 4 KiB-aligned first code object's header is in it.
      expect_two_targets(b, false);
      EXPECT_EQ(entry(b, "gfx90a").elf_isa, "gfx90a");
      scan_options deep;
      deep.deep = true;
      library_scan d = scan_library_bytes(ccob, deep);
      ASSERT_EQ(d.bundles.size(), 1u);
      expect_two_targets(d.bundles[0]);
    }
}

TEST(InspectAmd, HostObjectWithBundlesBackToBack) {
  NEED_AMD();
  // Plain, zstd v3 and zlib v2 in one section, 8-byte aligned as the linker lays them out.
  std::string section = amd().bundle;
  section.resize((section.size() + 7) / 8 * 8, '\0');
  section += test::make_ccob(amd().bundle, 3, 1);
  section.resize((section.size() + 7) / 8 * 8, '\0');
  section += test::make_ccob(amd().bundle, 2, 0);
  auto obj = test::host_object_with_section(".hip_fatbin", section, "three_bundles");
  if (!obj) GTEST_SKIP() << "no c++/objcopy to build a host object";
  library_scan s = scan_library_file(*obj);
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(s.format, "elf");
  EXPECT_EQ(s.sections, std::vector<std::string>{".hip_fatbin"});
  ASSERT_EQ(s.bundles.size(), 3u);
  EXPECT_FALSE(s.bundles[0].compressed);
  EXPECT_EQ(s.bundles[1].method, "zstd");
  EXPECT_EQ(s.bundles[2].method, "zlib");
  for (const offload_bundle& b : s.bundles) expect_two_targets(b, false);
  device_code_library lib = summarize_scan(s, "test");
  ASSERT_EQ(lib.units.size(), 1u) << "three bundles, one target set";
  EXPECT_EQ(lib.units[0].count, 3);
  EXPECT_EQ(judge_library(lib, parse_gpu_target("gfx90a")).verdict, code_verdict::runs);
  EXPECT_EQ(judge_library(lib, parse_gpu_target("gfx1030")).verdict, code_verdict::runs);
  EXPECT_EQ(judge_library(lib, parse_gpu_target("gfx1201")).verdict, code_verdict::none);
  EXPECT_EQ(judge_library(lib, parse_gpu_target("sm_90")).verdict, code_verdict::none);
}

TEST(InspectAmd, ClangHipHostObject) {
  std::string why;
  auto obj = test::clang_hip_object(&why);
  if (!obj) GTEST_SKIP() << why;
  library_scan s = scan_library_file(*obj);
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(s.sections, std::vector<std::string>{".hip_fatbin"});
  ASSERT_EQ(s.bundles.size(), 1u);
  expect_two_targets(s.bundles[0]);
  EXPECT_EQ(s.bundles[0].entries[1].kind, "hipv4");
  // Cross-check with objcopy: the section's bytes alone give the same bundle.
  std::string raw = test::scratch_dir() + "/khip.hipfb";
  ASSERT_TRUE(test::run("objcopy -O binary --only-section=.hip_fatbin " + *obj + " " + raw));
  library_scan r = scan_library_bytes(test::read_file(raw));
  ASSERT_EQ(r.bundles.size(), 1u);
  EXPECT_EQ(r.bundles[0].entries.size(), 3u);
  EXPECT_EQ(r.bundles[0].entries[2].size, s.bundles[0].entries[2].size);
}

TEST(InspectAmd, BareCodeObjectsAndComgrNames) {
  NEED_AMD();
  library_scan s = scan_library_bytes(amd().gfx1030);
  EXPECT_EQ(s.format, "code-object");
  EXPECT_EQ(s.code_object_isa, "gfx1030");
  std::string why;
  auto namer = comgr_isa_namer(&why);
  if (!namer) GTEST_SKIP() << why;
  EXPECT_EQ(namer(amd().gfx90a).rfind("amdgcn-amd-amdhsa--gfx90a", 0), 0u) << namer(amd().gfx90a);
  EXPECT_EQ(namer(amd().gfx1030).rfind("amdgcn-amd-amdhsa--gfx1030", 0), 0u);
  scan_options deep;
  deep.deep = true;
  deep.isa_namer = namer;
  library_scan d = scan_library_bytes(test::make_ccob(amd().bundle, 3, 1), deep);
  ASSERT_EQ(d.bundles.size(), 1u);
  EXPECT_EQ(entry(d.bundles[0], "gfx90a").comgr_isa.rfind("amdgcn-amd-amdhsa--gfx90a", 0), 0u);
  EXPECT_EQ(entry(d.bundles[0], "gfx1030").comgr_isa.rfind("amdgcn-amd-amdhsa--gfx1030", 0), 0u);
}

}  // namespace
}  // namespace gs
