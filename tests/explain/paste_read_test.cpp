// Reading pasted text: normalisation, each extractor's shapes, the weighing of sources, and the
// partial-fact semantics the rules see (what a paste does not say is unknown, not absent).
#include <gtest/gtest.h>

#include <map>

#include "explain/explain.h"
#include "explain/gpu_names.h"
#include "explain/paste.h"
#include "rules/error_findings.h"

namespace gs {
namespace {

std::map<std::string, std::string> facts_of(const paste_reading& r) {
  std::map<std::string, std::string> m;
  for (const pasted_fact& f : r.facts_read) m[f.key] = f.value;
  return m;
}

bool has_kind(const paste_reading& r, const std::string& k) {
  return std::find(r.kinds.begin(), r.kinds.end(), k) != r.kinds.end();
}

TEST(PasteText, MarkdownAndHtmlLayoutGoTracebackWordsStay) {
  std::vector<std::string> l = normalise_paste(
      "### Describe the bug\r\n<details><summary>Log</summary>\n\n```python\n  File \"x.py\", line 1, in <module>\n"
      "```\n</details>\n> > quoted &lt;b&gt;\n\x1b[31mRuntimeError\x1b[0m: boom\n");
  std::vector<std::string> want = {"### Describe the bug", "Log", "", "  File \"x.py\", line 1, in <module>", "",
                                   "quoted <b>", "RuntimeError: boom", ""};
  EXPECT_EQ(l, want);
  EXPECT_EQ(normalise_paste("it fails with ```RuntimeError: boom``` here"), (std::vector<std::string>{"it fails with RuntimeError: boom here"}))
      << "inline code on one line is text, not a fence";
  // A value bolded in the prose or a listing loses its markers; Python's ** stays.
  EXPECT_EQ(normalise_paste("crw-rw---- 1 root **148** 236, 0 Jul 23 18:21 /dev/kfd\nf(**kwargs) and 2**8 and a ** b"),
            (std::vector<std::string>{"crw-rw---- 1 root 148 236, 0 Jul 23 18:21 /dev/kfd", "f(**kwargs) and 2**8 and a ** b"}));
}

TEST(GpuNames, LongestSpellingWinsAndDigitsDoNotRunOn) {
  auto a = find_gpu_names("an RX 6800M laptop");
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].arch, "gfx1031");
  auto b = find_gpu_names("Radeon RX9070XT and a GeForce RTX 4090");
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].arch, "gfx1201");
  EXPECT_EQ(b[1].arch, "sm_89");
  EXPECT_TRUE(find_gpu_names("port 90700, rx 90700, h2000").empty());
  // Laptop Maxwell parts and Polaris 12 are their own targets, not their desktop neighbours'.
  for (auto [text, arch] : {std::pair{"a GTX 950M laptop", "sm_50"}, {"GTX 950", "sm_52"}, {"Radeon PRO WX 3100", "gfx804"},
                            {"RX 580 8GB", "gfx803"}, {"my Steam Deck", "gfx1033"},
                            // Datacenter cards named without "Tesla"/"Instinct", and RDNA2 laptop parts whose
                            // desktop namesake is another die (RX 6800S is Navi 23, not the 6800's Navi 21).
                            {"two P40 cards", "sm_61"}, {"an M40 24GB", "sm_52"}, {"Tesla K40m", "sm_35"},
                            {"Radeon Instinct MI8", "gfx803"}, {"RX 6800S laptop", "gfx1032"}, {"RX 6700M", "gfx1031"}}) {
    auto h = find_gpu_names(text);
    ASSERT_EQ(h.size(), 1u) << text;
    EXPECT_EQ(h[0].arch, arch) << text;
  }
  EXPECT_TRUE(gpu_names_errors().empty());
}

TEST(PasteRead, CollectEnvOnRocm) {
  paste_reading r = read_paste(
      "Collecting environment information...\nPyTorch version: 2.5.1+rocm6.2\nIs debug build: False\n"
      "CUDA used to build PyTorch: N/A\nROCM used to build PyTorch: 6.2.41133-dd7f95766\n\n"
      "OS: Ubuntu 22.04.5 LTS (x86_64)\nPython version: 3.10.12 (main, Nov  6 2024) [GCC 11.4.0] (64-bit runtime)\n"
      "Python platform: Linux-6.8.0-49-generic-x86_64-with-glibc2.35\n"
      "GPU models and configuration: AMD Radeon RX 7900 XTX (gfx1100)\n"
      "[pip3] pytorch-triton-rocm==3.1.0\n[pip3] torch==2.5.1+rocm6.2\n");
  auto f = facts_of(r);
  EXPECT_TRUE(has_kind(r, "collect_env"));
  EXPECT_EQ(f["pkg.torch"], "2.5.1+rocm6.2");
  EXPECT_EQ(f["pkg.pytorch-triton-rocm"], "3.1.0");
  EXPECT_EQ(f["torch.hip"], "6.2") << "HIP's build number cut to what rules compare";
  EXPECT_EQ(r.facts.python.torch_hip, "6.2");
  EXPECT_EQ(f["gpu.arch"], "gfx1100");
  EXPECT_EQ(f["python.version"], "3.10.12");
  EXPECT_EQ(f["host.kernel"], "6.8.0-49-generic");
  EXPECT_EQ(f["host.os_id"], "ubuntu");
  EXPECT_EQ(f.count("rocm.version"), 0u) << "torch's +rocm6.2 is not the system's ROCm";
  ASSERT_EQ(r.facts.gpus.size(), 1u);
  EXPECT_EQ(r.facts.gpus[0].family, "rdna3");
  EXPECT_TRUE(r.facts.coverage.partial);
  EXPECT_TRUE(r.facts.coverage.gpus_complete);
}

TEST(PasteRead, CollectEnvWithTwoGpusOnOneLine) {
  // ROCm's collect_env can join the GPUs with "; " (KB round 16 met it in a real report): both are
  // GPUs of the paste, not the first alone (a rule about the second one's arch needs it).
  paste_reading r = read_paste(
      "PyTorch version: 2.6.0+rocm6.2.4\nROCM used to build PyTorch: 6.2.41134\n"
      "GPU models and configuration: AMD Radeon RX 7900 XTX (gfx1100); AMD Radeon Graphics (gfx1036)\n");
  ASSERT_EQ(r.facts.gpus.size(), 2u);
  EXPECT_EQ(r.facts.gpus[0].arch, "gfx1100");
  EXPECT_EQ(r.facts.gpus[1].arch, "gfx1036");
}

