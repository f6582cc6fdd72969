// The stack steps through the built binary: `gpustack probe py.sdpa --python /usr/bin/python3`
// on this torch-less machine says "torch is not installed" once (py.torch) and skips the step
// that depends on it with the dependency's name; the plain progress lines appear on a
// non-terminal stderr; --list shows every step with its dependencies.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "support/run_binary.h"

namespace gs {
namespace {

using cli_out = gs::testing::run_output;

TEST(StackCli, WithoutTorchTheReasonIsSaidOnceAndDependentsSkip) {
  std::optional<cli_out> ran = gs::testing::run_without_torch("probe py.sdpa");
  if (!ran) GTEST_SKIP() << "this Python has torch";
  const cli_out& r = *ran;
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.err.find("[1/2] py.torch ... skip: torch is not installed in " + gs::testing::torchless_python()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[2/2] py.sdpa ... skip: depends on py.torch which was skip"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("\r"), std::string::npos) << "a non-terminal gets plain lines, no redraws";
  nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["probes"].size(), 2u);
  EXPECT_EQ(j["probes"][0]["id"], "py.torch");
  EXPECT_EQ(j["probes"][0]["status"], "skip");
  EXPECT_EQ(j["probes"][1]["detail"], "depends on py.torch which was skip");
}

TEST(StackCli, ListShowsEveryStepAndItsDependencies) {
  cli_out r = gs::testing::run_gpustack("probe --list");
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const char* id : {"py.torch", "py.bnb.load", "py.bnb.int8", "py.bnb.nf4", "py.transformers.bnb", "py.peft.lora",
                         "py.trl.config", "py.sdpa", "py.triton", "llama_cpp.build", "vulkan.devices", "serving.settings"})
    EXPECT_NE(r.out.find(id), std::string::npos) << id;
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind("py.bnb.nf4 ", 0) == 0) {
      EXPECT_NE(line.find("py.bnb.load"), std::string::npos) << line;
    }
}

}  // namespace
}  // namespace gs
