// `gpustack explain` as a user runs it: standard input or files, the three renderings, -o,
// exit codes, redaction of what was pasted, and errors for input it cannot read.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/assets.h"
#include "support/redaction_samples.h"
#include "support/report_schema.h"
#include "support/run_binary.h"

namespace gs {
namespace {

using namespace gs::testing;
namespace fs = std::filesystem;

const std::string kPaste =
    "(venv) alice@gpu-box-01:~/proj$ python train.py\n"
    "Traceback (most recent call last):\n  File \"/home/alice/proj/train.py\", line 9, in <module>\n"
    "RuntimeError: HIP error: invalid device function\n"
    "export HSA_OVERRIDE_GFX_VERSION=11.0.0\nmy RX 9070 XT, ROCm 6.4.1\n";

TEST(ExplainCli, StdinToHumanTextWithFixAndExitOne) {
  run_output r = run_gpustack("explain", kPaste);
  EXPECT_EQ(r.rc, 1) << r.err;  // GS-ENV-001 is a fail
  EXPECT_NE(r.out.find("GS-ENV-001"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fix:  unset HSA_OVERRIDE_GFX_VERSION"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gpu.arch gfx1201 (line 6)"), std::string::npos) << r.out;
}

TEST(ExplainCli, JsonIsASchemaValidExplainReport) {
  run_output r = run_gpustack("explain --json -", kPaste);
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["tool"]["command"], "explain");
  EXPECT_TRUE(matches_report_schema(j));
  EXPECT_EQ(j["summary"]["status"], "fail");
  EXPECT_FALSE(j["explain"]["facts"].empty());
}

TEST(ExplainCli, NothingFoundIsUnknownNotPass) {
  run_output r = run_gpustack("explain --json", "hello, my code prints the wrong number\n");
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_EQ(r.rc, 0);
  EXPECT_EQ(j["summary"]["status"], "unknown");
  EXPECT_TRUE(matches_report_schema(j));
  EXPECT_FALSE(j["explain"]["next_step"].get<std::string>().empty());
}

TEST(ExplainCli, PastedSecretsAndIdentityNeverReachAnyOutput) {
  std::string paste = kPaste + "HF_TOKEN=" + kHf + "\nexport GITHUB_TOKEN=" + kGhp + "\n" + kJwt + "\n" +
                      "AWS_SECRET_ACCESS_KEY=" + kAwsSecret + "\nkey " + kAkia + " " + kSk + " " + kSlack +
                      "\nhttps://bob:pa55w0rd@10.20.30.40/x\nGPU UUID " + kUuid + "\n";
  for (const char* mode : {"", "--json", "--markdown"}) {
    run_output r = run_gpustack(std::string("explain ") + mode, paste);
    for (const std::string& leak : {kHf, kGhp, kJwt.substr(0, 40), kAwsSecret, kAkia, kSk, kSlack, std::string("pa55w0rd"),
                                    std::string("10.20.30.40"), std::string("alice"), std::string("gpu-box-01"), kUuid})
      EXPECT_EQ(r.out.find(leak), std::string::npos) << mode << " leaks " << leak;
  }
}

TEST(ExplainCli, FilesMarkdownAndOutputFile) {
  fs::path dir = fs::temp_directory_path() / ("gs-explain-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  { std::ofstream(dir / "a.log") << kPaste; }
  run_output r = run_gpustack("explain --markdown '" + (dir / "a.log").string() + "' -o '" + (dir / "answer.md").string() + "'");
  EXPECT_EQ(r.rc, 1);
  std::ifstream in(dir / "answer.md");
  std::string md((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(md.find("## gpustack explain"), std::string::npos);
  EXPECT_NE(md.find("<details>"), std::string::npos);
  fs::remove_all(dir);
}

TEST(ExplainCli, UnreadableInputIsAUsageErrorWithTheReason) {
  run_output r = run_gpustack("explain /nonexistent/gpustack-explain.log");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << r.err;
  run_output bad = run_gpustack("explain --rules /nonexistent/rules.toml", "x\n");
  EXPECT_EQ(bad.rc, 2);
}

TEST(ExplainCli, ExtraRulesFileApplies) {
  fs::path p = fs::temp_directory_path() / ("gs-explain-rule-" + std::to_string(::getpid()) + ".toml");
  {
    std::ofstream(p) << "schema = 1\n[[rule]]\nid = \"GS-TEST-900\"\nseverity = \"warn\"\ntitle = \"a test rule\"\n"
                        "evidence = \"seen\"\nremediation = \"do the thing\"\nmatch_text = [\"frobnicator jammed\"]\n";
  }
  run_output r = run_gpustack("explain --rules '" + p.string() + "'", "ERROR: frobnicator jammed\n");
  EXPECT_NE(r.out.find("GS-TEST-900"), std::string::npos) << r.out << r.err;
  // --rules repeats, and a FILE after it is still an input, not one more rule file.
  fs::path q = fs::temp_directory_path() / ("gs-explain-rule2-" + std::to_string(::getpid()) + ".toml");
  {
    std::ofstream(q) << "schema = 1\n[[rule]]\nid = \"GS-TEST-901\"\nseverity = \"warn\"\ntitle = \"another\"\n"
                        "evidence = \"seen\"\nremediation = \"do it\"\nmatch_text = [\"gearbox slipped\"]\n";
  }
  fs::path log = fs::temp_directory_path() / ("gs-explain-log-" + std::to_string(::getpid()) + ".txt");
  std::ofstream(log) << "ERROR: frobnicator jammed\nWARN: gearbox slipped\n";
  run_output two = run_gpustack("explain --rules '" + p.string() + "' --rules '" + q.string() + "' '" + log.string() + "'");
  EXPECT_EQ(two.rc, 0) << two.err;
  EXPECT_NE(two.out.find("GS-TEST-900"), std::string::npos) << two.out << two.err;
  EXPECT_NE(two.out.find("GS-TEST-901"), std::string::npos) << two.out << two.err;
  fs::remove(p);
  fs::remove(q);
  fs::remove(log);
}

TEST(ExplainCli, RulesFileNamedLikeABuiltInOneReplacesIt) {
  // An edited copy of matrix/rules/memory.toml is tried without a rebuild: it replaces the
  // embedded file (loading it beside it would fail on every id as a duplicate).
  fs::path dir = fs::temp_directory_path() / ("gs-explain-kb-" + std::to_string(::getpid()));
  fs::create_directories(dir / "matrix/rules");
  std::string text(*find_asset("matrix/rules/memory.toml"));
  const std::string title = "The process was killed while loading the model: host RAM ran out";
  ASSERT_NE(text.find(title), std::string::npos);
  text.replace(text.find(title), title.size(), "EDITED TITLE for the replacement test");
  std::ofstream(dir / "matrix/rules/memory.toml") << text;
  run_output r = run_gpustack("explain --rules '" + (dir / "matrix/rules/memory.toml").string() + "'",
                              "Loading checkpoint shards:  50%|#####     | 1/2\nKilled\n");
  EXPECT_EQ(r.err.find("duplicate"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("EDITED TITLE"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(r.out.find(title), std::string::npos) << r.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gs