TEST(PasteRead, RocminfoAgentsAreTheGpus) {
  paste_reading r = read_paste(
      "ROCk module version 6.8.5 is loaded\n*******\nAgent 2\n*******\n  Name:                    gfx1100\n"
      "  Marketing Name:          AMD Radeon RX 7900 XTX\n  Device Type:             GPU\n"
      "      Name:                    amdgcn-amd-amdhsa--gfx1100\n*******\nAgent 3\n*******\n"
      "  Name:                    gfx1036\n  Marketing Name:          AMD Radeon Graphics\n");
  EXPECT_TRUE(has_kind(r, "rocminfo"));
  ASSERT_EQ(r.facts.gpus.size(), 2u) << "an integrated GPU beside the card is a fact rules need";
  EXPECT_EQ(r.facts.gpus[0].arch, "gfx1100");
  EXPECT_EQ(r.facts.gpus[0].name, "AMD Radeon RX 7900 XTX");
  EXPECT_EQ(r.facts.gpus[1].arch, "gfx1036");
}

TEST(PasteRead, NvidiaSmiTable) {
  paste_reading r = read_paste(
      "+-----------------------------------------------------------------------------------------+\n"
      "| NVIDIA-SMI 570.86.10              Driver Version: 570.86.10      CUDA Version: 12.8     |\n"
      "|-----------------------------------------+------------------------+----------------------+\n"
      "|   0  NVIDIA GeForce RTX 5090        Off |   00000000:01:00.0  On |                  N/A |\n");
  auto f = facts_of(r);
  EXPECT_EQ(f["nvidia.driver"], "570.86.10");
  EXPECT_EQ(f["cuda.driver_api"], "12.8");
  EXPECT_EQ(f["gpu.arch"], "sm_120");
  ASSERT_EQ(r.facts.gpus.size(), 1u);
  EXPECT_EQ(r.facts.gpus[0].compute_capability, "12.0");
}

TEST(PasteRead, PackagesFromListsAndProse) {
  std::string freeze;
  for (int i = 0; i < 30; ++i) freeze += "pkg" + std::to_string(i) + "==1." + std::to_string(i) + "\n";
  paste_reading r = read_paste(freeze + "bitsandbytes==0.45.0\nI use transformers v4.46.2 and peft version: 0.13.0\n");
  auto f = facts_of(r);
  EXPECT_EQ(f["pkg.bitsandbytes"], "0.45.0");
  EXPECT_EQ(f["pkg.transformers"], "4.46.2");
  EXPECT_EQ(f["pkg.peft"], "0.13.0");
  EXPECT_TRUE(r.facts.coverage.packages_complete);

  paste_reading t = read_paste("Package    Version\n---------- -------\ntorch      2.6.0+cu124\ntriton     3.2.0\n");
  EXPECT_EQ(facts_of(t)["pkg.torch"], "2.6.0+cu124");
  EXPECT_EQ(facts_of(t)["torch.cuda"], "12.4");
  EXPECT_FALSE(t.facts.coverage.packages_complete) << "two rows are not a whole environment";
  std::string cut = "Package    Version\n---------- -------\n";
  for (int i = 0; i < 25; ++i) cut += "pkg" + std::to_string(i) + "    1." + std::to_string(i) + "\n";
  EXPECT_FALSE(read_paste(cut).facts.coverage.packages_complete) << "a list without pip or setuptools was cut by someone";
  EXPECT_TRUE(read_paste(cut + "pip    24.2\n").facts.coverage.packages_complete);

  paste_reading c = read_paste("# packages in environment at /home/user/miniconda3/envs/x:\n#\n"
                               "# Name    Version   Build  Channel\npytorch   2.1.0   py3.10_cuda12.1_cudnn8.9.2_0  pytorch\n");
  EXPECT_EQ(facts_of(c)["pkg.torch"], "2.1.0");
  EXPECT_TRUE(has_kind(c, "conda list"));
}

// The torch build a pip or uv command asks for by pytorch.org's index: the weakest reading, and
// none when two indexes are named (which one the failing install used is not said).
TEST(PasteRead, TheTorchIndexOfAnInstallCommandNamesItsBuild) {
  auto f = facts_of(read_paste("pip install torch torchvision --index-url https://download.pytorch.org/whl/cu126\n"));
  EXPECT_EQ(f["torch.cuda"], "12.6");
  EXPECT_EQ(facts_of(read_paste("pip install --pre torch --index-url https://download.pytorch.org/whl/nightly/cu128\n"))["torch.cuda"],
            "12.8");
  EXPECT_EQ(facts_of(read_paste("uv pip install invokeai --index=https://download.pytorch.org/whl/rocm6.3\n"))["torch.hip"], "6.3");
  EXPECT_EQ(facts_of(read_paste("--extra-index-url https://download.pytorch.org/whl/cu118\ntorch==2.1.2\n"))["torch.cuda"], "11.8");
  EXPECT_FALSE(facts_of(read_paste("pip install torch --index-url https://download.pytorch.org/whl/cu126\n"
                                   "then pip install torch --index-url https://download.pytorch.org/whl/cu128\n"))
                   .count("torch.cuda"))
      << "two indexes: which one failed is not said";
  EXPECT_FALSE(facts_of(read_paste("see https://download.pytorch.org/whl/cu126 for the wheels\n")).count("torch.cuda"))
      << "a link in prose installs nothing";
  EXPECT_EQ(facts_of(read_paste("pip install torch --index-url https://download.pytorch.org/whl/cu126\ntorch 2.7.0+cu128\n"))["torch.cuda"],
            "12.8")
      << "the installed wheel's own label outweighs the index";
  EXPECT_FALSE(facts_of(read_paste("pip install torch --index-url https://download.pytorch.org/whl/cpu\n")).count("torch.cuda"));
}

// An APU named by its CPU model: its iGPU, on a line that speaks of graphics, and only when the
// paste names no GPU of its own.
TEST(PasteRead, AnApusCpuModelNamesItsIntegratedGpuAsTheWeakestReading) {
  EXPECT_EQ(facts_of(read_paste("AMD Ryzen 5 4500U with Radeon Graphics\n"))["gpu.arch"], "gfx90c");
  EXPECT_EQ(facts_of(read_paste("iGpu: vega 6 (ryzen 5 4500u)\n"))["gpu.arch"], "gfx90c");
  EXPECT_EQ(facts_of(read_paste("the iGPU of my Ryzen 7 6800H\n"))["gpu.arch"], "gfx1035");
  EXPECT_FALSE(facts_of(read_paste("CPU: AMD Ryzen 7 7840HS\n")).count("gpu.arch")) << "a CPU line that says nothing of graphics";
  EXPECT_EQ(facts_of(read_paste("CPU: AMD Ryzen 5 4500U with Radeon Graphics\nGPU: NVIDIA GeForce GTX 1650\n"))["gpu.arch"], "sm_75")
      << "a named GPU outranks the iGPU a CPU implies";
  EXPECT_EQ(facts_of(read_paste("Ryzen 7 7840HS with Radeon Graphics and an RTX 4060 laptop GPU\n"))["gpu.arch"], "sm_89");
}

