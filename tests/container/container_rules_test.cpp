// Each rule of matrix/rules/container_specs.toml where it must fire and, beside it, the nearest
// spec where it must stay silent: the precision half that real mistakes alone do not show.
#include <gtest/gtest.h>

#include <set>

#include "container/container_facts.h"
#include "container/container_spec.h"
#include "explain/paste.h"
#include "rules/error_findings.h"

namespace gs {
namespace {

/// Rule ids drawn by `spec` (its kind read from its content) on a host with `gpu` and `driver`.
std::set<std::string> drawn_ids(const std::string& spec, const std::string& gpu = "", const std::string& driver = "") {
  machine_facts host;
  if (!gpu.empty()) host.gpus = read_paste("GPU: " + gpu).facts.gpus;
  host.stack.nvidia_driver = driver;
  container_spec s = read_container_spec(spec, container_spec_kind("", spec));
  EXPECT_EQ(s.error, "") << spec;
  std::set<std::string> out;
  for (const container_info& c : s.containers)
    for (const finding& f : container_findings(host, c, builtin_knowledge_base())) out.insert(f.id);
  return out;
}

const char* kRocmImage = "rocm/pytorch:rocm6.2_ubuntu22.04_py3.10_pytorch_release_2.3.0";

TEST(ContainerRules, DevicesMissing) {
  std::string img = kRocmImage;
  EXPECT_TRUE(drawn_ids("docker run --device=/dev/kfd --ipc=host " + img + "\n").count("GS-CONT-101"));
  EXPECT_FALSE(drawn_ids("docker run --device=/dev/kfd --device=/dev/dri --ipc=host " + img + "\n").count("GS-CONT-101"));
  EXPECT_FALSE(drawn_ids("docker run --privileged --ipc=host " + img + "\n").count("GS-CONT-101"));
  EXPECT_FALSE(drawn_ids("FROM " + img + "\n").count("GS-CONT-101"));  // a Dockerfile does not say how it runs
}

TEST(ContainerRules, NonRootWithoutDeviceGroups) {
  std::string devs = "docker run --device=/dev/kfd --device=/dev/dri --ipc=host ";
  EXPECT_TRUE(drawn_ids(devs + "--user 1000:1000 " + kRocmImage + "\n").count("GS-CONT-102"));
  EXPECT_FALSE(drawn_ids(devs + "--user 1000:1000 --group-add video " + kRocmImage + "\n").count("GS-CONT-102"));
  EXPECT_FALSE(drawn_ids(devs + kRocmImage + "\n").count("GS-CONT-102"));                               // root
  EXPECT_FALSE(drawn_ids(devs + "--user 1000 --group-add 110 " + kRocmImage + "\n").count("GS-CONT-102"));  // a GID: unknown
}

TEST(ContainerRules, RootlessPodmanKeepGroups) {
  EXPECT_TRUE(drawn_ids("podman run --device /dev/kfd --device /dev/dri --group-add video rocm/rocm-terminal\n").count("GS-CONT-103"));
  EXPECT_FALSE(drawn_ids("podman run --device /dev/kfd --device /dev/dri --group-add keep-groups rocm/rocm-terminal\n").count("GS-CONT-103"));
  EXPECT_FALSE(drawn_ids("docker run --device /dev/kfd --device /dev/dri --group-add video rocm/rocm-terminal\n").count("GS-CONT-103"));
}

TEST(ContainerRules, SharedMemory) {
  EXPECT_TRUE(drawn_ids("docker run --gpus all pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime\n").count("GS-CONT-104"));
  EXPECT_FALSE(drawn_ids("docker run --gpus all --ipc=host pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime\n").count("GS-CONT-104"));
  EXPECT_FALSE(drawn_ids("docker run --gpus all --shm-size=16g pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime\n").count("GS-CONT-104"));
  std::set<std::string> other = drawn_ids("docker run --gpus all ghcr.io/acme/trainer:1\n");  // torch not shown: a note
  EXPECT_TRUE(other.count("GS-CONT-113"));
  EXPECT_FALSE(other.count("GS-CONT-104"));
  EXPECT_FALSE(drawn_ids("docker run --gpus all ollama/ollama\n").count("GS-CONT-113"));  // known not to run torch
  EXPECT_FALSE(drawn_ids("docker run redis:7\n").count("GS-CONT-113"));  // no GPU container
}

TEST(ContainerRules, NvidiaWithoutGpuRequest) {
  EXPECT_TRUE(drawn_ids("docker run nvidia/cuda:12.4.1-runtime-ubuntu22.04 nvidia-smi\n").count("GS-CONT-105"));
  EXPECT_FALSE(drawn_ids("docker run --gpus all nvidia/cuda:12.4.1-runtime-ubuntu22.04 nvidia-smi\n").count("GS-CONT-105"));
  EXPECT_FALSE(drawn_ids("docker run --runtime=nvidia nvidia/cuda:12.4.1-runtime-ubuntu22.04 nvidia-smi\n").count("GS-CONT-105"));
}

TEST(ContainerRules, ImageCudaAgainstHostDriver) {
  std::string run = "docker run --gpus all nvidia/cuda:12.4.1-runtime-ubuntu22.04\n";
  EXPECT_TRUE(drawn_ids(run, "", "535.183.01").count("GS-CONT-106"));   // 535 runs CUDA 12.2
  EXPECT_FALSE(drawn_ids(run, "", "550.54.15").count("GS-CONT-106"));   // 550 runs 12.4: the same series
  EXPECT_FALSE(drawn_ids(run, "", "").count("GS-CONT-106"));            // no driver known: nothing claimed
  EXPECT_FALSE(drawn_ids("docker run --gpus all nvidia/cuda:12.2.2-base-ubuntu22.04\n", "", "535.54.03").count("GS-CONT-106"));
}

TEST(ContainerRules, CudaTorchOverRocmImage) {
  std::string from = std::string("FROM ") + kRocmImage + "\n";
  EXPECT_TRUE(drawn_ids(from + "RUN pip install torch==2.5.1\n").count("GS-CONT-107"));
  EXPECT_TRUE(drawn_ids(from + "RUN pip install torch --index-url https://download.pytorch.org/whl/cu124\n").count("GS-CONT-107"));
  EXPECT_FALSE(drawn_ids(from + "RUN pip install torch --index-url https://download.pytorch.org/whl/rocm6.2\n").count("GS-CONT-107"));
  EXPECT_FALSE(drawn_ids("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nRUN pip install torch\n").count("GS-CONT-107"));
}

TEST(ContainerRules, BakedOverride) {
  std::string spec = std::string("FROM ") + kRocmImage + "\nENV HSA_OVERRIDE_GFX_VERSION=11.0.0\n";
  EXPECT_TRUE(drawn_ids(spec).count("GS-CONT-108"));       // no AMD GPU here: a note that it follows the image
  std::set<std::string> on_rdna4 = drawn_ids(spec, "gfx1201");
  EXPECT_FALSE(on_rdna4.count("GS-CONT-108"));        // judged against the card instead
  EXPECT_TRUE(on_rdna4.count("GS-ENV-001"));          // the same rule as on a machine
}

TEST(ContainerRules, EmptyOverride) {
  std::string spec = "services:\n  a:\n    image: ollama/ollama:rocm\n    devices: [/dev/kfd, /dev/dri]\n"
                     "    environment:\n      - HSA_OVERRIDE_GFX_VERSION=${HSA_OVERRIDE_GFX_VERSION:-}\n";
  std::set<std::string> got = drawn_ids(spec, "gfx1201");
  EXPECT_TRUE(got.count("GS-CONT-109"));
  EXPECT_FALSE(got.count("GS-ENV-002"));  // superseded: one finding for one cause
}

TEST(ContainerRules, SeccompNoteEscalatesOnOldRocm) {
  EXPECT_TRUE(drawn_ids("docker run --device=/dev/kfd --device=/dev/dri rocm/rocm-terminal\n").count("GS-CONT-110"));
  EXPECT_FALSE(drawn_ids("docker run --device=/dev/kfd --device=/dev/dri --security-opt seccomp=unconfined rocm/rocm-terminal\n")
                   .count("GS-CONT-110"));
}

TEST(ContainerRules, RequirementsOverRocmTorch) {
  std::string from = std::string("FROM ") + kRocmImage + "\n";
  EXPECT_TRUE(drawn_ids(from + "RUN pip install -r requirements.txt\n").count("GS-CONT-112"));
  EXPECT_FALSE(drawn_ids(from + "RUN pip install -c /tmp/torch.txt -r requirements.txt\n").count("GS-CONT-112"));
  EXPECT_FALSE(drawn_ids(from + "ENV PIP_CONSTRAINT=/tmp/torch.txt\nRUN pip install -r requirements.txt\n").count("GS-CONT-112"));
}

TEST(ContainerRules, ImageRocmAgainstTheGpu) {
  // The image's ROCm fills rocm.version: GS-ROCM-001 judges it as it judges a machine's.
  std::string run = std::string("docker run --device=/dev/kfd --device=/dev/dri --ipc=host ") + kRocmImage + "\n";
  EXPECT_TRUE(drawn_ids(run, "RX 9070 XT").count("GS-ROCM-001"));
  EXPECT_FALSE(drawn_ids(run, "RX 7900 XTX").count("GS-ROCM-001"));
}

}  // namespace
}  // namespace gs
