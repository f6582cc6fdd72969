// `gpustack check --container` as a user meets it: a compose file judged on a captured RDNA4
// machine and an image judged against an H200's driver, the three views, standard input, and the
// usage errors (a missing or unreadable spec, options that need --container, an unknown --gpu).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "support/run_binary.h"

namespace gs {
namespace {

using gs::testing::run_gpustack;

const std::string kMachines = std::string(GPUSTACK_SOURCE_DIR) + "/tests/fixtures/machines/";

std::string write_spec(const std::string& name, const std::string& text) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "gs-check-container";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name) << text;
  return (dir / name).string();
}

std::set<std::string> finding_ids(const nlohmann::json& report) {
  std::set<std::string> out;
  for (const auto& f : report["findings"]) out.insert(f["id"].get<std::string>());
  return out;
}

const char* kCompose = R"(services:
  trainer:
    image: rocm/pytorch:rocm6.2_ubuntu22.04_py3.10_pytorch_release_2.3.0
    devices: [/dev/kfd]
    ipc: host
    environment:
      HSA_OVERRIDE_GFX_VERSION: "11.0.0"
  web:
    image: nginx:1.27
)";

TEST(CheckContainer, ComposeOnACapturedRdna4Machine) {
  std::string spec = write_spec("docker-compose.yml", kCompose);
  auto r = run_gpustack("check --container '" + spec + "' --sysroot '" + kMachines + "r9700-rocm72' --json");
  ASSERT_EQ(r.rc, 1) << r.err;  // fail findings
  nlohmann::json j = nlohmann::json::parse(r.out);
  std::set<std::string> got = finding_ids(j);
  EXPECT_TRUE(got.count("GS-CONT-101")) << r.out;  // /dev/dri not passed
  EXPECT_TRUE(got.count("GS-ROCM-001")) << r.out;  // the image's ROCm 6.2 on gfx1201
  EXPECT_TRUE(got.count("GS-ENV-001")) << r.out;   // 11.0.0 baked in, on RDNA4
  EXPECT_EQ(j["container"]["kind"], "compose");
  ASSERT_EQ(j["container"]["containers"].size(), 2u);
  EXPECT_EQ(j["container"]["containers"][0]["rocm"], "6.2");
  for (const auto& f : j["findings"]) {
    EXPECT_EQ(f["evidence"].get<std::string>().rfind("trainer: ", 0), 0u) << f.dump();  // nginx draws nothing
    if (f["id"] == "GS-CONT-101") EXPECT_NE(f["remediation"].get<std::string>().find("devices: ["), std::string::npos);
  }
  auto human = run_gpustack("check --container '" + spec + "' --sysroot '" + kMachines + "r9700-rocm72' --no-color");
  EXPECT_NE(human.out.find("Container  " + spec + " (compose)"), std::string::npos) << human.out;
  EXPECT_NE(human.out.find("trainer: rocm/pytorch:"), std::string::npos) << human.out;
  auto md = run_gpustack("check --container '" + spec + "' --sysroot '" + kMachines + "r9700-rocm72' --markdown");
  EXPECT_NE(md.out.find("**Container:**"), std::string::npos) << md.out;
}

TEST(CheckContainer, ImageCudaAgainstTheH200Driver) {
  // The h200 capture runs driver 580 (CUDA 13.0): a CUDA 13.1 image is refused by the runtime.
  auto r = run_gpustack("check --container - --container-kind run --sysroot '" + kMachines + "h200' --json",
                        "docker run --gpus all --ipc=host nvidia/cuda:13.1.0-runtime-ubuntu24.04 nvidia-smi\n");
  ASSERT_EQ(r.rc, 1) << r.err;
  EXPECT_TRUE(finding_ids(nlohmann::json::parse(r.out)).count("GS-CONT-106")) << r.out;
  auto ok = run_gpustack("check --container - --sysroot '" + kMachines + "h200' --json",
                         "docker run --gpus all --ipc=host nvidia/cuda:13.0.1-runtime-ubuntu24.04 nvidia-smi\n");
  EXPECT_EQ(ok.rc, 0) << ok.out;
}

TEST(CheckContainer, GpuNamesTheCardAwayFromIt) {
  std::string spec = write_spec("Dockerfile", "FROM rocm/pytorch:rocm6.4.1_ubuntu24.04_py3.12_pytorch_release_2.6.0\n"
                                         "ENV HSA_OVERRIDE_GFX_VERSION=11.0.0\n");
  auto away = run_gpustack("check --container '" + spec + "' --sysroot '" + kMachines + "no-gpu' --json");
  EXPECT_TRUE(finding_ids(nlohmann::json::parse(away.out)).count("GS-CONT-108")) << away.out;
  auto named = run_gpustack("check --container '" + spec + "' --sysroot '" + kMachines + "no-gpu' --gpu 'RX 9070 XT' --json");
  std::set<std::string> got = finding_ids(nlohmann::json::parse(named.out));
  EXPECT_TRUE(got.count("GS-ENV-001")) << named.out;
  EXPECT_FALSE(got.count("GS-CONT-108"));
}

TEST(CheckContainer, UsageErrorsSayWhy) {
  auto missing = run_gpustack("check --container /nonexistent/Dockerfile");
  EXPECT_EQ(missing.rc, 2);
  EXPECT_NE(missing.err.find("--container /nonexistent/Dockerfile"), std::string::npos) << missing.err;
  auto unknown = run_gpustack("check --container '" + write_spec("notes.txt", "just some words\n") + "'");
  EXPECT_EQ(unknown.rc, 2);
  EXPECT_NE(unknown.err.find("--container-kind"), std::string::npos) << unknown.err;
  auto bad_yaml = run_gpustack("check --container '" + write_spec("compose.yaml", "services: [\n") + "'");
  EXPECT_EQ(bad_yaml.rc, 2);
  EXPECT_NE(bad_yaml.err.find("not valid YAML"), std::string::npos) << bad_yaml.err;
  auto stray = run_gpustack("check --gpu gfx1201");
  EXPECT_EQ(stray.rc, 2);
  EXPECT_NE(stray.err.find("go with --container"), std::string::npos) << stray.err;
  auto not_gpu = run_gpustack("check --container '" + write_spec("Dockerfile", "FROM ubuntu:24.04\n") + "' --gpu 'a toaster'");
  EXPECT_EQ(not_gpu.rc, 2);
  EXPECT_NE(not_gpu.err.find("--gpu a toaster"), std::string::npos) << not_gpu.err;
}

}  // namespace
}  // namespace gs
