// NVIDIA fatbins in real nvcc objects built by this test run: the archs asked of nvcc are the
// oracle (cuobjdump is not installed here). CUDA 13 zstd-compresses PTX by default and every
// entry with -Xfatbin -compress-all; the arch must come out of the clear entry headers either way.
#include <gtest/gtest.h>

#include "inspect/code_judge.h"
#include "inspect/elf_sections.h"
#include "inspect/library_scan.h"
#include "support/inspect_data.h"

namespace gs {
namespace {

const test::nvcc_objects& objs() {
  std::string why;
  const auto& o = test::nvcc_built(&why);
  if (!o) throw std::runtime_error(why);
  return *o;
}

#define NEED_NVCC()                                              \
  do {                                                           \
    std::string why;                                             \
    if (!test::nvcc_built(&why)) GTEST_SKIP() << why;            \
  } while (0)

std::vector<std::string> codes(const library_scan& s) { return all_codes(summarize_scan(s)); }

TEST(InspectNvcc, MultiArchObjectListsSassAndPtx) {
  NEED_NVCC();
  library_scan s = scan_library_file(objs().multi);
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(s.format, "elf");
  EXPECT_EQ(s.sections, std::vector<std::string>{".nv_fatbin"});
  ASSERT_EQ(s.fatbins.size(), 1u);
  EXPECT_EQ(s.fatbins[0].error, "");
  EXPECT_EQ(codes(s), (std::vector<std::string>{"sm_80", "sm_90", "compute_90"}));
  // The container's claimed size is exactly the section's contents (readelf shows the same).
  elf_sections e = read_elf_sections(test::read_file(objs().multi));
  ASSERT_NE(e.find(".nv_fatbin"), nullptr);
  EXPECT_EQ(s.fatbins[0].size, e.find(".nv_fatbin")->size);
  for (const fatbin_entry& en : s.fatbins[0].entries)
    if (en.is_ptx()) {
      EXPECT_EQ(en.compression, "zstd") << "CUDA 13 compresses PTX by default";
      EXPECT_EQ(en.major, 9) << "PTX ISA 9.x from CUDA 13";
    }
}

TEST(InspectNvcc, CompressedEntriesKeepTheirArch) {
  NEED_NVCC();
  library_scan s = scan_library_file(objs().compressed);
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(codes(s), (std::vector<std::string>{"sm_80", "sm_90", "compute_90"}));
  ASSERT_EQ(s.fatbins.size(), 1u);
  for (const fatbin_entry& en : s.fatbins[0].entries) {
    EXPECT_EQ(en.compression, "zstd") << en.name();
    EXPECT_GT(en.uncompressed_size, en.payload_size) << en.name();
  }
}

TEST(InspectNvcc, DeepReadsEachCubinsOwnHeaderEvenCompressed) {
  NEED_NVCC();
  scan_options deep;
  deep.deep = true;
  for (const std::string& path : {objs().multi, objs().compressed}) {
    library_scan s = scan_library_file(path, deep);
    int cubins = 0;
    for (const fatbin_entry& en : s.fatbins.at(0).entries)
      if (!en.is_ptx()) {
        ++cubins;
        EXPECT_EQ(en.elf_arch, "sm_" + std::to_string(en.sm)) << path;
      }
    EXPECT_EQ(cubins, 2) << path;
  }
}

TEST(InspectNvcc, ArchSpecificSm90a) {
  NEED_NVCC();
  library_scan s = scan_library_file(objs().sm90a);
  EXPECT_EQ(codes(s), (std::vector<std::string>{"sm_90a"}));
  device_code_library lib = summarize_scan(s);
  EXPECT_EQ(judge_library(lib, parse_gpu_target("sm_90")).verdict, code_verdict::runs);
  EXPECT_EQ(judge_library(lib, parse_gpu_target("sm_100")).verdict, code_verdict::none) << "sm_90a is Hopper-only";
}

TEST(InspectNvcc, VerdictsFollowBinaryCompatibility) {
  NEED_NVCC();
  device_code_library lib = summarize_scan(scan_library_file(objs().multi));
  EXPECT_EQ(judge_library(lib, parse_gpu_target("sm_90")).verdict, code_verdict::runs);
  EXPECT_EQ(judge_library(lib, parse_gpu_target("sm_86")).verdict, code_verdict::runs) << "sm_80 SASS runs on 8.6";
  EXPECT_EQ(judge_library(lib, parse_gpu_target("sm_120")).verdict, code_verdict::jit) << "compute_90 PTX JITs";
  code_judgement old = judge_library(lib, parse_gpu_target("sm_75"));
  EXPECT_EQ(old.verdict, code_verdict::none);
  EXPECT_NE(old.detail.find("sm_80 sm_90 compute_90"), std::string::npos) << old.detail;
  EXPECT_EQ(judge_library(lib, parse_gpu_target("gfx1201")).verdict, code_verdict::none) << "CUDA code on an AMD GPU";
}

}  // namespace
}  // namespace gs
