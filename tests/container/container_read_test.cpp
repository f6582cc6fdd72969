// The container spec readers on small specs written for the case: shell words and sizes, the
// image's stack from its tag, pip lines, Dockerfile stages and ARGs, compose merge keys and typos,
// run lines with an alias or toolbox, Kubernetes pods inside operators' objects.
#include <gtest/gtest.h>

#include "container/container_read.h"
#include "container/container_spec.h"

namespace gs {
namespace {

using namespace container_read;

const container_info& only(const container_spec& s) {
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(s.containers.size(), 1u);
  static const container_info none;
  return s.containers.empty() ? none : s.containers[0];
}

TEST(ContainerRead, ShellWordsFollowQuotesAndComments) {
  EXPECT_EQ(shell_words(R"(docker run -e "A=b c" 'x y' z\ w # comment)"),
            (std::vector<std::string>{"docker", "run", "-e", "A=b c", "x y", "z w"}));
  EXPECT_EQ(shell_words(R"(a"b"'c' "\"q\"")"), (std::vector<std::string>{"abc", "\"q\""}));
}

TEST(ContainerRead, SizesUseEachToolsUnits) {
  EXPECT_DOUBLE_EQ(*docker_size("8g"), 8.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*docker_size("16GB"), 16.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*docker_size("512m"), 512.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*docker_size("1073741824"), 1073741824.0);
  EXPECT_FALSE(docker_size("eight"));
  EXPECT_DOUBLE_EQ(*k8s_quantity("16Gi"), 16.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*k8s_quantity("1G"), 1e9);
  EXPECT_FALSE(k8s_quantity("16gib"));
}

TEST(ContainerRead, SubstituteTakesDefaults) {
  std::map<std::string, std::string> vars{{"CUDA_VERSION", "12.6.0"}, {"EMPTY", ""}};
  EXPECT_EQ(substitute("nvidia/cuda:${CUDA_VERSION}-devel", vars), "nvidia/cuda:12.6.0-devel");
  EXPECT_EQ(substitute("${GID:-44}", vars), "44");
  EXPECT_EQ(substitute("${EMPTY:-x}", vars), "x");
  EXPECT_EQ(substitute("${UNSET}", vars), "${UNSET}");  // unknown: kept, so nothing is guessed
  EXPECT_EQ(substitute("$CUDA_VERSION/x", vars), "12.6.0/x");
}

TEST(ContainerRead, ImageTagsNameTheirStack) {
  auto stack = [](std::string image) {
    container_info c;
    c.image = std::move(image);
    read_image_stack(c);
    return c;
  };
  container_info r = stack("rocm/pytorch:rocm6.2.3_ubuntu22.04_py3.10_pytorch_release_2.3.0");
  EXPECT_EQ(r.image_rocm, "6.2.3");
  EXPECT_EQ(r.image_python, "3.10");
  EXPECT_EQ(r.image_torch, "2.3.0");
  EXPECT_EQ(stack("rocm/dev-ubuntu-24.04:6.4-complete").image_rocm, "6.4");
  EXPECT_EQ(stack("docker.io/rocm/vllm:rocm6.3.1_mi300_ubuntu22.04_py3.12_vllm_0.6.6").image_rocm, "6.3.1");
  container_info n = stack("nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04");
  EXPECT_EQ(n.image_cuda, "12.4.1");
  EXPECT_EQ(n.image_rocm, "");
  container_info p = stack("pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime");
  EXPECT_EQ(p.image_torch, "2.3.0");
  EXPECT_EQ(p.image_cuda, "12.1");
  EXPECT_EQ(stack("registry.local:5000/team/trainer:cu124").image_cuda, "12.4");
  container_info latest = stack("rocm/pytorch:latest");  // says nothing: nothing claimed
  EXPECT_EQ(latest.image_rocm, "");
  EXPECT_EQ(latest.image_torch, "");
}

