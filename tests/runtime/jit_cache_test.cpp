// jit_cache: round trip, a key that moves with every input, atomic writes, and corrupt, foreign
// or truncated entries treated as misses.
#include "runtime/jit_cache.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/files.h"

namespace gs {
namespace {

namespace fs = std::filesystem;

using gs::test::temp_dir;

device_source src(std::string text = "GS_KERNEL void k() {}") {
  device_source s;
  s.name = "k.cu";
  s.source = std::move(text);
  s.headers = {{"gs_device.h", "#pragma once\n"}};
  s.defines = {"GS_CUDA=1", "GS_WARP_SIZE=32"};
  s.wave_size = 32;
  return s;
}

jit_key_parts parts() { return {"cuda", "sm_90", "nvrtc 13.0", {"--gpu-architecture=sm_90", "-DGS_CUDA=1"}}; }

TEST(JitCache, KeyMovesWithEveryInput) {
  const std::string k = jit_cache_key(parts(), src());
  EXPECT_EQ(k.size(), 64u);
  EXPECT_EQ(k, jit_cache_key(parts(), src()));  // deterministic
  auto differs = [&](jit_key_parts p, device_source s) { return jit_cache_key(p, s) != k; };
  jit_key_parts p = parts();
  p.arch = "sm_80";
  EXPECT_TRUE(differs(p, src()));
  p = parts();
  p.compiler = "nvrtc 12.8";
  EXPECT_TRUE(differs(p, src()));
  p = parts();
  p.options.push_back("-DX=1");
  EXPECT_TRUE(differs(p, src()));
  p = parts();
  p.backend = "hip";
  EXPECT_TRUE(differs(p, src()));
  EXPECT_TRUE(differs(parts(), src("GS_KERNEL void k2() {}")));
  device_source s = src();
  s.headers[0].second += "// changed prelude\n";
  EXPECT_TRUE(differs(parts(), s));
  // Length prefixes: moving a character between two fields changes the key.
  jit_key_parts a = parts(), b = parts();
  a.options = {"ab", "c"};
  b.options = {"a", "bc"};
  EXPECT_NE(jit_cache_key(a, src()), jit_cache_key(b, src()));
}

TEST(JitCache, RoundTripAndNoTempFilesLeft) {
  temp_dir d;
  jit_cache c(d.path + "/nested/jit");
  const std::string key = jit_cache_key(parts(), src());
  EXPECT_FALSE(c.get(key));
  std::vector<char> image = {'\x7f', 'E', 'L', 'F', '\0', '\n', 'x'};
  ASSERT_TRUE(c.put(key, image).ok);
  auto got = c.get(key);
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, image);
  int files = 0;
  for (const auto& e : fs::directory_iterator(d.path + "/nested/jit")) {
    ++files;
    EXPECT_EQ(e.path().extension(), ".bin") << e.path();
  }
  EXPECT_EQ(files, 1);
  // An empty image is a legal (if useless) entry.
  const std::string key2 = jit_cache_key(parts(), src("other"));
  ASSERT_TRUE(c.put(key2, {}).ok);
  ASSERT_TRUE(c.get(key2));
  EXPECT_TRUE(c.get(key2)->empty());
}

TEST(JitCache, CorruptTruncatedAndForeignEntriesAreMisses) {
  temp_dir d;
  jit_cache c(d.path);
  const std::string key = jit_cache_key(parts(), src());
  const std::string other = jit_cache_key(parts(), src("other"));
  std::vector<char> image(1000, 'a');
  ASSERT_TRUE(c.put(key, image).ok);
  const std::string path = c.path_for(key);
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto write = [&](const std::string& p, const std::string& b) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << b;
  };
  std::string flipped = bytes;
  flipped[flipped.size() - 10] ^= 1;
  write(path, flipped);
  EXPECT_FALSE(c.get(key)) << "a flipped payload byte must fail the checksum";
  write(path, bytes.substr(0, bytes.size() - 1));
  EXPECT_FALSE(c.get(key)) << "truncated";
  write(path, bytes + "x");
  EXPECT_FALSE(c.get(key)) << "trailing bytes";
  write(path, "garbage\n");
  EXPECT_FALSE(c.get(key));
  write(path, "");
  EXPECT_FALSE(c.get(key));
  write(c.path_for(other), bytes);
  EXPECT_FALSE(c.get(other)) << "an entry copied under another key names the wrong key";
  write(path, bytes);
  EXPECT_TRUE(c.get(key));
  // Malformed keys never reach the filesystem.
  EXPECT_FALSE(c.get("../../etc/passwd"));
  EXPECT_FALSE(c.put("../x", image).ok);
}

TEST(JitCache, UnwritableDirectoryIsAStatusNotACrash) {
  if (geteuid() == 0) {
    // root writes through permissions; a path under a regular file fails for everyone.
    temp_dir d;
    std::ofstream(d.path + "/file") << "x";
    jit_cache c(d.path + "/file/jit");
    runtime_status st = c.put(jit_cache_key(parts(), src()), {'x'});
    EXPECT_FALSE(st.ok);
    EXPECT_FALSE(st.message.empty());
    return;
  }
  temp_dir d;
  chmod(d.path.c_str(), 0500);
  jit_cache c(d.path + "/jit");
  EXPECT_FALSE(c.put(jit_cache_key(parts(), src()), {'x'}).ok);
  chmod(d.path.c_str(), 0700);
}

TEST(JitCache, DisabledCacheMissesAndStoresNothing) {
  jit_cache c("");
  EXPECT_FALSE(c.enabled());
  const std::string key = jit_cache_key(parts(), src());
  EXPECT_TRUE(c.put(key, {'x'}).ok);
  EXPECT_FALSE(c.get(key));
}

TEST(JitCache, LocationFromTheEnvironment) {
  auto save = [](const char* n) { const char* v = getenv(n); return v ? std::optional<std::string>(v) : std::nullopt; };
  auto restore = [](const char* n, const std::optional<std::string>& v) {
    if (v) setenv(n, v->c_str(), 1); else unsetenv(n);
  };
  auto dir = save("GPUSTACK_CACHE_DIR"), xdg = save("XDG_CACHE_HOME"), home = save("HOME");
  setenv("GPUSTACK_CACHE_DIR", "/tmp/gs-explicit", 1);
  EXPECT_EQ(jit_cache::from_environment().dir(), "/tmp/gs-explicit");
  setenv("GPUSTACK_CACHE_DIR", "off", 1);
  EXPECT_FALSE(jit_cache::from_environment().enabled());
  unsetenv("GPUSTACK_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(jit_cache::from_environment().dir(), "/tmp/xdg/gpustack/jit");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(jit_cache::from_environment().dir(), "/home/someone/.cache/gpustack/jit");
  unsetenv("HOME");
  EXPECT_FALSE(jit_cache::from_environment().enabled());
  restore("GPUSTACK_CACHE_DIR", dir);
  restore("XDG_CACHE_HOME", xdg);
  restore("HOME", home);
}

}  // namespace
}  // namespace gs