// An issue form's labels and examples (TensorFlow's template): the example in parentheses is the
// template's, the answer after the colon the reporter's; a note between label and value is skipped.
TEST(PasteRead, IssueFormExamplesAreNotFacts) {
  paste_reading r = read_paste("- OS Platform and Distribution (e.g., Linux Ubuntu 16.04): Windows 10\n"
                               "- TensorFlow version (use command below): 2.3.0\n");
  auto f = facts_of(r);
  EXPECT_EQ(f["host.os_id"], "windows");
  EXPECT_NE(f["host.os_version"], "16.04");
  EXPECT_EQ(f["pkg.tensorflow"], "2.3.0");
  EXPECT_EQ(facts_of(read_paste("I run tensorflow-gpu 2.2.0 on Ubuntu 20.04\n"))["pkg.tensorflow"], "2.2.0");
  EXPECT_EQ(facts_of(read_paste("- OS: Ubuntu 22.04 (e.g. our lab box)\n"))["host.os_version"], "22.04");
  EXPECT_EQ(facts_of(read_paste("torch (2.3.0) with CUDA 12.1\n"))["pkg.torch"], "");  // a bare parenthesis is no label
}

// The CUDA toolkit where the words say toolkit (tfjs#8187's "installed cuda toolkit 12.3"), an apt
// package or a /usr/local path; not one a message asks for. A debugger's banner names the distro that
// built it, not the release (llama.cpp#5326: "GNU gdb (Ubuntu 12.1-0ubuntu1~22.04) 12.1").
TEST(PasteRead, CudaToolkitFromItsOwnWordsAndNoOsFromABanner) {
  EXPECT_EQ(facts_of(read_paste("I first installed cuda toolkit 12.3 in windows side\n"))["cuda.toolkit"], "12.3");
  EXPECT_EQ(facts_of(read_paste("sudo apt-get -y install cuda-toolkit-12-4\n"))["cuda.toolkit"], "12.4");
  EXPECT_EQ(facts_of(read_paste("export PATH=/usr/local/cuda-11.8/bin:$PATH\n"))["cuda.toolkit"], "11.8");
  EXPECT_EQ(facts_of(read_paste("this release requires CUDA Toolkit 12.4 or later\n"))["cuda.toolkit"], "");
  EXPECT_EQ(facts_of(read_paste("cuda-toolkit-12 meta package\n"))["cuda.toolkit"], "") << "a major alone";
  auto f = facts_of(read_paste("GNU gdb (Ubuntu 12.1-0ubuntu1~22.04) 12.1\n"));
  EXPECT_NE(f["host.os_version"], "12.1");
  EXPECT_EQ(facts_of(read_paste("gcc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0\n"))["host.os_version"], "");
}

// Where the report says it runs under WSL: a prompt on a Windows drive's mount, "on WSL" in a title;
// nvidia-container-cli's WSL probe on every host says nothing of the kind, and its lines reach no rule.
TEST(PasteRead, WslFromPromptsAndTitlesNotFromTheContainerCliProbe) {
  EXPECT_EQ(facts_of(read_paste("CUDA not found on WSL\n"))["host.container_kind"], "wsl");
  EXPECT_EQ(facts_of(read_paste("(textgen) user@host:/mnt/c/Users/user/dev$ python server.py\n"))["host.container_kind"], "wsl");
  EXPECT_EQ(facts_of(read_paste("the bug is on wslg's side? no: on a plain Ubuntu box\n"))["host.container_kind"], "");
  paste_reading r = read_paste("I0831 10:36:45.129960 2174149 nvc.c:393] attempting to load dxcore to see if we are running under Windows "
                               "Subsystem for Linux (WSL)\nI0831 10:36:45.130000 2174149 nvc.c:408] dxcore initialization failed, continuing "
                               "assuming a non-WSL environment\n");
  EXPECT_EQ(facts_of(r)["host.container_kind"], "");
  ASSERT_GE(r.lines.size(), 2u);
  EXPECT_EQ(r.lines[0], "");
  EXPECT_EQ(r.lines[1], "");
}

// conda names torch's CUDA in its build string, not in the version (pytorch/pytorch#72957 shape).
TEST(PasteRead, CondaBuildStringsSayWhatTorchWasBuiltFor) {
  auto row = facts_of(read_paste("pytorch                   1.10.2          py3.7_cuda10.2_cudnn7.6.5_0    pytorch\n"));
  EXPECT_EQ(row["pkg.torch"], "1.10.2");
  EXPECT_EQ(row["torch.cuda"], "10.2");
  auto forge = facts_of(read_paste("[conda] pytorch 2.1.2 cuda118_py310h1234567_300 conda-forge\n"));
  EXPECT_EQ(forge["torch.cuda"], "11.8");
  paste_reading cpu = read_paste("# packages in environment at /home/user/miniconda3:\n"
                                 "pytorch   2.1.0   py3.10_cpu_0  pytorch\n");
  EXPECT_TRUE(cpu.facts.python.torch_build_known);
  EXPECT_EQ(facts_of(cpu).count("torch.cuda"), 0u);
  auto other = facts_of(read_paste("pytorch-cuda              11.8                 h7e8668a_5    pytorch\n"));
  EXPECT_EQ(other.count("torch.cuda"), 0u) << "pytorch-cuda's version is not torch's build";
}

// How people write versions in a sentence: a whole series, and the host's RAM.
TEST(PasteRead, ProseSeriesVersionsAndHostRam) {
  EXPECT_EQ(facts_of(read_paste("vllm 0.11.0 breaks with transformers 5.x\n"))["pkg.transformers"], "5");
  EXPECT_EQ(facts_of(read_paste("vllm 0.11.0 breaks with transformers 5.x\n"))["pkg.vllm"], "0.11.0");
  EXPECT_EQ(facts_of(read_paste("transformers 5.xyz\n")).count("pkg.transformers"), 0u);
  EXPECT_EQ(facts_of(read_paste("OOM with 64G ram and 13B model\n"))["host.ram_bytes"], "64000000000");
  EXPECT_EQ(facts_of(read_paste("my box has 32 GB of RAM\n"))["host.ram_bytes"], "32000000000");
  EXPECT_EQ(facts_of(read_paste("RX 7600 with 8GB RAM\n")).count("host.ram_bytes"), 0u) << "a card's memory";
  EXPECT_EQ(facts_of(read_paste("24GB VRAM\n")).count("host.ram_bytes"), 0u);
  EXPECT_EQ(facts_of(read_paste("RTX 4090, 128GB RAM\n"))["host.ram_bytes"], "128000000000");
  EXPECT_EQ(facts_of(read_paste("the 7B param model\n")).count("host.ram_bytes"), 0u);
}

