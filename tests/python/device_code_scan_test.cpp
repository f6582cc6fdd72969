// The device-code scan: clang offload bundles (host, gfx with features, old ids), compressed
// bundles counted, NVIDIA fatbins walked entry by entry, and truncated or random bytes that must
// give nothing and never read out of bounds (run under ASan in CI's sanitizer build).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "probes/device_code_scan.h"

namespace gs {
namespace {

void u16(std::string& b, uint16_t v) { b.append(reinterpret_cast<const char*>(&v), 2); }
void u32(std::string& b, uint32_t v) { b.append(reinterpret_cast<const char*>(&v), 4); }
void u64(std::string& b, uint64_t v) { b.append(reinterpret_cast<const char*>(&v), 8); }

std::string bundle(const std::vector<std::string>& ids) {
  std::string b = "__CLANG_OFFLOAD_BUNDLE__";
  u64(b, ids.size());
  for (const std::string& id : ids) {
    u64(b, 4096);
    u64(b, 64);
    u64(b, id.size());
    b += id;
  }
  return b;
}

/// A fatbin container with (kind, sm) entries, each with a 64-byte header and 32 payload bytes.
std::string fatbin(const std::vector<std::pair<uint16_t, uint32_t>>& entries) {
  std::string body;
  for (auto [kind, arch] : entries) {
    std::string e;
    u16(e, kind);
    u16(e, 0x101);
    u32(e, 64);
    u64(e, 32);
    u64(e, 0);
    u16(e, 0);
    u16(e, 0);
    u32(e, arch);
    e.resize(64, '\0');
    e += std::string(32, '\x5a');
    body += e;
  }
  std::string b("\x50\xed\x55\xba", 4);
  u16(b, 1);
  u16(b, 16);
  u64(b, body.size());
  return b + body;
}

TEST(DeviceCodeScan, ListsGfxTargetsOfOffloadBundles) {
  device_code_targets t;
  scan_device_code("ELF...junk" +
                       bundle({"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx1201",
                               "hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", "hip-amdgcn-amd-amdhsa-gfx906"}) +
                       "tail" + bundle({"hipv4-amdgcn-amd-amdhsa--gfx1100"}),
                   t);
  EXPECT_EQ(t.amd, (std::set<std::string>{"gfx1100", "gfx1201", "gfx906", "gfx942"}));
  EXPECT_TRUE(t.sass.empty());
}

TEST(DeviceCodeScan, CountsCompressedBundlesButNotTheWordCcobInText) {
  device_code_targets t;
  std::string ccob = "CCOB";
  u16(ccob, 3);
  u16(ccob, 1);
  scan_device_code("a string table mentioning CCOB\xff\xff" + ccob + std::string(40, '\0'), t);
  EXPECT_EQ(t.compressed_bundles, 1);
  EXPECT_TRUE(t.amd.empty());
}

TEST(DeviceCodeScan, WalksFatbinEntries) {
  device_code_targets t;
  scan_device_code(std::string(100, '\1') + fatbin({{2, 80}, {2, 90}, {1, 90}, {2, 120}}) + std::string(7, '\2'), t);
  EXPECT_EQ(t.sass, (std::set<std::string>{"sm_120", "sm_80", "sm_90"}));
  EXPECT_EQ(t.ptx, (std::set<std::string>{"compute_90"}));
}

TEST(DeviceCodeScan, TruncatedAndCorruptContainersGiveNothingWrong) {
  std::string b = bundle({"hipv4-amdgcn-amd-amdhsa--gfx1201"});
  for (size_t cut = 0; cut < b.size(); ++cut) {
    device_code_targets t;
    scan_device_code(std::string_view(b).substr(0, cut), t);
    EXPECT_TRUE(t.amd.empty()) << "cut " << cut;
  }
  std::string f = fatbin({{2, 90}, {2, 100}});
  for (size_t cut = 0; cut < f.size(); ++cut) {
    device_code_targets t;
    scan_device_code(std::string_view(f).substr(0, cut), t);
    for (const std::string& s : t.sass) EXPECT_TRUE(s == "sm_90" || s == "sm_100") << s;
  }
  std::string huge = "__CLANG_OFFLOAD_BUNDLE__";
  u64(huge, ~0ull);  // an entry count no bundle has
  device_code_targets t;
  scan_device_code(huge + std::string(64, '\xff'), t);
  EXPECT_TRUE(t.amd.empty());
}

TEST(DeviceCodeScan, RandomBytesAroundMagicsNeverCrash) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::string s(512, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    size_t at = rng() % 480;
    const char* magic = round % 2 ? "__CLANG_OFFLOAD_BUNDLE__" : "\x50\xed\x55\xba\x01\x00\x10\x00";
    std::memcpy(s.data() + at, magic, std::strlen(magic) < 512 - at ? std::strlen(magic) : 512 - at);
    device_code_targets t;
    EXPECT_NO_THROW(scan_device_code(s, t));
  }
}

TEST(DeviceCodeScan, FileScanThroughTheSysrootReportsUnreadableFiles) {
  device_code_targets t = scan_device_code_file(sysroot::live(), "/nonexistent/libggml-hip.so");
  EXPECT_NE(t.error.find("ENOENT"), std::string::npos) << t.error;
}

}  // namespace
}  // namespace gs