TEST(ContainerRead, PipLinesNameTorchsIndex) {
  container_info c;
  read_pip_install(shell_words("python3 -m pip install --no-cache-dir torch==2.5.1 torchvision --index-url https://download.pytorch.org/whl/rocm6.2/"), c);
  EXPECT_EQ(c.torch_index, "rocm6.2");
  EXPECT_EQ(c.pip.at("torch"), "2.5.1");
  EXPECT_EQ(c.pip.at("torchvision"), "");
  EXPECT_FALSE(c.pip.count("python3"));
  container_info d;
  read_pip_install(shell_words("pip install -U torch transformers -r requirements.txt -c /tmp/c.txt"), d);
  EXPECT_EQ(d.torch_index, "pypi");
  EXPECT_EQ(d.pip_requirements, (std::vector<std::string>{"requirements.txt"}));
  EXPECT_TRUE(d.pip_constrained);
  container_info e;
  read_pip_install(shell_words("uv pip install torch==2.7.0+cu128"), e);
  EXPECT_EQ(e.torch_index, "cu128");
}

TEST(ContainerRead, DockerfileFollowsArgsStagesAndEnv) {
  const char* text = R"(ARG BASE=rocm/pytorch:rocm6.4_ubuntu24.04_py3.12_pytorch_release_2.6.0
FROM ${BASE} AS base
ENV HSA_OVERRIDE_GFX_VERSION=11.0.0 \
    PYTORCH_HIP_ALLOC_CONF="expandable_segments:True"
# a comment inside the file
RUN --mount=type=cache,target=/root/.cache/pip pip install -r requirements.txt && \
    pip install bitsandbytes==0.45.0
FROM base AS app
ENV LEGACY value with spaces
USER trainer
)";
  container_spec s = read_container_spec(text, "dockerfile");
  const container_info& c = only(s);
  EXPECT_EQ(c.image, "rocm/pytorch:rocm6.4_ubuntu24.04_py3.12_pytorch_release_2.6.0");
  EXPECT_EQ(c.image_rocm, "6.4");
  EXPECT_EQ(c.vendor, "amd");
  EXPECT_FALSE(c.runtime_known);
  EXPECT_EQ(c.env.at("HSA_OVERRIDE_GFX_VERSION"), "11.0.0");  // inherited from stage "base"
  EXPECT_EQ(c.env.at("PYTORCH_HIP_ALLOC_CONF"), "expandable_segments:True");
  EXPECT_EQ(c.env.at("LEGACY"), "value with spaces");
  EXPECT_EQ(c.user, "trainer");
  EXPECT_EQ(c.pip.at("bitsandbytes"), "0.45.0");
  EXPECT_EQ(c.pip_requirements.size(), 1u);
  EXPECT_NE(read_container_spec("RUN echo hi\n", "dockerfile").error, "");
}

TEST(ContainerRead, RunLinesReadOptionsAliasesAndToolbox) {
  const char* text = R"($ docker run -it --rm --device=/dev/kfd --device /dev/dri/renderD128 \
    --group-add video --ipc=host --shm-size 8g --security-opt seccomp=unconfined \
    -e HIP_VISIBLE_DEVICES=0 -v $HOME:/work --name trainer rocm/pytorch:rocm6.2_ubuntu22.04_py3.10_pytorch_2.3.0 python train.py
alias drun='podman run -it --device=/dev/kfd --group-add keep-groups'
drun ghcr.io/x/y:latest
toolbox create box --image docker.io/kyuz0/z:latest -- --device /dev/dri --group-add video
)";
  container_spec s = read_container_spec(text, "run");
  ASSERT_EQ(s.containers.size(), 3u);
  const container_info& a = s.containers[0];
  EXPECT_EQ(a.engine, "docker");
  EXPECT_EQ(a.name, "trainer");
  EXPECT_EQ(a.image, "rocm/pytorch:rocm6.2_ubuntu22.04_py3.10_pytorch_2.3.0");
  EXPECT_EQ(a.devices, (std::vector<std::string>{"/dev/kfd", "/dev/dri/renderD128"}));
  EXPECT_EQ(a.groups, (std::vector<std::string>{"video"}));
  EXPECT_TRUE(a.ipc_host);
  EXPECT_DOUBLE_EQ(*a.shm_bytes, 8.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(a.seccomp, "unconfined");
  EXPECT_EQ(a.env.at("HIP_VISIBLE_DEVICES"), "0");
  EXPECT_EQ(a.line, 1);
  EXPECT_EQ(s.containers[1].engine, "podman");
  EXPECT_EQ(s.containers[1].image, "ghcr.io/x/y:latest");
  EXPECT_EQ(s.containers[1].groups, (std::vector<std::string>{"keep-groups"}));
  EXPECT_EQ(s.containers[2].engine, "podman");  // toolbox is rootless podman
  EXPECT_EQ(s.containers[2].image, "docker.io/kyuz0/z:latest");
  EXPECT_EQ(s.containers[2].devices, (std::vector<std::string>{"/dev/dri"}));
  EXPECT_NE(read_container_spec("echo nothing here\n", "run").error, "");
}