// A requirement stated against the installed version: only "you have ..." is installed.
TEST(PasteRead, YouHaveIsInstalledTheRequirementIsNot) {
  // xFormers' banner (unslothai/unsloth, 2026): the first torch is the one it was built for.
  auto x = facts_of(read_paste("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
                               "    PyTorch 2.10.0+cu128 with CUDA 1208 (you have 2.11.0+cu130)\n"));
  EXPECT_EQ(x["pkg.torch"], "2.11.0+cu130");
  EXPECT_EQ(x["torch.cuda"], "13.0");
  // pip's resolver (AUTOMATIC1111/stable-diffusion-webui#9278): xformers is installed, torch==2.0.0 is not.
  auto p = facts_of(read_paste("xformers 0.0.18 requires torch==2.0.0, but you have torch 1.13.0 which is incompatible.\n"));
  EXPECT_EQ(p["pkg.torch"], "1.13.0");
  EXPECT_EQ(p["pkg.xformers"], "0.0.18");
}

TEST(PasteRead, CollectEnvCondaRowsAndATorchThatDidNotImport) {
  // A column-aligned [conda] row once read through a dangling view (found by the held-out run).
  paste_reading r = read_paste("[conda] pytorch                   2.1.0           py3.10_cuda12.1_cudnn8.9.2_0    pytorch\n"
                               "[conda] torchvision               0.16.0               py310_cu121    pytorch\n");
  EXPECT_EQ(facts_of(r)["pkg.torch"], "2.1.0");
  EXPECT_EQ(facts_of(r)["pkg.torchvision"], "0.16.0");
  // "N/A" everywhere: torch failed to import, which is not a CPU build (GS-TORCH-001 must not fire).
  paste_reading na = read_paste("PyTorch version: N/A\nCUDA used to build PyTorch: N/A\nROCM used to build PyTorch: N/A\n"
                                "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090\ntorch==2.6.0\n");
  EXPECT_FALSE(na.facts.python.torch_build_known);
  paste_reading cpu = read_paste("PyTorch version: 2.6.0+cpu\nCUDA used to build PyTorch: None\nROCM used to build PyTorch: N/A\n");
  EXPECT_TRUE(cpu.facts.python.torch_build_known);
}

TEST(PasteRead, WhatPipSaysWhileInstalling) {
  paste_reading r = read_paste(
      "Successfully installed bitsandbytes-0.45.0 triton-3.1.0\n"
      "Requirement already satisfied: torch>=2.0 in ./venv/lib/python3.10/site-packages (2.5.1+cu124)\n"
      "Downloading https://download.pytorch.org/whl/rocm6.2/torchvision-0.20.1%2Brocm6.2-cp310-cp310-linux_x86_64.whl\n"
      "$ python -c 'import torch; print(torch.__version__, torch.version.hip)'\n2.5.1+rocm6.2 6.2.41133-dd7f95766\n");
  auto f = facts_of(r);
  EXPECT_EQ(f["pkg.bitsandbytes"], "0.45.0");
  EXPECT_EQ(f["pkg.triton"], "3.1.0");
  EXPECT_EQ(f["pkg.torchvision"], "0.20.1+rocm6.2");
  EXPECT_EQ(f["torch.hip"], "6.2");
  EXPECT_TRUE(f["pkg.torch"] == "2.5.1+cu124" || f["pkg.torch"] == "2.5.1+rocm6.2") << f["pkg.torch"];
}

TEST(PasteRead, AVersionWrittenAsTheModuleAttribute) {
  // flash-attention#1480: "torch.__version__  = 2.1.2+cu118"; the attribute is where Python keeps it
  auto f = facts_of(read_paste("torch.__version__  = 2.1.2+cu118\ntransformers.__version__: 4.46.2\n"));
  EXPECT_EQ(f["pkg.torch"], "2.1.2+cu118");
  EXPECT_EQ(f["torch.cuda"], "11.8");
  EXPECT_EQ(f["pkg.transformers"], "4.46.2");
  // an attribute that is not the version names none
  EXPECT_EQ(facts_of(read_paste("torch.__file__ = 2.1.2\n")).count("pkg.torch"), 0u);
}

TEST(PasteRead, ACommandRunInsideAContainerPlacesThePaste) {
  // lemonade#2799: the device error was seen inside the container, so its groups are the container's
  auto f = facts_of(read_paste("rocminfo inside of docker shows Permission denied for /dev/kfd and /dev/dri\n"));
  EXPECT_EQ(f["host.container_kind"], "docker");
  EXPECT_EQ(facts_of(read_paste("podman exec -it llm rocminfo\n"))["host.container_kind"], "podman");
  EXPECT_EQ(facts_of(read_paste("rocminfo shows Permission denied for /dev/kfd\n")).count("host.container_kind"), 0u);
}

TEST(PasteRead, EnvironmentShapes) {
  paste_reading r = read_paste(
      "export HSA_OVERRIDE_GFX_VERSION=10.3.0\nset CUDA_VISIBLE_DEVICES=1\n$env:PYTORCH_CUDA_ALLOC_CONF=\"expandable_segments:True\"\n"
      "ROCR_VISIBLE_DEVICES=0 python train.py\nos.environ[\"HIP_VISIBLE_DEVICES\"] = \"0\"\n"
      "I also tried `PYTORCH_HIP_ALLOC_CONF=max_split_size_mb:128` without luck.\nif a==b: pass\n");
  auto f = facts_of(r);
  EXPECT_EQ(f["env.HSA_OVERRIDE_GFX_VERSION"], "10.3.0");
  EXPECT_EQ(f["env.CUDA_VISIBLE_DEVICES"], "1");
  EXPECT_EQ(f["env.PYTORCH_CUDA_ALLOC_CONF"], "expandable_segments:True");
  EXPECT_EQ(f["env.ROCR_VISIBLE_DEVICES"], "0");
  EXPECT_EQ(f["env.HIP_VISIBLE_DEVICES"], "0");
  EXPECT_EQ(f["env.PYTORCH_HIP_ALLOC_CONF"], "max_split_size_mb:128");
  EXPECT_FALSE(r.facts.coverage.env_complete);
}

TEST(PasteRead, ProseGpuNamesThatDisagreeAreNotGuessed) {
  paste_reading one = read_paste("My RX 9070 XT hangs. The 9070 XT is new.\n");
  ASSERT_EQ(one.facts.gpus.size(), 1u);
  EXPECT_EQ(one.facts.gpus[0].arch, "gfx1201");
  paste_reading two = read_paste("It works on my RTX 3090 but not on the RTX 4090.\n");
  EXPECT_TRUE(two.facts.gpus.empty());
  ASSERT_FALSE(two.ambiguities.empty());
  EXPECT_NE(two.ambiguities[0].find("sm_86"), std::string::npos);
}

