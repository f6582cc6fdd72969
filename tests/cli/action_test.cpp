// The GitHub Action (action.yml) as CI can exercise it without GitHub: its definition read as the
// runner reads it, and its one script (scripts/action-run.sh) run with the variables the runner
// sets, against this build of gpustack (GPUSTACK_BIN skips the build). docs/ci-and-issues.md.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/shell.h"

namespace gs {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// KEY=value lines of a GITHUB_OUTPUT file.
std::map<std::string, std::string> outputs(const fs::path& p) {
  std::map<std::string, std::string> m;
  std::istringstream in(slurp(p));
  for (std::string line; std::getline(in, line);)
    if (auto eq = line.find('='); eq != std::string::npos) m[line.substr(0, eq)] = line.substr(eq + 1);
  return m;
}

struct action_run {
  int rc;
  std::string log;
  std::map<std::string, std::string> out;
  std::string summary;
};

action_run run_action(const std::string& command, const std::string& fail_on, const fs::path& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string cmd = "cd '" + dir.string() + "' && GPUSTACK_STATE_DIR='" + dir.string() + "' XDG_DATA_HOME='" +
                    dir.string() + "' GPUSTACK_BIN='" GPUSTACK_BINARY "' RUNNER_TEMP='" + dir.string() +
                    "' GITHUB_STEP_SUMMARY='" + (dir / "summary.md").string() + "' GITHUB_OUTPUT='" +
                    (dir / "output").string() + "' INPUT_COMMAND='" + command + "' INPUT_FAIL_ON='" + fail_on +
                    "' bash '" GPUSTACK_SOURCE_DIR "/scripts/action-run.sh'";
  action_run r;
  r.rc = test::shell(cmd, &r.log);
  r.out = outputs(dir / "output");
  r.summary = slurp(dir / "summary.md");
  return r;
}

fs::path scratch(const char* name) {
  return fs::temp_directory_path() / ("gs-action-" + std::to_string(::getpid()) + "-" + name);
}

TEST(Action, TheDefinitionRunsTheScriptAndPublishesWhatItWrites) {
  // Read action.yml as the runner does (YAML), and hold it to the script: the outputs it maps are
  // the keys the script writes, the artifact is the report path it sets.
  std::string json;
  ASSERT_TRUE(test::run("/usr/bin/python3 -c 'import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))' '"
                        GPUSTACK_SOURCE_DIR "/action.yml'",
                        &json))
      << json;
  nlohmann::json a = nlohmann::json::parse(json);
  EXPECT_EQ(a["runs"]["using"], "composite");
  EXPECT_EQ(a["inputs"]["command"]["default"], "check");
  EXPECT_EQ(a["inputs"]["fail-on"]["default"], "fail");
  const nlohmann::json& steps = a["runs"]["steps"];
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_NE(steps[0]["run"].get<std::string>().find("scripts/action-run.sh"), std::string::npos);
  EXPECT_EQ(steps[0]["env"]["INPUT_COMMAND"], "${{ inputs.command }}");
  EXPECT_EQ(steps[0]["env"]["INPUT_FAIL_ON"], "${{ inputs.fail-on }}");
  EXPECT_EQ(steps[1]["uses"], "actions/upload-artifact@v4");
  EXPECT_EQ(steps[1]["with"]["path"], "${{ steps.run.outputs.report }}");
  const std::string script = slurp(GPUSTACK_SOURCE_DIR "/scripts/action-run.sh");
  for (const char* key : {"status", "exit-code", "report"}) {
    EXPECT_EQ(a["outputs"][key]["value"], std::string("${{ steps.run.outputs.") + key + " }}");
    EXPECT_NE(script.find(std::string("echo \"") + key + "="), std::string::npos) << key;
  }
}

TEST(Action, CheckWritesTheReportTheSummaryAndTheOutputs) {
  fs::path dir = scratch("check");
  action_run r = run_action("check", "fail", dir);
  ASSERT_EQ(r.rc, 0) << r.log;
  const fs::path report = r.out["report"];
  ASSERT_TRUE(fs::exists(report)) << r.log;
  nlohmann::json rep = nlohmann::json::parse(slurp(report));
  EXPECT_EQ(rep["tool"]["command"], "check");
  EXPECT_EQ(r.out["status"], rep["summary"]["status"].get<std::string>());
  EXPECT_EQ(r.out["exit-code"], "0");
  EXPECT_EQ(r.summary.rfind("### gpustack check: ", 0), 0u) << r.summary.substr(0, 200);
  fs::remove_all(dir);
}

TEST(Action, AFailingRunFailsTheStepUnlessFailOnIsNever) {
  fs::path dir = scratch("crash");
  action_run r = run_action("probe selftest.crash", "fail", dir);
  EXPECT_EQ(r.rc, 1) << r.log;
  EXPECT_EQ(r.out["exit-code"], "1");
  EXPECT_EQ(r.out["status"], "fail");
  EXPECT_NE(r.summary.find("selftest.crash"), std::string::npos) << r.summary.substr(0, 400);
  r = run_action("probe selftest.crash", "never", dir);
  EXPECT_EQ(r.rc, 0) << r.log;
  EXPECT_EQ(r.out["exit-code"], "1") << "the output still says how gpustack ended";
  fs::remove_all(dir);
}

TEST(Action, BadInputsAreRefusedWithTheReason) {
  fs::path dir = scratch("bad");
  action_run r = run_action("rm -rf /", "fail", dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.log.find("command must start with check, probe"), std::string::npos) << r.log;
  r = run_action("check", "sometimes", dir);
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.log.find("fail-on must be fail or never"), std::string::npos) << r.log;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gs
