// What real reports carry beyond the tools' own outputs (issue #12): issue-form answers under
// their headings and in tables, Windows' own numbers, nvidia-smi's state columns, and the versions
// applications print about themselves. Each snippet is cut from the public report linked beside it.
// Cost: a few milliseconds (read_paste on short texts).
#include <gtest/gtest.h>

#include <map>

#include "explain/paste.h"
#include "rules/fact_resolver.h"

namespace gs {
namespace {

std::map<std::string, std::string> shape_facts(const paste_reading& r) {
  std::map<std::string, std::string> m;
  for (const pasted_fact& f : r.facts_read) m[f.key] = f.value;
  return m;
}

// --- a. issue forms ----------------------------------------------------------------------------

TEST(PasteReportShapes, IssueFormAnswersUnderHeadings) {
  // ROCm/rocm-install-on-linux#447 (ROCm's form) and ollama's form (### Ollama version).
  auto rocm = shape_facts(read_paste(
      "### Suggestion Description\n\nwhen will ROCm support the RX 9070 XT?\n\n### Operating System\n\nUbuntu 24.04\n\n"
      "### GPU\n\nAMD Radeon RX 7900 XTX\n\n### ROCm Version\n\nROCm 6.2.4\n"));
  EXPECT_EQ(rocm["host.os_id"], "ubuntu");
  EXPECT_EQ(rocm["host.os_version"], "24.04");
  EXPECT_EQ(rocm["gpu.arch"], "gfx1100");
  EXPECT_EQ(rocm["rocm.version"], "6.2.4");
  auto ollama = shape_facts(read_paste("### OS\n\nLinux\n\n### GPU\n\nAMD\n\n### CPU\n\nAMD\n\n### Ollama version\n\n0.5.7\n"));
  EXPECT_EQ(ollama["app.ollama"], "0.5.7");
  // ollama/ollama#13061: one card a line under "### GPU"; an answer that is a sentence names no version.
  paste_reading dual = read_paste("### OS\n\nUbuntu 25.10\n\n### GPU\n\nDuaal\nRadeon RX 6650XT\nRadeon 680M\n\n### CPU\n\n"
                                  "AMD Ryzen 7 6800H\n\n### Ollama version\n\nTried all from 0.12.6. Working until 0.12.3. Can revert to "
                                  "0.12.3 and immediately works on systemd restart of ollama service\n");
  ASSERT_EQ(dual.facts.gpus.size(), 2u);
  EXPECT_EQ(dual.facts.gpus[0].arch, "gfx1032");
  EXPECT_EQ(dual.facts.gpus[1].arch, "gfx1035");
  EXPECT_EQ(shape_facts(dual).count("app.ollama"), 0u);
  EXPECT_EQ(shape_facts(dual)["host.os_version"], "25.10");
  // likelovewant/ollama-for-amd#9: the form's answer, beside a mistyped one in the prose.
  EXPECT_EQ(shape_facts(read_paste("ollama version 0.28\n\n### OS\n\nLinux\n\n### Ollama version\n\n0.2.8\n"))["app.ollama"], "0.2.8");
  // Headings for the kernel and the driver, and a GPU heading with one card a line.
  paste_reading two = read_paste("### Kernel version\n\n6.8.0-49-generic\n\n### Driver version\n\n560.35.03\n\n### GPU\n\n"
                                 "AMD Radeon RX 7900 XTX\nAMD Radeon 780M\n");
  auto f = shape_facts(two);
  EXPECT_EQ(f["host.kernel"], "6.8.0-49-generic");
  // Frogging-Family/nvidia-all#379: the form's "7.0.9" and the log's "7.0.9-1-cachyos" are one kernel.
  EXPECT_EQ(shape_facts(read_paste("### Kernel version\n\n7.0.9\n\nError! Bad return status for module build on kernel: "
                                   "7.0.9-1-cachyos (x86_64)\n"))["host.kernel"],
            "7.0.9-1-cachyos");
  EXPECT_EQ(f["nvidia.driver"], "560.35.03");
  ASSERT_EQ(two.facts.gpus.size(), 2u);
  EXPECT_TRUE(two.ambiguities.empty());
}

TEST(PasteReportShapes, MarkdownTableRowsAreLabelledLines) {
  // A report's version table ("| Component | Version | Source |", as in vLLM TPU reports) and a
  // hardware table; nvidia-smi's boxed rows are not Markdown and stay as they are.
  auto f = shape_facts(read_paste("| Component | Version | Source |\n|---|---|---|\n| vLLM | `0.13.2.post6` | api_server.py |\n"
                                  "| GPU | NVIDIA GeForce RTX 4090 |\n| ROCm | 6.2.4 |\n| OS | Ubuntu 22.04 |\n"));
  EXPECT_EQ(f["pkg.vllm"], "0.13.2.post6");
  EXPECT_EQ(f["gpu.arch"], "sm_89");
  EXPECT_EQ(f["rocm.version"], "6.2.4");
  EXPECT_EQ(f["host.os_version"], "22.04");
  std::vector<std::string> smi = normalise_paste(
      "|   0  NVIDIA GeForce RTX 4070        Off |   00000000:2D:00.0  On |                  N/A |\n"
      "|  0%   36C    P5             17W /  200W |     430MiB /  12282MiB |      1%      Default |\n");
  EXPECT_EQ(smi[0].front(), '|');
  EXPECT_EQ(smi[1].front(), '|');
}

TEST(PasteReportShapes, AMarkdownLinkReadsAsItsText) {
  // keylase/nvidia-patch#666: the driver version links to its download.
  auto f = shape_facts(read_paste("- Nvidia driver version: [536.23](https://us.download.nvidia.com/Windows/536.23/"
                                  "536.23-desktop-win10-win11-64bit-international-dch-whql.exe)\n- GPU Model: GTX 1660Ti\n- OS: Windows 10\n"));
  EXPECT_EQ(f["nvidia.driver"], "536.23");
  EXPECT_EQ(normalise_paste("x = a[0](y)\n")[0], "x = a[0](y)");
}

TEST(PasteReportShapes, AHeadingOverABlockOrAnotherQuestionIsNoAnswer) {
  // "### Steps to reproduce" is no fact's heading; a version heading over a traceback is a block.
  auto f = shape_facts(read_paste("### Steps to reproduce\n\nUbuntu 22.04 worked before\n\n### vLLM version\n\n"
                                  "Traceback (most recent call last):\n  File \"x.py\", line 1\n"));
  EXPECT_EQ(f.count("pkg.vllm"), 0u);
  // "CUDA version" may be the toolkit, the wheel or the driver: not read as the driver's.
  EXPECT_EQ(shape_facts(read_paste("### CUDA version\n\n12.1\n\n| CUDA Version | 12.1 |\n")).count("cuda.driver_api"), 0u);
}

// --- b. Windows ----------------------------------------------------------------------------------

TEST(PasteReportShapes, WindowsDriverAndBuildNumbers) {
  // godotengine/godot#86530: the four-part driver is NVIDIA's 546.33 / 566.36; build 22621 is Windows 11.
  auto nv = shape_facts(read_paste(
      "Godot v4.2.1.stable - Windows 11 (22621.2861) - Vulkan (Forward+) - dedicated NVIDIA GeForce RTX 3060 (NVIDIA; 31.0.15.4633)\n"));
  EXPECT_EQ(nv["nvidia.driver"], "546.33");
  EXPECT_EQ(nv["host.os_id"], "windows");
  EXPECT_EQ(nv["host.os_version"], "11");
  // godotengine/godot#92406: AMD's four-part driver is not NVIDIA's; "Windows 10.0.22631" is Windows 11.
  auto amd = shape_facts(read_paste(
      "Godot v4.3.stable - Windows 10.0.22631 - Vulkan (Forward+) - dedicated AMD Radeon RX 7900 XTX (Advanced Micro Devices, Inc.; "
      "31.0.24033.1003) - AMD Ryzen 7 7800X3D 8-Core Processor (16 Threads)\n"));
  EXPECT_EQ(amd.count("nvidia.driver"), 0u);
  EXPECT_EQ(amd["host.os_version"], "11");
  // dxdiag: the driver line sits under "Card name:"; platform.platform() of a Windows 10 Python.
  auto dx = shape_facts(read_paste("Card name: NVIDIA GeForce RTX 3080\nManufacturer: NVIDIA\nDriver Version: 32.0.15.6636\n"
                                   "- Platform: Windows-10-10.0.19045-SP0\n"));
  EXPECT_EQ(dx["nvidia.driver"], "566.36");
  EXPECT_EQ(dx["gpu.arch"], "sm_86");
  EXPECT_EQ(dx["host.os_version"], "10");
  EXPECT_EQ(shape_facts(read_paste("AMD Software: Adrenalin Edition 24.12.1\n"))["app.adrenalin"], "24.12.1");
  // The SDK a build selects is not the OS.
  EXPECT_NE(shape_facts(read_paste("-- Selecting Windows SDK version 10.0.22621.0 to target Windows 10.0.19045.\n"))["host.os_version"], "11");
}

TEST(PasteReportShapes, WindowsNvidiaSmiAndWslMarkers) {
  // nvidia-smi on Windows prints the driver model (WDDM) where Linux prints persistence mode.
  paste_reading w = read_paste(
      "| NVIDIA-SMI 566.36                 Driver Version: 566.36         CUDA Version: 12.7     |\n"
      "|-----------------------------------------+------------------------+----------------------+\n"
      "|   0  NVIDIA GeForce RTX 4090      WDDM  |   00000000:01:00.0  On |                  N/A |\n"
      "|  0%   45C    P8             22W /  450W |    1650MiB /  24564MiB |      2%      Default |\n");
  auto f = shape_facts(w);
  EXPECT_EQ(f["nvidia.driver"], "566.36");
  EXPECT_EQ(f["host.os_id"], "windows");
  ASSERT_EQ(w.facts.gpus.size(), 1u);
  EXPECT_EQ(w.facts.gpus[0].name, "NVIDIA GeForce RTX 4090");
  // Inside WSL the OS is the distribution, not the Windows below it (microsoft/WSL#8587's form).
  auto wsl = shape_facts(read_paste("### Windows Version\n\nMicrosoft Windows [Version 10.0.22000.778]\n\n### WSL Version\n\n"
                                    "- [X] WSL 2\n- [ ] WSL 1\n\n### Distro Version\n\nUbuntu 22.04\n"));
  EXPECT_EQ(wsl["host.os_id"], "ubuntu");
  EXPECT_EQ(wsl["host.os_version"], "22.04");
  EXPECT_EQ(wsl["host.container_kind"], "wsl");
  // WSL2's paravirtual GPU in the kernel log.
  EXPECT_EQ(shape_facts(read_paste("[    2.118232] misc dxg: dxgk: dxgkio_query_adapter_info: Ioctl failed: -22\n"))["host.container_kind"], "wsl");
}

// --- c. nvidia-smi state -------------------------------------------------------------------------

TEST(PasteReportShapes, NvidiaSmiStateColumns) {
  // sgl-project/sglang#27487 (driver 610 table, MIG row) with the compute mode set to exclusive.
  paste_reading r = read_paste(
      "| NVIDIA-SMI 610.43.02              KMD Version: 610.43.02     CUDA UMD Version: 13.3     |\n"
      "+-----------------------------------------+------------------------+----------------------+\n"
      "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
      "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n"
      "|                                         |                        |               MIG M. |\n"
      "|=========================================+========================+======================|\n"
      "|   0  NVIDIA B200                    On  |   00000000:63:00.0 Off |                    0 |\n"
      "| N/A   26C    P0            139W / 1000W |       0MiB / 183359MiB |      0%   E. Process |\n"
      "|                                         |                        |             Disabled |\n"
      "+-----------------------------------------+------------------------+----------------------+\n"
      "|   1  NVIDIA B200                    Off |   00000000:68:00.0 Off |                    2 |\n"
      "| N/A   30C    P0            142W / 1000W |       0MiB / 183359MiB |      0%      Default |\n"
      "|                                         |                        |              Enabled |\n");
  ASSERT_EQ(r.facts.gpus.size(), 2u);
  const card_state& a = r.facts.gpus[0].card;
  EXPECT_EQ(a.compute_mode, "Exclusive_Process");
  EXPECT_EQ(a.persistence_mode, true);
  EXPECT_EQ(a.mig_enabled, false);
  EXPECT_EQ(a.ecc_uncorrected, 0.0);
  const card_state& b = r.facts.gpus[1].card;
  EXPECT_EQ(b.compute_mode, "Default");
  EXPECT_EQ(b.persistence_mode, false);
  EXPECT_EQ(b.mig_enabled, true);
  EXPECT_EQ(b.ecc_uncorrected, 2.0);
  // Listed with the facts read, beside each GPU.
  size_t listed = 0;
  for (const pasted_fact& f : r.facts_read) listed += f.key == "gpu.card_compute_mode";
  EXPECT_EQ(listed, 2u);
  // "N/A" and "ERR!" leave the column unknown.
  paste_reading err = read_paste(
      "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
      "|   0  NVIDIA GeForce RTX 3090        Off | 00000000:01:00.0  Off |                  N/A |\n"
      "|ERR!   ERR!  ERR!             ERR! / ERR! |  23640MiB / 24576MiB |    ERR!      ERR!  |\n");
  ASSERT_EQ(err.facts.gpus.size(), 1u);
  EXPECT_FALSE(err.facts.gpus[0].card.ecc_uncorrected.has_value());
  EXPECT_EQ(err.facts.gpus[0].card.compute_mode, "");
}

TEST(PasteReportShapes, NvidiaSmiQueryStateAndTheTwoCudaVersions) {
  paste_reading q = read_paste(
      "==============NVSMI LOG==============\nDriver Version                            : 550.54.14\n"
      "CUDA Version                              : 12.4\n\nAttached GPUs                             : 1\n"
      "GPU 00000000:01:00.0\n    Product Name                          : NVIDIA A100-SXM4-80GB\n"
      "    Persistence Mode                      : Enabled\n    MIG Mode\n        Current                           : Enabled\n"
      "        Pending                           : Enabled\n    Compute Mode                          : Exclusive_Process\n"
      "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.1, V12.1.105\n");
  ASSERT_EQ(q.facts.gpus.size(), 1u);
  EXPECT_EQ(q.facts.gpus[0].card.compute_mode, "Exclusive_Process");
  EXPECT_EQ(q.facts.gpus[0].card.persistence_mode, true);
  EXPECT_EQ(q.facts.gpus[0].card.mig_enabled, true);
  // The driver's CUDA (what libcuda supports) and the toolkit's (nvcc) are two facts.
  EXPECT_EQ(q.facts.stack.cuda_driver_api, "12.4");
  EXPECT_EQ(q.facts.stack.cuda_toolkit_version, "12.1.105");
}

TEST(PasteReportShapes, NvidiaSmiQueryCsv) {
  // The query GS-NV-200's fix asks for, as pasted back.
  paste_reading r = read_paste("$ nvidia-smi --query-gpu=index,name,driver_version,compute_cap,compute_mode --format=csv\n"
                               "index, name, driver_version, compute_cap, compute_mode\n"
                               "0, NVIDIA GeForce RTX 4090, 550.54.14, 8.9, Exclusive_Process\n"
                               "1, NVIDIA GeForce RTX 4090, 550.54.14, 8.9, Default\n");
  EXPECT_EQ(shape_facts(r)["nvidia.driver"], "550.54.14");
  ASSERT_EQ(r.facts.gpus.size(), 2u);
  EXPECT_EQ(r.facts.gpus[0].card.compute_mode, "Exclusive_Process");
  EXPECT_EQ(r.facts.gpus[1].card.compute_mode, "Default");
  // A sentence that names the fields is no header.
  EXPECT_EQ(read_paste("I checked driver_version, compute_mode\n0, 1\n").facts.gpus.size(), 0u);
}

// --- d. applications' own versions ---------------------------------------------------------------

TEST(PasteReportShapes, ApplicationsSayTheirOwnVersion) {
  // vLLM's start-up line (vllm-project/vllm#9411) and its engine line.
  EXPECT_EQ(shape_facts(read_paste("INFO 02-14 03:50:41 api_server.py:528] vLLM API server version 0.6.3.post1\n"))["pkg.vllm"],
            "0.6.3.post1");
  EXPECT_EQ(shape_facts(read_paste("INFO 09-20 15:54:42 llm_engine.py:223] Initializing an LLM engine (v0.6.1.post2) with config: "
                                   "model='microsoft/Phi-3.5-vision-instruct'\n"))["pkg.vllm"],
            "0.6.1.post2");
  // Ollama's server log and `ollama -v`.
  paste_reading o = read_paste(
      "time=2024-11-22T23:20:04.397+01:00 level=INFO source=routes.go:1240 msg=\"Listening on 127.0.0.1:11434 (version 0.4.1)\"\n");
  EXPECT_EQ(shape_facts(o)["app.ollama"], "0.4.1");
  EXPECT_EQ(o.facts.apps.at("ollama"), "0.4.1");
  EXPECT_EQ(shape_facts(read_paste("$ ollama -v\nollama version is 0.5.7\n"))["app.ollama"], "0.5.7");
  // llama.cpp's build line, its --version under an issue form's "Name and Version" heading.
  EXPECT_EQ(shape_facts(read_paste("0.00.000.257 I build: 4404 (0827b2c1) with cc (Ubuntu 11.4.0-1ubuntu1~22.04) 11.4.0 for "
                                   "aarch64-linux-gnu\n"))["app.llama.cpp"],
            "4404");
  EXPECT_EQ(shape_facts(read_paste("### Name and Version\n\nversion: 4404 (0827b2c1)\nbuilt with cc (GCC) 14.2.1 for x86_64-pc-linux-gnu\n"))
                ["app.llama.cpp"],
            "4404");
  // ComfyUI's start-up: its version, not its frontend's.
  auto c = shape_facts(read_paste("ComfyUI version: 0.3.60\nComfyUI frontend version: 1.26.13\n"));
  EXPECT_EQ(c["app.comfyui"], "0.3.60");
}

TEST(PasteReportShapes, ApplicationVersionsAreRuleFacts) {
  // app.NAME is a version fact a rule may compare, its .major/.minor numbers; unset when not read.
  paste_reading r = read_paste("ollama version is 0.5.7\n");
  fact_context c;
  c.facts = &r.facts;
  ASSERT_TRUE(lookup_fact("app.ollama", nullptr).has_value());
  EXPECT_EQ(lookup_fact("app.ollama", nullptr)->type, fact_type::version);
  auto v = resolve_fact("app.ollama", c);
  ASSERT_TRUE(v && v->ver);
  EXPECT_EQ(v->text, "0.5.7");
  auto minor = resolve_fact("app.ollama.minor", c);
  ASSERT_TRUE(minor.has_value());
  EXPECT_EQ(minor->number, 5);
  EXPECT_FALSE(resolve_fact("app.llama.cpp", c).has_value());
  EXPECT_FALSE(lookup_fact("app.", nullptr).has_value());
}

TEST(PasteReportShapes, PackagesFromMetadataFoldersEnvExportsAndPaths) {
  auto d = shape_facts(read_paste("ls venv/lib/python3.10/site-packages | grep torch\ntorch-2.4.1+rocm6.1.dist-info\n"));
  EXPECT_EQ(d["pkg.torch"], "2.4.1+rocm6.1");
  EXPECT_EQ(d["torch.hip"], "6.1");
  EXPECT_EQ(d["python.version"], "3.10");
  auto env = shape_facts(read_paste("name: ft\nchannels:\n  - pytorch\ndependencies:\n  - python=3.10.13=h955ad1f_0\n"
                                    "  - pytorch=2.1.0=py3.10_cuda12.1_cudnn8.9.2_0\n  - pip:\n    - transformers==4.36.2\n"));
  EXPECT_EQ(env["pkg.torch"], "2.1.0");
  EXPECT_EQ(env["torch.cuda"], "12.1");
  EXPECT_EQ(env["pkg.transformers"], "4.36.2");
  EXPECT_EQ(env["python.version"], "3.10.13");
  // An environment.yml pins series (dphnAI/sonar#784): "python=3.11.*" is 3.11.
  auto yml = shape_facts(read_paste("dependencies:\n  - python=3.11.*\n  - pytorch-cuda=12.4.*\n"));
  EXPECT_EQ(yml["python.version"], "3.11");
  EXPECT_EQ(yml["pkg.pytorch-cuda"], "12.4");
  auto tb = shape_facts(read_paste(
      "  File \"/home/u/miniconda3/envs/pytorch/lib/python3.12/site-packages/torch/cuda/__init__.py\", line 310, in _lazy_init\n"));
  EXPECT_EQ(tb["python.version"], "3.12");
}

TEST(PasteReportShapes, UnameR) {
  EXPECT_EQ(shape_facts(read_paste("$ uname -r\n6.8.0-49-generic\n"))["host.kernel"], "6.8.0-49-generic");
  EXPECT_EQ(shape_facts(read_paste("$ uname -r\nLinux\n")).count("host.kernel"), 0u);
}

TEST(PasteReportShapes, PipShowAndHipcc) {
  // `pip show` and `hipcc --version` as reports paste them (ROCm/ROCm issue bodies).
  auto f = shape_facts(read_paste("$ pip show torch\nName: torch\nVersion: 2.5.1+rocm6.2\nSummary: Tensors and Dynamic neural networks\n"
                                  "Location: /home/u/venv/lib/python3.12/site-packages\n$ hipcc --version\n"
                                  "HIP version  : 6.2.41133-dd7f95766\nAMD clang version 18.0.0git\n"));
  EXPECT_EQ(f["pkg.torch"], "2.5.1+rocm6.2");
  EXPECT_EQ(f["torch.hip"], "6.2");
  EXPECT_EQ(f["rocm.version"], "6.2");
  EXPECT_EQ(f["python.version"], "3.12");
  // collect_env's "HIP runtime version" is torch's build, not the installed ROCm.
  EXPECT_EQ(shape_facts(read_paste("HIP runtime version: 6.2.41133\n")).count("rocm.version"), 0u);
}

TEST(PasteReportShapes, RocmSmiConciseTableByDeviceId) {
  // ollama/ollama#6105: rocm-smi (ROCm 6) names the cards by PCI device id only.
  paste_reading r = read_paste(
      "============================================ ROCm System Management Interface ============================================\n"
      "====================================================== Concise Info ======================================================\n"
      "Device  Node  IDs              Temp    Power    Partitions          SCLK    MCLK     Fan  Perf  PwrCap       VRAM%  GPU%  \n"
      "              (DID,     GUID)  (Edge)  (Avg)    (Mem, Compute, ID)                                                        \n"
      "==========================================================================================================================\n"
      "0       1     0x744c,   58112  31.0\u00b0C  21.0W    N/A, N/A, 0         137Mhz  96Mhz    0%   auto  303.0W       5%     7%    \n"
      "1       2     0x164e,   26843  42.0\u00b0C  43.199W  N/A, N/A, 0         None    3000Mhz  0%   auto  Unsupported  4%     0%    \n"
      "==========================================================================================================================\n");
  // 0x164e (Raphael's iGPU) is not in amd_gpus.toml: the card is read, the list is not whole.
  ASSERT_EQ(r.facts.gpus.size(), 1u);
  EXPECT_EQ(r.facts.gpus[0].arch, "gfx1100");
  EXPECT_FALSE(r.facts.coverage.gpus_complete);
}

TEST(PasteReportShapes, WhatPipRemovesIsNotInstalled) {
  // pip replacing torch names the old version three times; the new one is the installed one.
  auto f = shape_facts(read_paste("  Attempting uninstall: torch\n    Found existing installation: torch 2.4.1\n"
                                  "    Uninstalling torch-2.4.1:\n      Successfully uninstalled torch-2.4.1\n"
                                  "Successfully installed torch-2.5.1+rocm6.2\n"));
  EXPECT_EQ(f["pkg.torch"], "2.5.1+rocm6.2");
  auto only_removed = shape_facts(read_paste("    Found existing installation: torch 2.4.1\n      Successfully uninstalled torch-2.4.1\n"));
  EXPECT_EQ(only_removed.count("pkg.torch"), 0u);
}

}  // namespace
}  // namespace gs