TEST(PasteRead, GfxTargetsWrittenWithASpaceOrDash) {
  // People write "gfx 1032" or "gfx-1031" in prose; it is the same target.
  paste_reading a = read_paste("My card is gfx 1032 and ollama only uses the cpu.\n");
  ASSERT_EQ(a.facts.gpus.size(), 1u);
  EXPECT_EQ(a.facts.gpus[0].arch, "gfx1032");
  paste_reading b = read_paste("an MI50 (gfx-906) on ROCm 6.3\n");
  ASSERT_EQ(b.facts.gpus.size(), 1u);
  EXPECT_EQ(b.facts.gpus[0].arch, "gfx906");
  // Not a target: too many digits, or none.
  EXPECT_TRUE(read_paste("gfx 90878 and gfx - something\n").facts.gpus.empty());
}

TEST(PasteRead, ACudaDriverVersionLabelHoldingADriverBranchIsTheDriver) {
  // SGLang's environment dump: "CUDA Driver Version: 535.216.01" is the NVIDIA driver, not a CUDA version.
  paste_reading r = read_paste("GPU 0,1: NVIDIA A10\nCUDA Driver Version: 535.216.01\nPyTorch: 2.6.0+cu124\n");
  EXPECT_EQ(r.facts.stack.cuda_driver_api, "");
  EXPECT_EQ(r.facts.stack.nvidia_driver, "535.216.01");
  paste_reading c = read_paste("CUDA Driver Version: 12.4\n");
  EXPECT_EQ(c.facts.stack.cuda_driver_api, "12.4");
}

TEST(PasteRead, AnIdEqualsInsideAnAppLogIsNotOsRelease) {
  // Ollama's discovery lines continue with "id=0 library=ROCm ..."; os-release's ID is one word.
  paste_reading r = read_paste("    msg=\"dropping integrated GPU\"\n    id=0 library=ROCm compute=gfx1100 name=ROCm0\n");
  EXPECT_EQ(r.facts.host.os_id, "");
  paste_reading o = read_paste("NAME=\"Ubuntu\"\nID=ubuntu\nVERSION_ID=\"24.04\"\n");
  EXPECT_EQ(o.facts.host.os_id, "ubuntu");
}

TEST(PasteRead, AnIssueFormsGpuLineNamesEveryCardOfTheMachine) {
  // Shapes from ROCm issue forms: the labelled line is the machine; the prose asks about others.
  paste_reading two = read_paste(
      "Whenever I run PyTorch on the AMD MI210 the process aborts.\n"
      "### Operating System\nUbuntu 24.04\n- **GPU**: AMD Instinct MI210, AMD Radeon RX 6600\n");
  ASSERT_EQ(two.facts.gpus.size(), 2u);
  EXPECT_EQ(two.facts.gpus[0].arch, "gfx90a");
  EXPECT_EQ(two.facts.gpus[1].arch, "gfx1032");
  EXPECT_TRUE(two.ambiguities.empty());
  paste_reading asked = read_paste(
      "hipBLASLt supports only gfx90a GPUs. Can the MI100 still use PyTorch?\n| GPU | AMD Instinct MI100 |\n");
  ASSERT_EQ(asked.facts.gpus.size(), 1u);
  EXPECT_EQ(asked.facts.gpus[0].arch, "gfx908");
  // "Device: cuda:0" labels no card.
  EXPECT_TRUE(read_paste("Device: cuda:0\n").facts.gpus.empty());
}

TEST(PasteRead, ApplicationStartUpLogsNameTheGpuAndPlatform) {
  // Line shapes from real reports: Ollama's server log (ollama/ollama#11557,
  // likelovewant/ollama-for-amd#40), llama.cpp's device list, ComfyUI's banner.
  paste_reading o = read_paste(
      "time=2025-07-28T13:04:33.314+03:00 level=INFO source=types.go:130 msg=\"inference compute\" id=0 library=rocm "
      "variant=\"\" compute=gfx1102 driver=0.0 name=1002:7480 total=\"8.0 GiB\" available=\"7.9 GiB\"\n"
      "time=2025-07-28T13:04:34 level=INFO source=types.go:130 msg=\"inference compute\" id=GPU-5e3 library=cuda "
      "variant=v12 compute=8.6 driver=12.4 name=\"NVIDIA GeForce RTX 3060\" total=\"11.8 GiB\"\n");
  ASSERT_EQ(o.facts.gpus.size(), 2u);
  EXPECT_EQ(o.facts.gpus[0].arch, "gfx1102");
  EXPECT_EQ(o.facts.gpus[1].arch, "sm_86");
  EXPECT_EQ(facts_of(o)["cuda.driver_api"], "12.4");
  paste_reading unsupported = read_paste(
      "level=WARN source=amd_windows.go:140 msg=\"amdgpu is not supported (supported types:[gfx1103])\" gpu_type=gfx1150 gpu=0\n");
  ASSERT_EQ(unsupported.facts.gpus.size(), 1u);
  EXPECT_EQ(unsupported.facts.gpus[0].arch, "gfx1150") << "the supported list is not the GPU";
  paste_reading llama = read_paste(
      "ggml_cuda_init: found 1 CUDA devices:\n  Device 0: NVIDIA GeForce RTX 3060, compute capability 8.6, VMM: yes\n"
      "ggml_vulkan: 0 = AMD Radeon RX 7900 XTX (RADV NAVI31) (radv) | uma: 0 | fp16: 1 | warp size: 64\n");
  ASSERT_EQ(llama.facts.gpus.size(), 2u);
  EXPECT_EQ(llama.facts.gpus[0].arch, "sm_86");
  EXPECT_EQ(llama.facts.gpus[1].arch, "gfx1100");
  paste_reading rocm = read_paste("  Device 0: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no, Wave Size: 32\n");
  ASSERT_EQ(rocm.facts.gpus.size(), 1u);
  EXPECT_EQ(rocm.facts.gpus[0].arch, "gfx1100");
  // Older HIP builds of llama.cpp (ggml-org/llama.cpp#3320) print an AMD card's gfx11 as a CUDA-style capability.
  paste_reading old_hip = read_paste("  Device 0: AMD Radeon RX 7900 XTX, compute capability 11.0\n");
  ASSERT_EQ(old_hip.facts.gpus.size(), 1u);
  EXPECT_EQ(old_hip.facts.gpus[0].arch, "gfx1100");
  paste_reading comfy = read_paste(
      "** Platform: Windows\n** Python version: 3.12.7 (tags/v3.12.7:0b05ead, Oct  1 2024, 03:06:41) [MSC v.1941 64 bit (AMD64)]\n"
      "Total VRAM 24564 MB, total RAM 65261 MB\npytorch version: 2.5.1+cu124\n"
      "Device: cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync\n");
  auto f = facts_of(comfy);
  EXPECT_EQ(f["host.os_id"], "windows");
  EXPECT_EQ(f["host.ram_bytes"], std::to_string(65261ull * 1024 * 1024));
  ASSERT_EQ(comfy.facts.gpus.size(), 1u);
  EXPECT_EQ(comfy.facts.gpus[0].arch, "sm_89");
}

