// Corrupt and truncated inputs: every cut of a real object, flipped bytes in a compressed
// payload, bad headers. Each must end as a clear error (named below) or as fewer results, never
// a read past the buffer (ASan runs these) or an exception. Plus a seeded random-mutation loop
// over real inputs (the libFuzzer target fuzz/fatbin_fuzz.cpp runs the same entry point longer).
#include <gtest/gtest.h>

#include <random>

#include "inspect/elf_sections.h"
#include "inspect/library_scan.h"
#include "inspect/nv_fatbin.h"
#include "inspect/offload_bundle.h"
#include "support/inspect_data.h"

namespace gs {
namespace {

std::vector<std::string> real_inputs() {
  std::vector<std::string> v;
  if (const auto& n = test::nvcc_built()) v.push_back(test::read_file(n->multi)), v.push_back(test::read_file(n->compressed));
  if (const auto& a = test::amd_built()) {
    v.push_back(a->bundle);
    v.push_back(test::make_ccob(a->bundle, 3, 1));
    v.push_back(test::make_ccob(a->bundle, 2, 0));
    v.push_back(test::make_ccob(a->bundle, 1, 1));
    v.push_back(a->gfx90a);
  }
  return v;
}

TEST(InspectCorrupt, EveryTruncationIsCleanAndNamed) {
  auto inputs = real_inputs();
  if (inputs.empty()) GTEST_SKIP() << "neither nvcc nor comgr here";
  for (const std::string& in : inputs) {
    // Every cut for small inputs, ~2000 cuts for large ones.
    size_t step = std::max<size_t>(1, in.size() / 2000);
    for (size_t cut = 0; cut < in.size(); cut += step) {
      std::string part = in.substr(0, cut);  // a copy: ASan sees reads past the cut
      library_scan s = scan_library_bytes(part);
      device_code_library lib = summarize_scan(s);
      (void)lib;
    }
  }
}

TEST(InspectCorrupt, TruncatedCompressedBundleSaysSo) {
  const auto& a = test::amd_built();
  if (!a) GTEST_SKIP();
  std::string ccob = test::make_ccob(a->bundle, 3, 1);
  offload_bundle b = parse_compressed_bundle(std::string_view(ccob).substr(0, ccob.size() / 2));
  EXPECT_NE(b.error.find("compressed bundle truncated"), std::string::npos) << b.error;
  // V1 has no size: a cut payload is found by the decompressor.
  std::string v1 = test::make_ccob(a->bundle, 1, 0);
  scan_options deep;
  deep.deep = true;
  library_scan s = scan_library_bytes(v1.substr(0, v1.size() - 40), deep);
  ASSERT_EQ(s.bundles.size(), 1u);
  EXPECT_NE(s.bundles[0].error.find("zlib"), std::string::npos) << s.bundles[0].error;
}

TEST(InspectCorrupt, FlippedPayloadBytesAreACorruptStream) {
  const auto& a = test::amd_built();
  if (!a) GTEST_SKIP();
  for (int method : {0, 1}) {
    std::string ccob = test::make_ccob(a->bundle, 3, method);
    for (size_t i = 40; i < 60; ++i) ccob[i] = static_cast<char>(ccob[i] ^ 0x5a);
    offload_bundle b = parse_compressed_bundle(ccob);
    EXPECT_FALSE(b.error.empty()) << "method " << method;
    EXPECT_TRUE(b.error.find("corrupt") != std::string::npos || b.error.find("not an offload bundle") != std::string::npos ||
                b.error.find("truncated") != std::string::npos || b.error.find("implausible") != std::string::npos)
        << b.error;
  }
}

TEST(InspectCorrupt, BadHeadersAreNamed) {
  std::string ccob = std::string("CCOB") + std::string("\x09\x00\x01\x00", 4) + std::string(40, '\0');
  EXPECT_NE(parse_compressed_bundle(ccob).error.find("unknown compressed bundle version 9"), std::string::npos);
  std::string method = std::string("CCOB") + std::string("\x03\x00\x07\x00", 4) + std::string(40, '\0');
  EXPECT_NE(parse_compressed_bundle(method).error.find("unknown compression method 7"), std::string::npos);
  std::string huge = std::string("CCOB\x03\x00\x01\x00", 8);
  uint64_t total = 64, claimed = 1ull << 40, hash = 0;
  huge += std::string(reinterpret_cast<char*>(&total), 8) + std::string(reinterpret_cast<char*>(&claimed), 8) +
          std::string(reinterpret_cast<char*>(&hash), 8) + std::string(32, '\0');
  EXPECT_NE(parse_compressed_bundle(huge).error.find("claims 1099511627776 uncompressed bytes"), std::string::npos);
  std::string plain = "__CLANG_OFFLOAD_BUNDLE__" + std::string("\xff\xff\xff\xff\x00\x00\x00\x00", 8);
  EXPECT_NE(parse_plain_bundle(plain).error.find("implausible bundle entry count"), std::string::npos);
  std::string fat("\x50\xed\x55\xba\x01\x00\x10\x00", 8);
  uint64_t fat_size = 4096;
  fat += std::string(reinterpret_cast<char*>(&fat_size), 8) + std::string(100, '\0');
  fatbin_container c = parse_fatbin_container(fat);
  EXPECT_NE(c.error.find("fatbin truncated"), std::string::npos) << c.error;
  EXPECT_NE(parse_fatbin_container(std::string("\x50\xed\x55\xba\x02\x00\x10\x00", 8) + std::string(8, '\0')).error.find("unknown fatbin version 2"),
            std::string::npos);
}

TEST(InspectCorrupt, TruncatedElfSectionIsReported) {
  const auto& n = test::nvcc_built();
  if (!n) GTEST_SKIP();
  std::string obj = test::read_file(n->multi);
  // Keep the header and section table (at the end of a relocatable object) but zero the data:
  // the fatbin magic is gone, so nothing is listed and nothing is invented.
  elf_sections e = read_elf_sections(obj);
  const elf_section* fb = e.find(".nv_fatbin");
  ASSERT_NE(fb, nullptr);
  std::string zeroed = obj;
  std::fill(zeroed.begin() + static_cast<long>(fb->offset), zeroed.begin() + static_cast<long>(fb->offset + fb->size), '\0');
  library_scan s = scan_library_bytes(zeroed);
  EXPECT_TRUE(s.fatbins.empty());
  EXPECT_TRUE(summarize_scan(s).units.empty());
}

TEST(InspectCorrupt, SeededMutationsOfRealInputs) {
  auto inputs = real_inputs();
  if (inputs.empty()) GTEST_SKIP();
  std::mt19937_64 rng(20261202);
  scan_options deep;
  deep.deep = true;
  for (int round = 0; round < 300; ++round) {
    std::string in = inputs[rng() % inputs.size()];
    int flips = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < flips; ++i) in[rng() % in.size()] = static_cast<char>(rng());
    if (rng() % 3 == 0) in.resize(rng() % (in.size() + 1));
    library_scan s = scan_library_bytes(in, round % 2 ? deep : scan_options{});
    (void)summarize_scan(s);
  }
}

}  // namespace
}  // namespace gs
