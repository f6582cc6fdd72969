// The environment-variable table: relevant names collected, unrelated and secret ones not.
#include <gtest/gtest.h>

#include "detect/detect.h"
#include "detect/env_vars.h"

namespace gs {
namespace {

machine_facts collect(std::map<std::string, std::string> env) {
  sysroot sys = sysroot::captured(std::string(GPUSTACK_TEST_FIXTURES));
  sys.set_environment(std::move(env));
  machine_facts f;
  detect_env(sys, f);
  return f;
}

TEST(EnvVars, CollectsTheRelevantOnes) {
  machine_facts f = collect({{"HSA_OVERRIDE_GFX_VERSION", "11.0.0"},
                             {"HSA_OVERRIDE_GFX_VERSION_1", "12.0.1"},
                             {"ROCR_VISIBLE_DEVICES", "0"},
                             {"PYTORCH_HIP_ALLOC_CONF", "max_split_size_mb:512"},
                             {"PYTORCH_TUNABLEOP_ENABLED", "1"},
                             {"TRITON_LIBHIP_PATH", "/x/libamdhip64.so"},
                             {"FLA_USE_FAST_OPS", "1"},
                             {"MIOPEN_FIND_MODE", "FAST"},
                             {"NCCL_DEBUG", "INFO"},
                             {"LD_LIBRARY_PATH", "/opt/rocm/lib"},
                             {"VIRTUAL_ENV", "/home/u/.venv"},
                             {"HF_HOME", "/data/hf"},
                             {"BNB_ROCM_VERSION", "72"}});
  EXPECT_EQ(f.env.size(), 13u);
  EXPECT_EQ(f.env.at("HSA_OVERRIDE_GFX_VERSION_1"), "12.0.1");
  EXPECT_EQ(f.env.at("PYTORCH_HIP_ALLOC_CONF"), "max_split_size_mb:512");  // raw: redaction is at output
}

TEST(EnvVars, LeavesOutUnrelatedAndSecretNames) {
  machine_facts f = collect({{"HF_TOKEN", "hf_abcdefghijklmnopqrstuvwxyz"},
                             {"AWS_SECRET_ACCESS_KEY", "x"},
                             {"OPENAI_API_KEY", "sk-123"},
                             {"GITHUB_TOKEN", "ghp_x"},
                             {"TRITON_API_TOKEN", "x"},   // a secret-looking name inside a family
                             {"NCCL_PASSWORD", "x"},
                             {"HIP_AUTH_SECRET", "x"},
                             {"EDITOR", "vim"},
                             {"HOSTNAME", "box"},
                             {"HSA", "no underscore: not in the HSA_ family"},
                             {"CUDA_VISIBLE_DEVICES", "0"}});
  ASSERT_EQ(f.env.size(), 1u);
  EXPECT_EQ(f.env.begin()->first, "CUDA_VISIBLE_DEVICES");
}

TEST(EnvVars, SecretNamePattern) {
  EXPECT_TRUE(env_name_looks_secret("HF_TOKEN"));
  EXPECT_TRUE(env_name_looks_secret("my_api_key"));
  EXPECT_TRUE(env_name_looks_secret("DB_PASSWORD"));
  EXPECT_FALSE(env_name_looks_secret("HF_HOME"));
  EXPECT_FALSE(env_name_looks_secret("HSA_OVERRIDE_GFX_VERSION"));
}

TEST(EnvVars, ExactNamesAndPrefixes) {
  EXPECT_TRUE(is_relevant_env_var("CUDA_HOME"));
  EXPECT_TRUE(is_relevant_env_var("HIP_VISIBLE_DEVICES"));
  EXPECT_TRUE(is_relevant_env_var("PYTORCH_TUNABLEOP_FILENAME"));
  EXPECT_FALSE(is_relevant_env_var("PYTORCH_TUNABLEOP_"));  // a bare prefix is no variable
  EXPECT_FALSE(is_relevant_env_var("CUDA_HOMEX"));
  EXPECT_FALSE(is_relevant_env_var("cuda_home"));
  EXPECT_FALSE(is_relevant_env_var(""));
}

}  // namespace
}  // namespace gs