TEST(PasteRead, TheInstalledRocmFromItsFilesAndPackageManagers) {
  EXPECT_EQ(facts_of(read_paste("$ cat /opt/rocm/.info/version\n6.2.0-66\n"))["rocm.version"], "6.2.0");
  EXPECT_EQ(facts_of(read_paste("$ hipconfig --version\n6.2.41133-dd7f95766\n"))["rocm.version"], "6.2");
  EXPECT_EQ(facts_of(read_paste("rocm-core/jammy,now 6.1.0.60100-82~22.04 amd64 [installed,automatic]\n"))["rocm.version"],
            "6.1.0");
  EXPECT_EQ(facts_of(read_paste("ii  rocm-core   6.3.1.60301-48~24.04  amd64  ROCm Runtime software stack\n"))["rocm.version"],
            "6.3.1");
  // A file that names the path without printing it says nothing.
  EXPECT_EQ(facts_of(read_paste("cat /opt/rocm/.info/version\nNo such file or directory\n")).count("rocm.version"), 0u);
}

TEST(PasteRead, TorchVersionPrintedAloneOrInAnIssueForm) {
  auto bare = facts_of(read_paste(">>> import torch; torch.__version__\n'2.8.0+cu128'\n"));
  EXPECT_EQ(bare["pkg.torch"], "2.8.0+cu128");
  EXPECT_EQ(bare["torch.cuda"], "12.8");
  EXPECT_EQ(facts_of(read_paste("$ python -c 'import torch'\n2.4.1+rocm6.1\n"))["torch.hip"], "6.1");
  EXPECT_EQ(facts_of(read_paste("0.23.0+cu128\n")).count("pkg.torch"), 0u) << "torchvision's 0.x";
  EXPECT_EQ(facts_of(read_paste("2.8.0\n")).count("pkg.torch"), 0u) << "a bare version names no package";
  EXPECT_EQ(facts_of(read_paste("- PyTorch Version: 1.8 (https://download.pytorch.org/whl/rocm4.0.1)\n"))["pkg.torch"], "1.8");
  // pytorch/pytorch#53738: the wheel named after the version says more than "1.8".
  EXPECT_EQ(facts_of(read_paste("- PyTorch Version: 1.8 (https://download.pytorch.org/whl/rocm4.0.1/"
                                "torch-1.8.0%2Brocm4.0.1-cp39-cp39-linux_x86_64.whl)\n"))["pkg.torch"],
            "1.8.0+rocm4.0.1");
  // a wheel's name in a Markdown code span or after a Windows path (llama-cpp-python-wheels' report)
  EXPECT_EQ(facts_of(read_paste("`llama_cpp_python-0.3.16+cuda12.1.sm86.ampere-cp312-cp312-win_amd64.whl` wheel\n"))
                ["pkg.llama-cpp-python"],
            "0.3.16+cuda12.1.sm86.ampere");
  EXPECT_EQ(facts_of(read_paste("pip install C:\\wheels\\torch-2.7.1+cu128-cp312-cp312-win_amd64.whl\n"))["pkg.torch"], "2.7.1+cu128");
}

TEST(PasteRead, AnImageTagIsNotAPackageVersionUnlessItIsOne) {
  // Megatron-LM's report: NGC's pytorch image is tagged by release date (23.09), not torch's version
  EXPECT_EQ(facts_of(read_paste("docker run -it --gpus all nvcr.io/nvidia/pytorch:23.09-py3\n")).count("pkg.torch"), 0u);
  EXPECT_EQ(facts_of(read_paste("docker pull pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime\n"))["pkg.torch"], "2.1.0");
  EXPECT_EQ(facts_of(read_paste("PyTorch: 2.1.0\n"))["pkg.torch"], "2.1.0");
}

TEST(PasteRead, RequirementsAndSentencePunctuationAreNotValues) {
  // transformers' "You need torch>=1.10" is a requirement, not the installed torch.
  auto need = facts_of(read_paste("ImportError: You need torch>=1.10, but torch 1.9 is installed.\n"));
  EXPECT_EQ(need["pkg.torch"], "1.9");
  EXPECT_EQ(facts_of(read_paste("I set `HSA_OVERRIDE_GFX_VERSION=10.3.0`.\n"))["env.HSA_OVERRIDE_GFX_VERSION"], "10.3.0");
  // ROCm/ROCm#5069: the quoted value, not the sentence after it.
  EXPECT_EQ(facts_of(read_paste("When I use `os.environ['HSA_OVERRIDE_GFX_VERSION'] = '10.3.0'` all the GPU gfx versions change\n"))
                ["env.HSA_OVERRIDE_GFX_VERSION"],
            "10.3.0");
  paste_reading ti = read_paste("My 2080Ti fails\n");
  ASSERT_EQ(ti.facts.gpus.size(), 1u);
  EXPECT_EQ(ti.facts.gpus[0].arch, "sm_75");
}

TEST(PasteRead, IssueFormAnswersUnderTheirHeadings) {
  // An issue form (Ollama's, ROCm's): "### OS" then the answer; the OS named in the answer beats
  // one a sentence mentions ("I also tested on Ubuntu 22.04").
  paste_reading r = read_paste(
      "### What is the issue?\nI tested on my rx 6750xt on Ubuntu 22.04 and windows 11.\n\n### OS\n\nWindows\n\n"
      "### GPU\n\nAMD\n\n### ROCm Version\n\n6.1.2\n");
  auto f = facts_of(r);
  EXPECT_EQ(f["host.os_id"], "windows");
  EXPECT_EQ(f["rocm.version"], "6.1.2");
  // A block under a heading (rocminfo output, a traceback) is left as it is.
  paste_reading block = read_paste("### GPU\nName: gfx1100\nMarketing Name: Radeon RX 7900 XTX\n");
  EXPECT_EQ(block.lines[1], "Name: gfx1100");
}

