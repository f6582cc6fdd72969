// `gpustack bisect` end to end with no network: a wheelhouse of stand-in `triton` releases built
// by the test (tests/fixtures/bisect/make_wheelhouse.py: one that does not install, one whose
// requirement the stack does not meet, one whose compile never returns, two with the pipeliner
// error), a venv that is the user's stack (triton 3.0.0 and its dependency), and gpustack's real
// probe path judging each release: probe fla --compile-only --target gfx1201.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <fstream>
#include <sstream>

#include "support/run_binary.h"
#include "support/shell.h"

namespace gs {
namespace {

namespace fs = std::filesystem;
using gs::testing::run_gpustack;
using gs::testing::run_output;

class BisectCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("gs-bisect-cli-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    const std::string py = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
    std::string out;
    const std::string wh = (root_ / "wheels").string(), venv = (root_ / "venv").string();
    ok_ = test::run(py + " " + GPUSTACK_SOURCE_DIR + "/tests/fixtures/bisect/make_wheelhouse.py " + wh, &out) &&
          test::run(py + " -m venv " + venv, &out) &&
          test::run(venv + "/bin/python -m pip install -q --no-index --find-links " + wh +
                        " triton==3.0.0 gs-bisect-dep==1.0",
                    &out);
    setup_output_ = out;
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }
  void SetUp() override { ASSERT_TRUE(ok_) << "building the wheelhouse and the venv failed:\n" << setup_output_; }

  /// gpustack bisect triton ... against the wheelhouse, state in `state`.
  static run_output bisect(const std::string& args, const fs::path& state) {
    fs::create_directories(state);
    return run_gpustack("bisect triton --venv " + (root_ / "venv").string() + " --find-links " +
                            (root_ / "wheels").string() + " --no-matrix --json " + args,
                        gs::testing::run_options{.dir = state});
  }
  static nlohmann::json versions_by_name(const nlohmann::json& report) {
    nlohmann::json by = nlohmann::json::object();
    for (const auto& v : report["bisect"]["versions"]) by[v["version"].get<std::string>()] = v;
    return by;
  }

