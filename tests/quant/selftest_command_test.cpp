// `gpustack selftest --vectors FILE` end to end through the built binary: the golden fixture
// passes (exit 0) with every case and its matching counts listed; a changed element is exit 1; a
// malformed, truncated or missing file is exit 2 with the case and field named, never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "support/files.h"
#include "support/run_binary.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const std::string kVectorsFile = GPUSTACK_TEST_FIXTURES "/golden/bitsandbytes-vectors.json";

using cli_run = gs::testing::run_output;

class SelftestCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gs-selftest-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  cli_run run(const std::string& args) { return gs::testing::run_gpustack("selftest " + args); }
  fs::path dir_;
};

TEST_F(SelftestCommand, GoldenFixturePasses) {
  cli_run r = run("--vectors '" + kVectorsFile + "'");
  EXPECT_EQ(r.rc, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("3 of 3 cases match"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("nf4 bs64 [4, 256]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("packed_u8 1024/1024"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("acc_i32 256/256"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("H200"), std::string::npos) << "the file's meta.source is shown";
}

TEST_F(SelftestCommand, JsonOutput) {
  cli_run r = run("--vectors '" + kVectorsFile + "' --json");
  ASSERT_EQ(r.rc, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["summary"]["cases"], 3);
  EXPECT_EQ(j["summary"]["matching_cases"], 3);
  EXPECT_EQ(j["cases"][2]["kind"], "int8");
  EXPECT_EQ(j["cases"][0]["elements"], j["cases"][0]["matching"]);
  EXPECT_EQ(j["file"], kVectorsFile);
}

TEST_F(SelftestCommand, ADifferentElementIsExit1) {
  json d = json::parse(gs::test::read_file(kVectorsFile));
  d["cases"][1]["dequant"][9] = 123.0;
  cli_run r = run("--vectors '" + write("changed.json", d.dump()) + "'");
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("MISMATCH"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dequant 1023/1024 (first differing element 9)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 of 3 cases match"), std::string::npos) << r.out;
}

TEST_F(SelftestCommand, MalformedIsExit2NamingCaseAndField) {
  json d = json::parse(gs::test::read_file(kVectorsFile));
  d["cases"][2]["SCW"].erase(0);
  cli_run r = run("--vectors '" + write("bad.json", d.dump()) + "'");
  EXPECT_EQ(r.rc, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("case 2, field SCW: expected 32 elements, got 31"), std::string::npos) << r.err;
  r = run("--vectors '" + write("bad.json", d.dump()) + "' --json");
  EXPECT_EQ(r.rc, 2);
  json j = json::parse(r.out);
  EXPECT_EQ(j["errors"][0]["case"], 2);
  EXPECT_EQ(j["errors"][0]["field"], "SCW");
  EXPECT_EQ(j["summary"]["malformed"], true);
}

TEST_F(SelftestCommand, TruncatedMissingAndEmptyFiles) {
  const std::string text = gs::test::read_file(kVectorsFile);
  cli_run r = run("--vectors '" + write("cut.json", text.substr(0, text.size() * 2 / 3)) + "'");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("not valid JSON"), std::string::npos) << r.err;
  r = run("--vectors '" + (dir_ / "nope.json").string() + "'");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("cannot open"), std::string::npos) << r.err;
  r = run("--vectors '" + write("empty.json", "") + "'");
  EXPECT_EQ(r.rc, 2);
  r = run("--vectors '" + dir_.string() + "'");  // a directory
  EXPECT_EQ(r.rc, 2) << r.err;
  r = run("");  // --vectors is required
  EXPECT_EQ(r.rc, 2);
}

// Fuzz-style: random byte damage to the fixture never crashes the command (exit 0, 1 or 2 only).
TEST_F(SelftestCommand, RandomDamageNeverCrashes) {
  const std::string text = gs::test::read_file(kVectorsFile);
  std::mt19937 rng(1234);
  const char alphabet[] = "{}[],:\"0123456789.-eNaIfinty \x01";
  for (int i = 0; i < 12; ++i) {
    std::string t = text;
    std::uniform_int_distribution<size_t> pos(0, t.size() - 1);
    std::uniform_int_distribution<int> ch(0, int(sizeof(alphabet)) - 2);
    const int edits = 1 + i * 3;
    for (int e = 0; e < edits; ++e) {
      const size_t p = pos(rng);
      switch (e % 3) {
        case 0: t[p] = alphabet[ch(rng)]; break;
        case 1: t.erase(p, 1 + p % 7); break;
        case 2: t.insert(p, 1, alphabet[ch(rng)]); break;
      }
    }
    cli_run r = run("--vectors '" + write("damaged.json", t) + "' --json");
    EXPECT_TRUE(r.rc == 0 || r.rc == 1 || r.rc == 2) << "edit round " << i << " rc " << r.rc << "\n" << r.err;
    json j;
    EXPECT_NO_THROW(j = json::parse(r.out)) << "--json output stays JSON: round " << i;
  }
}

}  // namespace