TEST(PasteRead, TorchVersionsWrittenLoosely) {
  EXPECT_EQ(facts_of(read_paste("- OS: windows10 22H2\n- torch2.3.1+cu121\n"))["pkg.torch"], "2.3.1+cu121");
  EXPECT_EQ(facts_of(read_paste("- OS: windows10 22H2\n"))["host.os_id"], "windows");
  auto apart = facts_of(read_paste("**Versions:** PyTorch 2.8.0 + cu129\n"));
  EXPECT_EQ(apart["pkg.torch"], "2.8.0+cu129");
  EXPECT_EQ(apart["torch.cuda"], "12.9");
  EXPECT_EQ(facts_of(read_paste("pip install torchvision2.0\n")).count("pkg.torch"), 0u);
  // A code span closed at the line's end ("Killed`") is read without its backtick.
  EXPECT_EQ(read_paste("`python load.py\nKilled`\n").lines[1], "Killed");
  // Not a gfx target: five characters after "gfx".
  EXPECT_TRUE(read_paste("arch gfx90878 found\n").facts.gpus.empty());
}

TEST(PasteRead, WhatTheRuntimeSaysBeatsProse) {
  paste_reading r = read_paste(
      "I think this is my RTX 4090\n"
      "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\n");
  ASSERT_EQ(r.facts.gpus.size(), 1u);
  EXPECT_EQ(r.facts.gpus[0].arch, "sm_120");
}

TEST(PasteRead, TensileFileListsAreNotTheGpu) {
  paste_reading r = read_paste(
      "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1201\n"
      " List of available TensileLibrary Files :\n\"/opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat\"\n");
  ASSERT_EQ(r.facts.gpus.size(), 1u);
  EXPECT_EQ(r.facts.gpus[0].arch, "gfx1201");
}

TEST(PasteRead, RocmSmiGfxVersionThatIsNoGfxName) {
  // libFuzzer found this: "GFX Version:" followed by no gfx name took substr(3) of "" and threw.
  for (const char* line : {"GFX Version: N/A\n", "GPU[0] : GFX Version:\n", "{\"card0\": {\"GFX Version\": \"\"}}\n"})
    EXPECT_NO_THROW(read_paste(line)) << line;
  paste_reading r = read_paste("GPU[0]          : GFX Version:          gfx12001\n");
  EXPECT_EQ(facts_of(r)["gpu.arch"], "gfx1201");
}

TEST(PasteRead, WhatPipWasAskedForIsNotInstalled) {
  auto f = facts_of(read_paste(
      "ERROR: Could not find a version that satisfies the requirement torch==2.1.0+cu118 (from versions: 2.2.0, 2.3.0)\n"
      "ERROR: No matching distribution found for torch==2.1.0+cu118\n"
      "Collecting xformers==0.0.23\n"
      "    vllm 0.6.3 depends on torch==2.4.0\n"));
  EXPECT_EQ(f.count("pkg.torch"), 0u) << f["pkg.torch"];
  EXPECT_EQ(f.count("pkg.xformers"), 0u);
  EXPECT_EQ(f.count("pkg.vllm"), 0u);
}

TEST(PasteRead, GpustackReportIsReadBack) {
  paste_reading r = read_paste(
      "<details><summary>report</summary>\n\n```json\n"
      "{\"schema_version\": 1, \"tool\": {\"name\": \"gpustack\", \"version\": \"0.1.0\", \"command\": \"probe\"},"
      " \"gpus\": [{\"arch\": \"gfx1201\", \"name\": \"Radeon AI PRO R9700\", \"vendor\": \"amd\"}],"
      " \"stack\": {\"python\": {\"found\": true, \"packages\": {\"pytorch-triton-rocm\": \"3.6.0\", \"torch\": \"2.10.0+rocm7.1\"}}},"
      " \"env\": {}, \"probes\": [{\"id\": \"fla.triton.s2\", \"status\": \"hang\", \"detail\": \"no progress for 60 s\"}]}\n"
      "```\n</details>\n");
  EXPECT_TRUE(r.from_report);
  EXPECT_TRUE(r.facts.coverage.packages_complete);
  ASSERT_EQ(r.facts.gpus.size(), 1u);
  EXPECT_EQ(r.facts.gpus[0].arch, "gfx1201");
  EXPECT_NE(r.error_text.find("no progress for 60 s"), std::string::npos);
}

TEST(PastedFacts, UnknownIsNotFalse) {
  // GS-ENV-001 (an RDNA3 override on an RDNA4 card) needs both the variable and the arch.
  const knowledge_base& kb = builtin_knowledge_base();
  auto ids = [&](const std::string& text) {
    std::set<std::string> s;
    for (const finding& f : explain_text(text, kb).findings) s.insert(f.id);
    return s;
  };
  EXPECT_FALSE(ids("export HSA_OVERRIDE_GFX_VERSION=11.0.0\n").count("GS-ENV-001")) << "no GPU named: undecided";
  EXPECT_TRUE(ids("export HSA_OVERRIDE_GFX_VERSION=11.0.0\nmy RX 9070 XT\n").count("GS-ENV-001"));
  // A paste that names no environment variable says nothing about them being unset: no rule may
  // fire on "FLASH_ATTENTION_TRITON_AMD_ENABLE is not TRUE" from a paste that never mentions it.
  explain_result r = explain_text("flash_attn 2.7.0 on my RX 7900 XTX\n", kb);
  EXPECT_TRUE(std::none_of(r.findings.begin(), r.findings.end(), [](const finding& f) { return f.id == "GS-PKG-001"; }));
}

TEST(PastedFacts, AnErrorSignatureTheFactsRuleOutIsSilent) {
  const knowledge_base& kb = builtin_knowledge_base();
  std::string err = "error: 'tt.load' op operation destroyed but still has uses\n";
  auto has = [&](const std::string& text, const char* id) {
    explain_result r = explain_text(text, kb);
    return std::any_of(r.findings.begin(), r.findings.end(), [&](const finding& f) { return f.id == id; });
  };
  EXPECT_FALSE(has(err + "GPU models and configuration: GPU 0: NVIDIA H200\n", "GS-TRITON-001"))
      << "a gfx12 pipeliner rule on an NVIDIA card";
  explain_result r = explain_text(err, kb);
  auto f = std::find_if(r.findings.begin(), r.findings.end(), [](const finding& x) { return x.id == "GS-TRITON-001"; });
  ASSERT_NE(f, r.findings.end()) << "with the GPU unknown the signature stands";
  EXPECT_FALSE(f->unknown_facts.empty());
  EXPECT_FALSE(r.next_step.empty());
}