  static inline fs::path root_;
  static inline bool ok_ = false;
  static inline std::string setup_output_;
};

const char* kProbe = " --compile-only --target gfx1201 -- fla --stages 4 --kernels state --timeout 5";

TEST_F(BisectCli, AFailedInstallAConflictAndAHangAreEachNamedAndTheAnswerSaysWhatTheyHide) {
  const fs::path state = root_ / "state-regression";
  run_output o = bisect(std::string("--good 3.0.0 --bad 3.6.0") + kProbe, state);
  ASSERT_EQ(o.rc, 1) << o.err;  // no single answer: skips hide the boundary
  nlohmann::json r = nlohmann::json::parse(o.out);
  const nlohmann::json& b = r["bisect"];
  EXPECT_EQ(r["tool"]["command"], "bisect");
  EXPECT_EQ(b["direction"], "regression");
  EXPECT_EQ(b["source"], "find-links");
  auto v = versions_by_name(r);
  EXPECT_EQ(v["3.0.0"]["verdict"], "good");
  EXPECT_EQ(v["3.1.0"]["verdict"], "good");
  EXPECT_EQ(v["3.2.0"]["status"], "install-failed");
  EXPECT_EQ(v["3.3.0"]["status"], "conflict");
  EXPECT_EQ(v["3.3.0"]["conflicts"][0], "triton 3.3.0 needs gs-bisect-dep>=2, the stack has gs-bisect-dep 1.0");
  EXPECT_EQ(v["3.4.0"]["status"], "hang");
  EXPECT_EQ(v["3.4.0"]["verdict"], "bad");
  EXPECT_EQ(v["3.5.0"]["tried"], false) << "the search never needs 3.5.0";
  EXPECT_EQ(v["3.6.0"]["status"], "fail");
  EXPECT_NE(v["3.6.0"]["detail"].get<std::string>().find("'tt.load' op operation destroyed but still has uses"),
            std::string::npos);
  EXPECT_EQ(b["answer"]["kind"], "hidden");
  EXPECT_EQ(b["answer"]["candidates"], nlohmann::json({"3.2.0", "3.3.0", "3.4.0"}));
  EXPECT_NE(b["answer"]["sentence"].get<std::string>().find("--allow-conflicts"), std::string::npos);
  EXPECT_EQ(r["summary"]["status"], "fail");
  // Each trial's probe left its report, and no scratch environment is left behind.
  const fs::path work = b["work_dir"].get<std::string>();
  EXPECT_TRUE(fs::exists(work / "report-3.4.0.json"));
  EXPECT_TRUE(fs::exists(work / "journal.json"));
  for (const auto& e : fs::directory_iterator(work))
    EXPECT_NE(e.path().filename().string().rfind("env-", 0), 0u) << e.path();

  // The same command again resumes from the journal: nothing is installed or run twice.
  run_output again = bisect(std::string("--good 3.0.0 --bad 3.6.0") + kProbe, state);
  ASSERT_EQ(again.rc, 1) << again.err;
  nlohmann::json r2 = nlohmann::json::parse(again.out);
  EXPECT_EQ(r2["bisect"]["resumed"], 6);
  EXPECT_EQ(r2["bisect"]["answer"], b["answer"]);
  EXPECT_EQ(again.err.find("trying triton"), std::string::npos) << again.err;
}

TEST_F(BisectCli, AllowingTheConflictPinsTheFirstBadRelease) {
  run_output o = bisect(std::string("--good 3.0.0 --bad 3.6.0 --allow-conflicts") + kProbe, root_ / "state-allow");
  ASSERT_EQ(o.rc, 0) << o.err;
  nlohmann::json r = nlohmann::json::parse(o.out);
  const nlohmann::json& a = r["bisect"]["answer"];
  EXPECT_EQ(a["kind"], "found");
  EXPECT_EQ(a["first_bad"], "3.4.0");
  EXPECT_EQ(a["last_good"], "3.3.0");
  auto v = versions_by_name(r);
  EXPECT_EQ(v["3.3.0"]["status"], "pass");
  EXPECT_EQ(v["3.3.0"]["conflicts"].size(), 1u) << "the conflict is still reported beside the result";
  EXPECT_EQ(r["summary"]["status"], "pass");
}

TEST_F(BisectCli, AGoodEndNewerThanTheBadOneFindsTheFix) {
  // Without --json: the terminal view says it in words.
  fs::create_directories(root_ / "state-fix");
  run_output o = run_gpustack("bisect triton --venv " + (root_ / "venv").string() + " --find-links " +
                                  (root_ / "wheels").string() + " --no-matrix --good 3.7.0 --bad 3.5.0" + kProbe,
                              gs::testing::run_options{.dir = root_ / "state-fix"});
  ASSERT_EQ(o.rc, 0) << o.err;
  EXPECT_NE(o.out.find("First release that works again: triton 3.7.0; the last bad one before it: 3.6.0."),
            std::string::npos)
      << o.out;
}

TEST_F(BisectCli, AVenvWithoutPipBorrowsOneFromAVenvGpustackMakes) {
  // What `uv venv` makes: no pip, no packaging. The stack goes in with the test venv's pip.
  const fs::path bare = root_ / "bare-venv";
  const std::string py = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  std::string out;
  ASSERT_TRUE(test::run(py + " -m venv --without-pip " + bare.string(), &out)) << out;
  ASSERT_TRUE(test::run(bare.string() + "/bin/python -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])' > " +
                            (root_ / "bare-site").string(), &out)) << out;
  std::string site;
  std::getline(std::ifstream(root_ / "bare-site"), site);
  ASSERT_TRUE(test::run((root_ / "venv").string() + "/bin/python -m pip install -q --no-index --find-links " +
                            (root_ / "wheels").string() + " --target " + site + " triton==3.0.0 gs-bisect-dep==1.0",
                        &out)) << out;
  const fs::path state = root_ / "state-bare";
  fs::create_directories(state);
  run_output o = run_gpustack("bisect triton --venv " + bare.string() + " --find-links " + (root_ / "wheels").string() +
                                  " --no-matrix --no-uv --json --good 3.5.0 --bad 3.7.0" + kProbe,
                              gs::testing::run_options{.dir = state});
  ASSERT_EQ(o.rc, 1) << o.err;  // swapped ends, as below: what matters here is that it ran
  nlohmann::json r = nlohmann::json::parse(o.out);
  EXPECT_EQ(r["bisect"]["installer"], "pip (venv made for gpustack)");
  EXPECT_EQ(r["bisect"]["tried"], 2);
  EXPECT_TRUE(fs::exists(state / "bisect" / "pip-venv" / "bin" / "python"));
}

TEST_F(BisectCli, SwappedEndsAreSaidToBeSwapped) {
  run_output o = bisect(std::string("--good 3.5.0 --bad 3.7.0") + kProbe, root_ / "state-swapped");
  ASSERT_EQ(o.rc, 1) << o.err;
  nlohmann::json r = nlohmann::json::parse(o.out);
  EXPECT_EQ(r["bisect"]["answer"]["kind"], "good_end_bad");
  EXPECT_NE(r["summary"]["text"].get<std::string>().find("run again with --good 3.7.0 --bad 3.5.0"), std::string::npos)
      << r["summary"]["text"];
  EXPECT_EQ(r["bisect"]["tried"], 2) << "nothing between the ends is tried";
}

TEST_F(BisectCli, ACommandCanJudgeInsteadOfAProbeAndTheDiskLimitEmptiesTheCache) {
  const fs::path state = root_ / "state-run";
  // A sparse 200 MiB file in the wheel cache: over a 0.1 GiB limit before the first trial.
  fs::create_directories(state / "bisect" / "cache");
  ASSERT_TRUE(test::run("truncate -s 200M '" + (state / "bisect" / "cache" / "big").string() + "'"));
  run_output o = bisect("--good 3.0.0 --bad 3.6.0 --disk-limit 0.1 --run '\"$GPUSTACK_BISECT_PYTHON\" -c "
                        "\"import triton, sys; sys.exit(1 if triton.MODE != chr(111) + chr(107) else 0)\"'",
                        state);
  ASSERT_EQ(o.rc, 1) << o.err;  // the install failure and the conflict hide the boundary again
  EXPECT_NE(o.err.find("emptying the cache"), std::string::npos) << o.err;
  EXPECT_FALSE(fs::exists(state / "bisect" / "cache" / "big"));
  nlohmann::json r = nlohmann::json::parse(o.out);
  auto v = versions_by_name(r);
  EXPECT_EQ(v["3.4.0"]["status"], "fail");
  EXPECT_EQ(v["3.4.0"]["detail"], "exit 1");
  EXPECT_EQ(r["bisect"]["trial"]["run"].get<std::string>().substr(0, 28), "\"$GPUSTACK_BISECT_PYTHON\" -c");
}

TEST_F(BisectCli, BadArgumentsAreUsageErrorsThatSayWhy) {
  struct row {
    std::string args;
    const char* says;
  };
  const row rows[] = {
      {"--good 3.0.0 --bad 3.6.0 --compile-only -- fla", "--compile-only needs --target ARCH"},
      {"--good 3.0.0 --bad 3.6.0 --compile-only --target gfx12 -- fla", "is no GPU arch Triton compiles for"},
      {"--good 3.0.0 --bad 3.6.0", "name the probe after --"},
      {"--good 3.0.0 --bad 3.6.0 --run true -- fla", "either --run CMD or a probe after --"},
      {"--good 3.0.0 --bad 3.9.9 -- fla", "--bad: 3.9.9 is not a release in the listing (nearest: 3.7.0)"},
      {"--good 3.0.0 --bad 3.0.0 -- fla", "the same release"},
      {"--good 3.0.0 --bad 3.6.0 -- fla --python /usr/bin/python3", "bisect sets --python"},
  };
  for (const row& r : rows) {
    run_output o = bisect(r.args, root_ / "state-usage");
    EXPECT_EQ(o.rc, 2) << r.args << "\n" << o.err;
    EXPECT_NE(o.err.find(r.says), std::string::npos) << r.args << "\n[" << o.err << "]";
  }
}

}  // namespace
}  // namespace gs