TEST(ContainerRead, NvidiaRunLineRequestsGpus) {
  container_spec s = read_container_spec("docker run --gpus=all -d nvcr.io/nvidia/pytorch:24.05-py3\n", "run");
  const container_info& c = only(s);  // s outlives the reference
  EXPECT_EQ(c.gpu_request, "--gpus all");
  EXPECT_EQ(c.vendor, "nvidia");
  EXPECT_FALSE(c.shm_bytes);
}

TEST(ContainerRead, ACdiDeviceNameIsAGpuRequest) {
  // podman (and docker 25+) ask for GPUs by CDI name (nvidia-container-toolkit#1940's line)
  container_spec s = read_container_spec("podman run -it --rm --device nvidia.com/gpu=0 --security-opt=label=disable "
                                         "nvcr.io/nvidia/cuda-dl-base:26.05-cuda13.2-inference-devel-ubuntu24.04 bash\n",
                                         "run");
  EXPECT_EQ(only(s).gpu_request, "--device nvidia.com/gpu=0");
  EXPECT_TRUE(only(s).devices.empty());
  s = read_container_spec("docker run --device=/dev/kfd --device /dev/dri rocm/pytorch\n", "run");
  EXPECT_EQ(only(s).devices.size(), 2u) << "device nodes stay device nodes";
  EXPECT_EQ(only(s).gpu_request, "");
}

TEST(ContainerRead, AOneOffLookInsideTheImageIsNotTheWorkload) {
  // kyuz0/amd-strix-halo-toolboxes: the reporter listed the image's libraries this way; it passes
  // no GPU because it needs none.
  container_spec s = read_container_spec("docker run --rm -it --entrypoint bash kyuz0/amd-strix-halo-toolboxes:rocm-7.2.3 "
                                         "-c \"find / -name 'libllama*.so*' 2>/dev/null\"\n", "run");
  EXPECT_TRUE(s.containers.empty());
  EXPECT_NE(s.error.find("one-off"), std::string::npos) << s.error;
  EXPECT_TRUE(read_container_spec("docker run --rm rocm/pytorch ls /opt/rocm/lib\n", "run").containers.empty());
  // an interactive shell is where the workload runs next: still read
  EXPECT_EQ(read_container_spec("docker run -it --entrypoint /bin/bash rocm/pytorch\n", "run").containers.size(), 1u);
  EXPECT_EQ(read_container_spec("docker run -it --device /dev/kfd rocm/pytorch bash\n", "run").containers.size(), 1u);
}

TEST(ContainerRead, ComposeReadsServicesMergeKeysAndTypos) {
  const char* text = R"(x-gpu: &gpu
  devices:
    - /dev/kfd
    - /dev/dri
  group_add: ["video", "${RENDER_GID:-110}"]
services:
  trainer:
    <<: *gpu
    image: rocm/pytorch:rocm6.3_ubuntu22.04_py3.10_pytorch_release_2.4.0
    shm_size: 16gb
    environment:
      HSA_OVERRIDE_GFX_VERSION: "11.0.0"
  broken:
    image: ollama/ollama:rocm
    device:
      - /dev/fdk
    environment:
      - OLLAMA_HOST=0.0.0.0
  cuda:
    image: nvidia/cuda:12.4.1-base-ubuntu22.04
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: all
              capabilities: [gpu]
)";
  container_spec s = read_container_spec(text, "compose");
  ASSERT_EQ(s.error, "");
  ASSERT_EQ(s.containers.size(), 3u);
  const container_info& t = s.containers[0];
  EXPECT_EQ(t.name, "trainer");
  EXPECT_EQ(t.devices, (std::vector<std::string>{"/dev/kfd", "/dev/dri"}));  // from the merge key
  EXPECT_EQ(t.groups, (std::vector<std::string>{"video", "110"}));
  EXPECT_DOUBLE_EQ(*t.shm_bytes, 16.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(t.env.at("HSA_OVERRIDE_GFX_VERSION"), "11.0.0");
  const container_info& b = s.containers[1];
  EXPECT_TRUE(b.devices.empty());
  EXPECT_EQ(b.typos, (std::vector<std::string>{"device: (devices:?)", "/dev/fdk (/dev/kfd?)"}));
  EXPECT_EQ(b.env.at("OLLAMA_HOST"), "0.0.0.0");
  EXPECT_EQ(s.containers[2].gpu_request, "deploy.resources.reservations.devices (driver nvidia, count all)");
  EXPECT_NE(read_container_spec("services: [\n", "compose").error, "");  // not YAML: a clear error
  EXPECT_NE(read_container_spec("name: x\n", "compose").error, "");
}