TEST(PasteRead, DeviceNodeListingsGiveTheHostRulesTheirFacts) {
  // ls -l of a root:root 0600 /dev/kfd next to rocminfo's refusal: GS-HOST-020 (a udev rule), and
  // never GS-HOST-001 (join the owning group, which would be root).
  explain_result r = explain_text("crw------- 1 root root 235, 0 Dec  3 09:00 /dev/kfd\n"
                                  "crw-rw---- 1 root render 226, 128 Dec  3 09:00 /dev/dri/renderD128\n"
                                  "Unable to open /dev/kfd read-write: Permission denied\n",
                                  builtin_knowledge_base());
  ASSERT_EQ(r.reading.facts.access.size(), 2u);
  EXPECT_EQ(r.reading.facts.access[0].error, "EACCES");
  EXPECT_EQ(r.reading.facts.access[1].group, "render");
  auto has = [&](const char* id) { return std::any_of(r.findings.begin(), r.findings.end(), [&](const finding& f) { return f.id == id; }); };
  EXPECT_TRUE(has("GS-HOST-020"));
  EXPECT_FALSE(has("GS-HOST-001"));
}

TEST(Explain, AFixThePasteAlreadyAppliedIsSaid) {
  explain_result r = explain_text("export HSA_OVERRIDE_GFX_VERSION=10.3.0\nRX 6700 XT\n"
                                  "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n",
                                  builtin_knowledge_base());
  bool said = std::any_of(r.undecided.begin(), r.undecided.end(),
                          [](const std::string& u) { return u.find("HSA_OVERRIDE_GFX_VERSION=10.3.0) is already set") != std::string::npos; });
  bool fired = std::any_of(r.findings.begin(), r.findings.end(), [](const finding& f) {
    return f.remediation.find("HSA_OVERRIDE_GFX_VERSION=10.3.0") != std::string::npos;
  });
  EXPECT_EQ(said, fired) << "a finding that asks for the setting the paste shows must say it is there already";
}

TEST(Explain, AnIntegratedGpuNamedByRocblasIsTheIgpuFinding) {
  // A held-out report: an RX 6800 XT beside a Ryzen iGPU, rocBLAS naming the iGPU's gfx1036.
  // The fix is hiding the iGPU (GS-HIP-005), not a build with kernels for it.
  explain_result r = explain_text("I have a 6800XT and a Ryzen 7950X.\nrocBLAS error: Cannot read "
                                  "/opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU arch : gfx1036\n",
                                  builtin_knowledge_base());
  EXPECT_TRUE(std::any_of(r.findings.begin(), r.findings.end(), [](const finding& f) { return f.id == "GS-HIP-005"; }));
}

TEST(Explain, NothingMatchedSaysSoAndWhatToPaste) {
  explain_result r = explain_text("ValueError: my own bug in line 3\n", builtin_knowledge_base());
  EXPECT_TRUE(r.findings.empty());
  EXPECT_EQ(r.first_error_line, "ValueError: my own bug in line 3");
  EXPECT_NE(r.next_step.find("gpustack check"), std::string::npos);
}


TEST(Explain, TheUnmatchedErrorIsTheErrorNotTheSentenceAboutIt) {
  const knowledge_base& kb = builtin_knowledge_base();
  explain_result r = explain_text("I updated the driver and now it fails.\nand I am getting an error:\n"
                                  "docker: Error response from daemon: exec: my-hook: stat failed.\n", kb);
  EXPECT_EQ(r.first_error_line, "docker: Error response from daemon: exec: my-hook: stat failed.");
  r = explain_text("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    run()\n"
                   "ZeroDivisionError: division by zero\n", kb);
  EXPECT_EQ(r.first_error_line, "ZeroDivisionError: division by zero") << "the exception, not the Traceback header";
  r = explain_text("step 10 loss 2.1\nall good\n", kb);
  EXPECT_EQ(r.first_error_line, "");
}


TEST(PasteRead, DriverVersionsWrittenInSentences) {
  EXPECT_EQ(facts_of(read_paste("My driver (535.309.01) should be fine?\n"))["nvidia.driver"], "535.309.01");
  EXPECT_EQ(facts_of(read_paste("the nvidia driver is 550.54.14 on this box\n"))["nvidia.driver"], "550.54.14");
  EXPECT_EQ(facts_of(read_paste("updated the driver (2.1) of my mouse\n")).count("nvidia.driver"), 0u) << "not an NVIDIA number";
}


TEST(Explain, AWorkingAndAFailingVersionInOnePasteIsARegressionCue) {
  const knowledge_base& kb = builtin_knowledge_base();
  // A component the regression reader knows: GS-REG-201 says it with the way back, and only once.
  explain_result r = explain_text("It worked fine with HIP SDK 6.4.2.\nIt fails with HIP SDK 7.1.1: hipGetDeviceCount err=100\n", kb);
  EXPECT_TRUE(std::any_of(r.findings.begin(), r.findings.end(), [](const finding& f) { return f.id == "GS-REG-201"; }));
  EXPECT_TRUE(std::none_of(r.undecided.begin(), r.undecided.end(), [](const std::string& u) { return u.find("regression") != std::string::npos; }))
      << "the finding says it; an undecided line would say it twice";
  // Without one: an undecided line names both.
  r = explain_text("It worked fine with 2.5.1 on this box.\nIt fails with 2.6.0 and prints nothing.\n", kb);
  auto cue = std::find_if(r.undecided.begin(), r.undecided.end(), [](const std::string& u) { return u.find("regression") != std::string::npos; });
  ASSERT_NE(cue, r.undecided.end());
  EXPECT_NE(cue->find("works with 2.5.1 and fails with 2.6.0"), std::string::npos) << *cue;
  r = explain_text("On Ollama 0.5.7 everything works.\nAfter updating to 0.5.8 it crashes on load\n", kb);
  cue = std::find_if(r.undecided.begin(), r.undecided.end(), [](const std::string& u) { return u.find("regression") != std::string::npos; });
  ASSERT_NE(cue, r.undecided.end());
  EXPECT_NE(cue->find("works with Ollama 0.5.7 and fails with 0.5.8"), std::string::npos) << *cue;
  r = explain_text("Loading any model in 1.92.1 oldcpu version with flash attention enabled ends with an error:\n"
                   "There is no such issue in KoboldCPP 1.91.\n", kb);
  cue = std::find_if(r.undecided.begin(), r.undecided.end(), [](const std::string& u) { return u.find("regression") != std::string::npos; });
  ASSERT_NE(cue, r.undecided.end());
  EXPECT_NE(cue->find("works with KoboldCPP 1.91 and fails with 1.92.1"), std::string::npos) << *cue;
  r = explain_text("It worked fine with 2.5.1 and still works with 2.5.1 today\n", kb);
  EXPECT_TRUE(std::none_of(r.undecided.begin(), r.undecided.end(), [](const std::string& u) { return u.find("regression") != std::string::npos; }))
      << "one version is no A/B";
}

}  // namespace
}  // namespace gs