TEST(ContainerRead, KubernetesFindsPodsInsideOperatorObjects) {
  const char* text = R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: finetune
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          runtimeClassName: nvidia
          containers:
            - name: pytorch
              image: pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime
              resources:
                limits:
                  nvidia.com/gpu: 2
              volumeMounts:
                - {name: dshm, mountPath: /dev/shm}
          volumes:
            - name: dshm
              emptyDir: {medium: Memory, sizeLimit: 8Gi}
---
apiVersion: v1
kind: Pod
metadata:
  name: rocm
spec:
  securityContext:
    runAsUser: 1000
    supplementalGroups: [44, 110]
  containers:
    - name: main
      image: rocm/pytorch:latest
      resources:
        limits:
          amd.com/gpu: 1
)";
  container_spec s = read_container_spec(text, "kubernetes");
  ASSERT_EQ(s.error, "");
  ASSERT_EQ(s.containers.size(), 2u);
  const container_info& p = s.containers[0];
  EXPECT_EQ(p.name, "pytorch");
  EXPECT_EQ(p.gpu_request, "nvidia.com/gpu: 2");
  EXPECT_EQ(p.runtime, "nvidia");
  EXPECT_DOUBLE_EQ(*p.shm_bytes, 8.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(p.image_cuda, "12.1");
  const container_info& r = s.containers[1];
  EXPECT_EQ(r.vendor, "amd");
  EXPECT_EQ(r.user, "1000");
  EXPECT_EQ(r.groups, (std::vector<std::string>{"44", "110"}));
  EXPECT_EQ(r.devices, (std::vector<std::string>{"/dev/kfd", "/dev/dri"}));  // the device plugin's
  EXPECT_NE(read_container_spec("apiVersion: v1\nkind: ConfigMap\n", "kubernetes").error, "");
}

TEST(ContainerRead, ShapesYamlCppCannotWalkAreErrorsNotCrashes) {
  // A libFuzzer run over the readers found the first (a null key under a merge) in CI.
  std::string t = "version: \"3.7\"\nservices:\n  my-    device:\n      - /dev/fdk\n      - /dev/dri\nnfined\n";
  EXPECT_NO_THROW(read_container_spec(t, "compose"));
  EXPECT_NO_THROW(read_container_spec("services:\n  a:\n    <<: 3\n    ? [x]\n    : y\n", "compose"));
  EXPECT_NO_THROW(read_container_spec("apiVersion: v1\nkind: Pod\nspec:\n  containers: [3, {name: [1]}]\n", "kubernetes"));
}

TEST(ContainerRead, KindFromNameThenContent) {
  EXPECT_EQ(container_spec_kind("docker/Dockerfile.rocm", ""), "dockerfile");
  EXPECT_EQ(container_spec_kind("Containerfile", ""), "dockerfile");
  EXPECT_EQ(container_spec_kind("deploy/docker-compose.gpu.yml", ""), "compose");
  EXPECT_EQ(container_spec_kind("job.yaml", "apiVersion: batch/v1\nkind: Job\n"), "kubernetes");
  EXPECT_EQ(container_spec_kind("x.yml", "version: '3'\nservices:\n  a: {}\n"), "compose");
  EXPECT_EQ(container_spec_kind("README.md", "Run it:\n\n    docker run --gpus all x\n"), "run");
  EXPECT_EQ(container_spec_kind("notes.txt", "toolbox create box --image x -- --device /dev/kfd\n"), "run");
  EXPECT_EQ(container_spec_kind("build.txt", "FROM ubuntu:22.04\nRUN true\n"), "dockerfile");
  EXPECT_EQ(container_spec_kind("notes.txt", "nothing\n"), "");
}

}  // namespace
}  // namespace gs
