// The built-in knowledge base (matrix/rules/*.toml): it loads without errors, and every rule
// has a machine that fires it and a close neighbour that does not. A rule added without a row
// here fails BuiltinRules.EveryRuleHasACase.
#include <functional>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "container/container_facts.h"
#include "container/container_spec.h"
#include "explain/explain.h"
#include "rules/error_findings.h"
#include "support/sample_facts.h"
#include "rules/knowledge_base.h"
#include "rules/rule.h"
#include "support/container_cases.h"
#include "support/corpus.h"

namespace gs {
namespace {

using namespace gs::test;

const knowledge_base& builtin() {
  static const knowledge_base kb = [] {
    std::vector<kb_error> errors;
    knowledge_base k = knowledge_base::load_builtin(errors);
    for (const kb_error& e : errors) ADD_FAILURE() << e.to_string();
    return k;
  }();
  return kb;
}

/// The GPU's PCIe path trained at `width` lanes where it could run `max_width`.
machine_facts with_pcie(machine_facts f, int width, int max_width) {
  f.gpus.at(0).pcie_width = width;
  f.gpus.at(0).pcie_max_width = max_width;
  f.gpus.at(0).pcie_narrowest = "0000:00:01.1";
  return f;
}

/// The card's own state (card/card_fields.h) on a sample machine: `set` fills what the case needs.
machine_facts with_card(machine_facts f, const std::function<void(card_state&)>& set) {
  card_state& c = f.gpus.at(0).card;
  c.source = f.gpus[0].vendor == "nvidia" ? "nvml" : "sysfs";
  c.clock_sm_mhz = 2350;
  c.clock_sm_max_mhz = 2920;
  c.vram_total_bytes = double(f.gpus[0].vram_bytes ? f.gpus[0].vram_bytes : 32ull << 30);
  set(c);
  return f;
}
machine_facts gfx1151(const char* mes) {
  machine_facts f = r9700();
  f.gpus[0].arch = "gfx1151";
  f.gpus[0].name = "Radeon 8060S";
  return with_card(f, [mes](card_state& c) {
    c.source = "sysfs+libdrm";
    c.firmware = {{"mes", uint32_t(std::stoul(mes, nullptr, 16)), 1}, {"mes_kiq", 0x6f, 6}};
  });
}

struct rule_case {
  std::string id;
  std::function<machine_facts()> fires;
  std::function<machine_facts()> quiet;
  std::optional<severity> level = std::nullopt;  ///< expected severity when it fires
  /// Error-text rules (no `when`): `text` fires it through match_error_text on fires(),
  /// `quiet_text` (a near miss) does not on quiet().
  std::string text = {}, quiet_text = {};
};

machine_facts amd_pkg(const std::string& name, const std::string& v) { return with_pkg(r9700(), name, v); }
/// The facts `check --container` gives the rules for a spec's first container, on `host`.
machine_facts spec_facts(const std::string& spec, const machine_facts& host = machine_facts{}) {
  container_spec s = read_container_spec(spec, container_spec_kind("", spec));
  return s.containers.empty() ? machine_facts{} : container_facts(host, s.containers[0]);
}
machine_facts nv_pkg(const std::string& name, const std::string& v) { return with_pkg(h200(), name, v); }
/// The H200 machine with another NVIDIA GPU in its place: "sm_61" -> compute capability "6.1".
machine_facts nv_gpu(const std::string& arch, const char* name) {
  machine_facts f = h200();
  f.gpus[0].arch = arch;
  f.gpus[0].name = name;
  f.gpus[0].compute_capability = arch.substr(3, arch.size() - 4) + "." + arch.substr(arch.size() - 1);
  return f;
}
machine_facts amd_env(const std::string& k, const std::string& v) { return with_env(r9700(), k, v); }
machine_facts nv_env(const std::string& k, const std::string& v) { return with_env(h200(), k, v); }
machine_facts triton36(machine_facts f) { return with_pkg(without_pkg(f, "pytorch-triton-rocm"), "pytorch-triton-rocm", "3.6.0+rocm7.2"); }
machine_facts two_amd() {
  machine_facts f = r9700();
  gpu_info g = f.gpus[0];
  g.kfd_node = 2;
  f.gpus.push_back(g);
  return f;
}
machine_facts two_h200() {
  machine_facts f = h200();
  f.gpus.push_back(f.gpus[0]);
  f.gpus[1].pci_address = "0000:1a:00.0";
  return f;
}
/// Two H200s under one PCIe switch as detect/gpu_topology.cpp leaves them: `acs` the bridges
/// whose ACS redirects (read as root), `group` both GPUs' IOMMU group type.
machine_facts two_h200_placed(std::vector<std::string> acs, const std::string& group) {
  machine_facts f = two_h200();
  for (gpu_info& g : f.gpus) {
    g.pcie_root = "pci0000:00";
    g.iommu_group_type = group;
  }
  f.topology.pairs = {{0, 1, "PIX"}};
  f.topology.worst = "PIX";
  f.topology.acs_read = true;
  f.topology.acs_redirect = std::move(acs);
  f.topology.iommu = group == "identity" ? "passthrough" : "translated";
  return f;
}
machine_facts dev_error(size_t i, const char* err, bool exists = true) {
  machine_facts f = r9700();
  f.access[i].ok = false;
  f.access[i].exists = exists;
  f.access[i].error = err;
  f.access[i].user_in_group = false;
  return f;
}
machine_facts torch_build(machine_facts f, const char* hip, const char* cuda) {
  f.python.torch_hip = hip;
  f.python.torch_cuda = cuda;
  return f;
}
machine_facts nv_driver(const char* driver, const char* torch_cuda) {
  machine_facts f = h200();
  f.stack.nvidia_driver = driver;
  f.python.torch_cuda = torch_cuda;
  return f;
}
machine_facts ram(uint64_t ram_bytes, uint64_t swap_bytes) {
  machine_facts f = r9700();
  f.host.ram_total_bytes = ram_bytes;
  f.host.swap_total_bytes = swap_bytes;
  return f;
}
machine_facts issue(const char* source, const char* message) {
  machine_facts f = r9700();
  f.issues.push_back({source, message});
  return f;
}
machine_facts gfx(const char* arch, uint32_t target, int wave) { return with_arch(r9700(), arch, target, wave); }
machine_facts in_container(machine_facts f) {
  f.host.in_container = true;
  f.host.container_kind = "docker";
  return f;
}
machine_facts with_igpu(machine_facts f) {
  gpu_info g = f.gpus[0];
  g.arch = "gfx1036";
  g.name = "AMD Radeon Graphics";
  g.family = "rdna2";
  g.kfd_node = 2;
  f.gpus.push_back(g);
  return f;
}
machine_facts dev_group(machine_facts f, const char* group) {
  f.access[0].group = group;
  return f;
}
/// One GPU library whose code units hold `codes` (GS-BIN rules; src/inspect fills this from real files).
machine_facts with_code(machine_facts f, std::vector<std::string> codes) {
  f.device_code.push_back({"/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so", "torch", {{std::move(codes), 3}}, ""});
  return f;
}

const std::vector<rule_case>& cases() {
  static const std::vector<rule_case> c = {
      {"GS-ENV-001", [] { return amd_env("HSA_OVERRIDE_GFX_VERSION", "11.0.0"); },
       [] { return amd_env("HSA_OVERRIDE_GFX_VERSION", "12.0.1"); }, severity::fail},
      // Container specs (check --container): the rest are drawn by real specs in tests/fixtures/container.
      {"GS-CONT-102", [] { return spec_facts("docker run --device=/dev/kfd --device=/dev/dri -u 1000 rocm/rocm-terminal\n"); },
       [] { return spec_facts("docker run --device=/dev/kfd --device=/dev/dri -u 1000 --group-add video rocm/rocm-terminal\n"); },
       severity::warn},
      {"GS-CONT-107", [] { return spec_facts("FROM rocm/pytorch:rocm6.2_ubuntu22.04_py3.10_pytorch_2.3.0\nRUN pip install torch\n"); },
       [] { return spec_facts("FROM rocm/pytorch:rocm6.2_ubuntu22.04_py3.10_pytorch_2.3.0\n"
                              "RUN pip install torch --index-url https://download.pytorch.org/whl/rocm6.2\n"); },
       severity::fail},
      {"GS-CONT-108", [] { return spec_facts("FROM rocm/rocm-terminal\nENV HSA_OVERRIDE_GFX_VERSION=10.3.0\n"); },
       [] { return spec_facts("FROM rocm/rocm-terminal\nENV HSA_OVERRIDE_GFX_VERSION=10.3.0\n", r9700()); }, severity::info},
      {"GS-ENV-002", [] { return amd_env("HSA_OVERRIDE_GFX_VERSION", "gfx1201"); },
       [] { return amd_env("HSA_OVERRIDE_GFX_VERSION", "12.0.1"); }, severity::fail},
      {"GS-ENV-003", [] { return with_rocm(amd_env("HSA_OVERRIDE_GFX_VERSION", "12.0.1"), "7.2.0"); },
       [] { return amd_env("HSA_OVERRIDE_GFX_VERSION", "11.0.0"); }, severity::warn},
      {"GS-ENV-003", [] { return with_rocm(amd_env("HSA_OVERRIDE_GFX_VERSION_1", "12.0.1"), "7.1.1"); },
       [] { return amd_env("HSA_OVERRIDE_GFX_VERSION_2", "12.0.1"); }, severity::info},
      {"GS-ENV-004", [] { return with_env(gfx("gfx1151", 110501, 32), "HSA_OVERRIDE_GFX_VERSION", "11.0.0"); },
       [] { return amd_env("HSA_OVERRIDE_GFX_VERSION", "11.0.0"); }, severity::warn},
      // The standard same-generation workaround (an RX 6700 XT as gfx1030) is not this finding.
      {"GS-ENV-004", [] { return with_env(gfx("gfx1102", 110002, 32), "HSA_OVERRIDE_GFX_VERSION", "10.3.0"); },
       [] { return with_env(gfx("gfx1031", 100301, 32), "HSA_OVERRIDE_GFX_VERSION", "10.3.0"); }, severity::warn},
      // NCCL transports taken away by the environment: two GPUs to talk between; one GPU, or the
      // variable at its default, says nothing.
      {"GS-DIST-501", [] { return with_env(two_h200(), "NCCL_P2P_DISABLE", "1"); },
       [] { return with_env(h200(), "NCCL_P2P_DISABLE", "1"); }},
      {"GS-DIST-502", [] { return with_env(with_env(two_h200(), "NCCL_P2P_DISABLE", "1"), "NCCL_SHM_DISABLE", "1"); },
       [] { return with_env(with_env(two_h200(), "NCCL_P2P_DISABLE", "1"), "NCCL_SHM_DISABLE", "0"); }},
      {"GS-DIST-503", [] { return with_env(two_h200(), "NCCL_PROTO", "LL128"); },
       [] { return with_env(two_h200(), "NCCL_DEBUG", "INFO"); }},
      {"GS-DIST-504", [] { return two_h200_placed({"0000:02:08.0", "0000:02:10.0"}, "identity"); },
       [] { return two_h200_placed({}, "identity"); }},
      {"GS-DIST-505", [] { return two_h200_placed({}, "DMA-FQ"); }, [] { return two_h200_placed({}, "identity"); }},
      {"GS-ENV-005", [] { return nv_env("HSA_OVERRIDE_GFX_VERSION", "11.0.0"); },
       [] { return amd_env("HSA_OVERRIDE_GFX_VERSION", "11.0.0"); }, severity::info},
      {"GS-ENV-006", [] { return amd_env("TORCH_BLAS_PREFER_HIPBLASLT", "0"); },
       [] { return amd_env("TORCH_USE_HIPBLASLT", "0"); }},  // a variable torch never reads is GS-ENV-020
      {"GS-ENV-007", [] { return nv_env("CUDA_LAUNCH_BLOCKING", "1"); }, [] { return nv_env("CUDA_LAUNCH_BLOCKING", "0"); }},
      {"GS-ENV-008", [] { return amd_env("PYTORCH_TUNABLEOP_ENABLED", "1"); },
       [] { return amd_env("PYTORCH_TUNABLEOP_ENABLED", "0"); }},
      {"GS-ENV-009", [] { return amd_env("LD_PRELOAD", "/usr/lib/libtcmalloc.so.4"); }, [] { return amd_env("LD_PRELOAD", ""); }},
      {"GS-ENV-010", [] { return nv_env("CUDA_VISIBLE_DEVICES", ""); }, [] { return nv_env("CUDA_VISIBLE_DEVICES", "0"); }, severity::fail},
      {"GS-ENV-010", [] { return amd_env("ROCR_VISIBLE_DEVICES", "-1"); }, [] { return amd_env("ROCR_VISIBLE_DEVICES", "0"); }},
      {"GS-ENV-011", [] { return with_env(with_env(two_amd(), "ROCR_VISIBLE_DEVICES", "1"), "HIP_VISIBLE_DEVICES", "1"); },
       [] { return with_env(with_env(two_amd(), "ROCR_VISIBLE_DEVICES", "1"), "HIP_VISIBLE_DEVICES", "0"); }},
      {"GS-ENV-012", [] { return nv_env("CUDA_VISIBLE_DEVICES", "0,3"); }, [] { return nv_env("CUDA_VISIBLE_DEVICES", "0"); }},
      {"GS-ENV-013", [] { return amd_env("CUDA_VISIBLE_DEVICES", "0"); },
       [] { return with_env(amd_env("CUDA_VISIBLE_DEVICES", "0"), "HIP_VISIBLE_DEVICES", "0"); }},
      {"GS-ALLOC-001", [] { return amd_env("PYTORCH_HIP_ALLOC_CONF", "max_split_size_mb:512"); },
       [] { return nv_env("PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:512"); }, severity::warn},
      {"GS-ALLOC-002", [] { return amd_env("PYTORCH_ALLOC_CONF", "garbage_collection_threshold:0.6"); },
       [] { return amd_env("PYTORCH_ALLOC_CONF", "garbage_collection_threshold:0.8"); }},
      {"GS-ALLOC-003", [] { return amd_env("PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True"); },
       [] { return with_pkg(without_pkg(amd_env("PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True"), "torch"), "torch",
                            "2.12.0+rocm7.2"); }},
      {"GS-ALLOC-004", [] { return amd_env("PYTORCH_HIP_ALLOC_CONF", "max_split_mb:512"); },
       [] { return amd_env("PYTORCH_HIP_ALLOC_CONF", "garbage_collection_threshold:0.8"); }},
      {"GS-ALLOC-005", [] { return nv_env("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:true"); },
       [] { return nv_env("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"); }, severity::fail},
      {"GS-ALLOC-006", [] { return with_env(amd_env("PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True"), "PYTORCH_CUDA_ALLOC_CONF", "garbage_collection_threshold:0.8"); },
       [] { return with_env(amd_env("PYTORCH_HIP_ALLOC_CONF", "garbage_collection_threshold:0.8"), "PYTORCH_CUDA_ALLOC_CONF", "garbage_collection_threshold:0.8"); }},
      {"GS-TRITON-001", [] { return triton36(r9700()); }, [] { return r9700(); }, severity::warn},
      {"GS-TRITON-001", [] { return with_pkg(triton36(r9700()), "flash-linear-attention", "0.5.0"); },
       [] { return with_pkg(r9700(), "flash-linear-attention", "0.5.0"); }, severity::fail},
      {"GS-TRITON-002", [] { return with_pkg(triton36(gfx("gfx90a", 90010, 64)), "fla-core", "0.5.0"); },
       [] { return with_pkg(triton36(r9700()), "fla-core", "0.5.0"); }},
      {"GS-FLA-001", [] { return nv_pkg("flash-linear-attention", "0.5.0"); },
       [] { return with_pkg(nv_pkg("flash-linear-attention", "0.5.2"), "triton", "3.7.1"); }, severity::fail},
      {"GS-FLA-002", [] { return amd_pkg("flash-linear-attention", "0.4.1"); }, [] { return amd_pkg("flash-linear-attention", "0.4.2"); }},
      {"GS-PKG-001", [] { return amd_pkg("flash-attn", "2.8.3"); },
       [] { return with_env(amd_pkg("flash-attn", "2.8.3"), "FLASH_ATTENTION_TRITON_AMD_ENABLE", "TRUE"); }},
      {"GS-PKG-002", [] { return amd_pkg("causal-conv1d", "1.5.2"); }, [] { return nv_pkg("causal-conv1d", "1.5.2"); }, severity::info},
      {"GS-PKG-003", [] { return amd_pkg("torchao", "0.14.0"); }, [] { return nv_pkg("torchao", "0.14.0"); }},
      {"GS-PKG-003", [] { return amd_pkg("transformer-engine", "2.4.0"); }, [] { return with_pkg(gfx("gfx942", 90402, 64), "transformer-engine", "2.4.0"); }},
      {"GS-PKG-004", [] { return amd_pkg("vllm", "0.6.3"); }, [] { return amd_pkg("vllm", "0.14.0"); }},
      {"GS-BIN-001", [] { return with_code(h200(), {"sm_100", "sm_120", "compute_120"}); },
       [] { return with_code(h200(), {"sm_80", "sm_90", "compute_90"}); }, severity::fail},
      // The H200's libcufft.so.12 (fatbin: sm_75 alone, kernels elsewhere) is not judged.
      {"GS-BIN-001", [] { return with_code(h200(), {"sm_75"}); },
       [] {
         machine_facts f = h200();
         f.device_code.push_back({"/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcufft.so.12", "nvidia-cufft", {{{"sm_75"}, 2}}, ""});
         return f;
       }, severity::fail},
      {"GS-BIN-001", [] { return with_code(r9700(), {"gfx1100", "gfx942"}); },
       [] { return with_code(r9700(), {"gfx1100", "gfx12-generic"}); }, severity::fail},
      {"GS-BIN-002", [] { return with_code(h200(), {"sm_80", "compute_80"}); },
       [] { return with_code(h200(), {"sm_80", "sm_90", "compute_90"}); }, severity::warn},
      {"GS-BNB-001", [] { return with_pkg(gfx("gfx942", 90402, 64), "bitsandbytes", "0.49.1"); },
       [] { return with_pkg(gfx("gfx942", 90402, 64), "bitsandbytes", "0.49.2"); }},
      {"GS-BNB-002", [] { return amd_pkg("bitsandbytes", "0.48.2"); }, [] { return amd_pkg("bitsandbytes", "0.49.0"); }},
      {"GS-BNB-002", [] { return with_pkg(gfx("gfx942", 90402, 64), "bitsandbytes", "0.49.1"); },
       [] { return with_pkg(gfx("gfx942", 90402, 64), "bitsandbytes", "0.49.2"); }},
      {"GS-BNB-003", [] { return torch_build(amd_pkg("bitsandbytes", "0.48.2"), "6.0.32830", ""); },
       [] { return with_rocm(amd_pkg("bitsandbytes", "0.48.2"), "6.0.2"); }},  // bitsandbytes follows torch's HIP, not /opt/rocm
      {"GS-BNB-004",
       [] {
         machine_facts f = nv_pkg("bitsandbytes", "0.49.2");
         f.gpus[0].compute_capability = "7.0";
         return f;
       },
       [] { return nv_pkg("bitsandbytes", "0.49.2"); }},
      {"GS-ROCM-001", [] { return with_rocm(r9700(), "6.3.0"); }, [] { return with_rocm(r9700(), "6.4.1"); }, severity::fail},
      // Rules added with the field corpus (issue 12) whose real reports are not in tests/corpus.
      {"GS-ALLOC-011", [] { return r9700(); }, [] { return r9700(); }, std::nullopt,
       "RuntimeError: Unrecognized CachingAllocator option: max_split_size", "Unrecognized CachingAllocator option: expandable_segments"},
      {"GS-ALLOC-012", [] { return h200(); }, [] { return h200(); }, std::nullopt,
       "RuntimeError: Expected a single True/False argument for expandable_segments", "expandable_segments:True"},
      {"GS-ALLOC-013",
       [] { return with_env(with_pkg(without_pkg(h200(), "torch"), "torch", "2.9.1+cu128"), "PYTORCH_ALLOC_CONF", "expandable_segments:True"); },
       [] { return with_env(with_pkg(without_pkg(h200(), "torch"), "torch", "2.10.0+cu128"), "PYTORCH_ALLOC_CONF", "expandable_segments:True"); }},
      {"GS-AMDGPU-004", [] { return r9700(); }, [] { return r9700(); }, std::nullopt,
       "amdgpu 0000:03:00.0: Direct firmware load for amdgpu/gc_12_0_1_mes.bin failed with error -2",
       "amdgpu 0000:03:00.0: loaded firmware amdgpu/gc_12_0_1_mes.bin"},
      // an RDNA4 card has a WSL path (AMD's WSL runtime); an RX 580 has none (GS-WSL-191/712 speak there)
      {"GS-WSL-001", [] { return r9700(); }, [] { return r9700(); }, std::nullopt,
       "Ubuntu 24.04 under WSL2\nUnable to open /dev/kfd read-write: No such file or directory",
       "Ubuntu 24.04 on bare metal\nUnable to open /dev/kfd read-write: No such file or directory"},
      {"GS-AMDGPU-151", [] { return r9700(); }, [] { return r9700(); }, std::nullopt,
       "modprobe: ERROR: could not insert 'amdgpu': Key was rejected by service",
       "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service"},
      {"GS-CTR-031", [] { return r9700(); }, [] { return r9700(); }, std::nullopt,
       "ggml_cuda_init: found 2 ROCm devices:\n  Device 0: AMD Radeon Graphics, gfx1036 (0x1036), VMM: no\n"
       "  Device 1: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no\nggml_cuda_compute_forward: ROCm error: invalid device function",
       "HIP_VISIBLE_DEVICES=1 ./llama-cli -m model.gguf\n  Device 0: AMD Radeon Graphics, gfx1036 (0x1036), VMM: no\n"
       "  Device 1: AMD Radeon RX 7900 XTX, gfx1100 (0x1100), VMM: no\nROCm error: invalid device function"},
      {"GS-SUP-003", [] { return torch_build(gfx("gfx1101", 110001, 32), "5.7.31921", ""); },
       [] { return torch_build(gfx("gfx1101", 110001, 32), "6.2.41133", ""); }, severity::warn},
      {"GS-SUP-012",
       [] {
         machine_facts f = nv_driver("535.183.01", "12.1");
         f.gpus[0].compute_capability = "3.5";
         return f;
       },
       [] {
         machine_facts f = nv_driver("470.256.02", "11.8");
         f.gpus[0].compute_capability = "3.5";
         return f;
       },
       severity::fail},
      {"GS-VLLM-004", [] { return h200(); }, [] { return h200(); }, std::nullopt, "RuntimeError: Failed to infer device type",
       "INFO: Automatically detected platform cuda."},
      {"GS-ATTN-006", [] { return r9700(); }, [] { return h200(); }, std::nullopt,
       "gfx1201\nModuleNotFoundError: No module named 'flash_attn_2_cuda'", "gfx1201\nModuleNotFoundError: No module named 'flash_attn_2_cuda'"},
      {"GS-ATTN-007", [] { return amd_env("FLASH_ATTENTION_TRITON_AMD_ENABLE", "true"); },
       [] { return amd_env("FLASH_ATTENTION_TRITON_AMD_ENABLE", "TRUE"); }},
      {"GS-BLAS-002", [] { return r9700(); }, [] { return r9700(); }, std::nullopt,
       "rocblaslt error: Could not load /opt/rocm/lib/hipblaslt/library/TensileLibrary_lazy_gfx1201.dat\n"
       "RuntimeError: CUDA error: HIPBLAS_STATUS_NOT_SUPPORTED when calling `hipblasLtMatmulAlgoGetHeuristic( ltHandle)`",
       "RuntimeError: CUDA error: HIPBLAS_STATUS_NOT_SUPPORTED when calling `hipblasLtMatmulAlgoGetHeuristic( ltHandle)`"},
      {"GS-BNB-018", [] { return r9700(); }, [] { return r9700(); }, std::nullopt, "WARNING: BNB_CUDA_VERSION=124 detected for ROCm!!",
       "BNB_CUDA_VERSION is not set"},
      {"GS-BNB-019", [] { return h200(); }, [] { return h200(); }, std::nullopt,
       "WARNING: BNB_CUDA_VERSION=118 environment variable detected; loading libbitsandbytes_cuda118.so.\n"
       "libbitsandbytes_cuda118.so: cannot open shared object file: No such file or directory",
       "WARNING: BNB_CUDA_VERSION=118 environment variable detected; loading libbitsandbytes_cuda118.so."},
      {"GS-BNB-020", [] { return with_pkg(gfx("gfx1030", 100300, 32), "bitsandbytes", "0.49.1"); },
       [] { return amd_pkg("bitsandbytes", "0.49.1"); }},
      {"GS-ENV-020", [] { return amd_env("TORCH_USE_HIPBLASLT", "0"); }, [] { return r9700(); }},
      {"GS-HF-003", [] { return h200(); }, [] { return h200(); }, std::nullopt,
       "ImportError: Using `bitsandbytes` 4-bit quantization requires Accelerate: `pip install 'accelerate>=0.26.0'`",
       "ImportError: Using `bitsandbytes` 4-bit quantization requires Accelerate: `pip install 'accelerate>=0.26.0'` and the latest version of bitsandbytes"},
      {"GS-HIP-002", [] { return with_code(gfx("gfx1102", 110002, 32), {"gfx1100", "gfx1201"}); },
       [] { return with_code(gfx("gfx1102", 110002, 32), {"gfx1100", "gfx1102"}); }},
      {"GS-HIP-006", [] { return with_igpu(r9700()); }, [] { return with_env(with_igpu(r9700()), "HIP_VISIBLE_DEVICES", "0"); }},
      {"GS-HIP-008", [] { return r9700(); }, [] { return r9700(); }, std::nullopt, "RuntimeError: No HIP GPUs are available",
       "uname: 5.15.167.4-microsoft-standard-WSL2\nRuntimeError: No HIP GPUs are available"},
      {"GS-HOST-020", [] { return dev_group(dev_error(0, "EACCES"), "root"); }, [] { return dev_error(0, "EACCES"); }},
      // x4 of x16 warns; x8 of x16 (a shared x16) is GS-HOST-026's note, and a full link is silent.
      {"GS-HOST-025", [] { return with_pcie(r9700(), 4, 16); }, [] { return with_pcie(r9700(), 8, 16); }},
      // The card's own state: each rule on the figure it judges, beside a card just inside the line.
      {"GS-CARD-001", [] { return with_card(r9700(), [](card_state& c) { c.perf_level = "low"; c.clock_sm_mhz = 600; }); },
       [] { return with_card(r9700(), [](card_state& c) { c.perf_level = "auto"; }); }},
      {"GS-CARD-002", [] { return with_card(h200(), [](card_state& c) { c.power_limit_w = 400; c.power_default_limit_w = 700; }); },
       [] { return with_card(h200(), [](card_state& c) { c.power_limit_w = 600; c.power_default_limit_w = 700; }); }},
      {"GS-CARD-003",
       [] { return with_card(h200(), [](card_state& c) { c.temp_c = 88; c.throttle_reasons = {{"gpu_idle", "sw_thermal_slowdown"}}; }); },
       [] { return with_card(h200(), [](card_state& c) { c.temp_c = 84; c.throttle_reasons = {{"sw_thermal_slowdown"}}; c.busy_percent = 100; }); }},
      {"GS-CARD-004", [] { return with_card(h200(), [](card_state& c) { c.compute_processes = 2; c.vram_used_bytes = 60e9; }); },
       [] { return with_card(h200(), [](card_state& c) { c.compute_processes = 0; c.vram_used_bytes = 5e8; }); }},
      {"GS-CARD-005", [] { return with_card(r9700(), [](card_state& c) { c.vram_used_bytes = 12e9; }); },
       [] { return with_card(r9700(), [](card_state& c) { c.vram_used_bytes = 4e9; }); }},
      {"GS-CARD-006", [] { return with_card(h200(), [](card_state& c) { c.ecc_enabled = true; c.ecc_uncorrected = 2; }); },
       [] { return with_card(h200(), [](card_state& c) { c.ecc_enabled = true; c.ecc_uncorrected = 0; }); }},
      {"GS-CARD-007", [] { return gfx1151("83"); }, [] { return gfx1151("80"); }},
      {"GS-HOST-026", [] { return with_pcie(h200(), 8, 16); }, [] { return with_pcie(h200(), 16, 16); }},
      {"GS-HOST-023", [] { return r9700(); }, [] { return r9700(); }, std::nullopt,
       "Unable to open /dev/kfd read-write: Permission denied\nalice is not member of \"root\" group, the default DRM access group.",
       "Unable to open /dev/kfd read-write: Permission denied\nroot is not member of \"root\" group"},
      {"GS-MEM-001", [] { return h200(); }, [] { return nv_env("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"); }, std::nullopt,
       "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 23.64 GiB of "
       "which 8.50 MiB is free. Of the allocated memory 20.12 GiB is allocated by PyTorch, and 3.05 GiB is reserved by PyTorch but unallocated.",
       "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 23.64 GiB of "
       "which 8.50 MiB is free. Of the allocated memory 20.12 GiB is allocated by PyTorch, and 3.05 GiB is reserved by PyTorch but unallocated."},
      {"GS-MEM-004", [] { return r9700(); }, [] { return r9700(); }, std::nullopt,
       "Memory cgroup out of memory: Killed process 4242 (python)", "Out of memory: Killed process 4242 (python)"},
      {"GS-MEM-006", [] { return r9700(); }, [] { return r9700(); }, std::nullopt, "exitcode  : -9 (pid: 4242)", "exitcode  : -6 (pid: 4242)"},
      {"GS-NV-002", [] { return h200(); }, [] { return h200(); }, std::nullopt,
       "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service", "modprobe: ERROR: could not insert 'nvidia': No such device"},
      {"GS-NV-003", [] { return h200(); }, [] { return h200(); }, std::nullopt,
       "modprobe: FATAL: Module nvidia not found in directory /lib/modules/6.8.0-49-generic", "modprobe: FATAL: Module nvidia_uvm is in use"},
      {"GS-TORCH-015", [] { return nv_pkg("torchvision", "0.21.0"); }, [] { return nv_pkg("torchvision", "0.26.0"); }},
      {"GS-TORCH-016", [] { return nv_pkg("torchvision", "0.27.0"); }, [] { return nv_pkg("torchvision", "0.26.0"); }},
      {"GS-TRITON-014", [] { return h200(); }, [] { return h200(); }, std::nullopt, "AssertionError: libcuda.so cannot found!",
       "AssertionError: libcuda.so cannot found!\nPlease create a symlink of libcuda.so to any of the files."},
      {"GS-MEM-021", [] { return h200(); }, [] { return h200(); }, std::nullopt,
       "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.64 GiB of which "
       "1.02 GiB is free. Process 4242 has 14.50 GiB memory in use. Including non-PyTorch memory, this process has 8.10 GiB memory in use.",
       "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.64 GiB of which "
       "1.02 GiB is free. Including non-PyTorch memory, this process has 22.10 GiB memory in use."},
      {"GS-LLAMA-012", [] { return r9700(); }, [] { return r9700(); }, std::nullopt,
       "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected",
       "ggml_cuda_init: found 1 ROCm devices:"},
      {"GS-APP-014", [] { return r9700(); }, [] { return r9700(); }, std::nullopt,
       "msg=\"permission problems block access to the GPU: kfd driver not loaded\"", "msg=\"inference compute\" id=0 library=rocm"},
      {"GS-TORCH-021", [] { return h200(); }, [] { return h200(); }, std::nullopt,
       "Found GPU0 Tesla K40m which is of cuda capability 3.5. PyTorch no longer supports this GPU because it is too old. "
       "The minimum cuda capability supported by this library is 3.7.",
       "Found GPU0 Tesla K80 which is of cuda capability 3.7."},
      {"GS-ROCM-002", [] { return with_rocm(r9700(), "7.2.0"); }, [] { return with_rocm(r9700(), "6.4.3"); }},
      {"GS-TORCH-001", [] { return with_pkg(torch_build(r9700(), "", ""), "torch", "2.11.0+cpu"); }, [] { return r9700(); }, severity::fail},
      {"GS-TORCH-002", [] { return torch_build(r9700(), "", "13.0"); }, [] { return h200(); }},
      {"GS-TORCH-003", [] { return torch_build(h200(), "7.2.26015", ""); }, [] { return r9700(); }},
      {"GS-CUDA-001", [] { return nv_driver("570.86.10", "13.0"); }, [] { return nv_driver("580.65.06", "13.0"); }, severity::fail},
      {"GS-CUDA-002", [] { return nv_driver("570.86.10", "12.9"); }, [] { return nv_driver("575.51.03", "12.9"); }, severity::warn},
      {"GS-CUDA-002", [] { return without_pkg(nv_driver("570.86.10", "12.9"), "triton"); }, [] { return nv_driver("570.86.10", "12.8"); },
       severity::info},
      {"GS-CUDA-003",
       [] {
         machine_facts f = h200();
         f.stack.cuda_toolkit_version = "12.4.131";
         f.stack.cuda_toolkit_path = "/usr/local/cuda-12.4";
         return f;
       },
       [] {
         machine_facts f = h200();
         f.stack.cuda_toolkit_version = "13.0.88";
         return f;
       }},
      {"GS-HOST-001", [] { return dev_error(1, "EACCES"); }, [] { return r9700(); }, severity::fail},
      {"GS-HOST-008",
       [] {
         machine_facts f = dev_error(0, "EACCES");
         f.host.in_container = true;
         f.host.container_kind = "docker";
         f.access[0].group = "992";
         return f;
       },
       [] { return dev_error(0, "EACCES"); }},
      {"GS-HOST-001", [] { return dev_error(0, "EACCES"); },
       [] {
         machine_facts f = dev_error(0, "EACCES");
         f.host.in_container = true;
         return f;
       }},
      {"GS-HOST-002", [] { return in_container(dev_error(0, "EPERM")); }, [] { return dev_error(0, "EPERM"); }},
      {"GS-HOST-003", [] { return dev_error(0, "ENOENT", false); }, [] { return r9700(); }},
      {"GS-HOST-004",
       [] {
         machine_facts f = r9700();
         f.stack.amdgpu_loaded = false;
         f.gpus[0].source = "pci";
         return f;
       },
       [] { return r9700(); }},
      {"GS-HOST-004",
       [] {
         machine_facts f = r9700();
         f.stack.amdgpu_loaded = false;
         f.gpus[0].source = "pci";
         return f;
       },
       [] {
         machine_facts f = r9700();
         f.stack.amdgpu_loaded = false;  // unreadable /sys/module, but KFD found the GPU
         return f;
       }},
      {"GS-HOST-005",
       [] {
         machine_facts f = h200();
         f.stack.nvidia_driver.clear();
         f.gpus[0].source = "pci";
         return f;
       },
       [] {
         machine_facts f = h200();
         f.stack.nvidia_driver.clear();  // version unparsed, but /proc/driver/nvidia listed the GPU
         return f;
       }},
      {"GS-HOST-005",
       [] {
         machine_facts f = h200();
         f.stack.nvidia_driver.clear();
         f.gpus[0].source = "pci";
         return f;
       },
       [] { return h200(); }},
      {"GS-HOST-006", [] { return ram(8 * GiB, 8 * GiB); }, [] { return ram(15 * GiB + GiB / 2, 8 * GiB); }},
      {"GS-HOST-007", [] { return ram(16 * GiB, 0); }, [] { return ram(64 * GiB, 0); }},
      // Error-text rules (issue 6): real error lines; the near misses are texts from the same
      // family that mean something else.
      {"GS-ROCM-003", [] { return r9700(); }, [] { return r9700(); }, severity::fail,
       "\"hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\"",
       "hipErrorOutOfMemory: out of memory"},
      // with no torch in sight the general rule; with a torch that carries the GPU's arch the kernel
      // that lacks an image is an extension's (GS-CUDA-971)
      {"GS-CUDA-004",
       [] {
         machine_facts m = h200();
         m.python.torch_cuda.clear();
         return m;
       },
       [] {
         machine_facts m = h200();
         m.python.torch_cuda.clear();
         return m;
       },
       severity::fail, "RuntimeError: CUDA error: no kernel image is available for execution on the device",
       "RuntimeError: CUDA error: an illegal memory access was encountered"},
      {"GS-CUDA-971", [] { return h200(); }, [] { return h200(); }, severity::fail,
       "RuntimeError: CUDA error: no kernel image is available for execution on the device",
       "RuntimeError: CUDA error: an illegal memory access was encountered"},
      {"GS-BNB-005", [] { return amd_pkg("bitsandbytes", "0.44.1"); }, [] { return amd_pkg("bitsandbytes", "0.44.1"); },
       severity::fail,
       "UserWarning: The installed version of bitsandbytes was compiled without GPU support. 8-bit optimizers, "
       "8-bit multiplication, and GPU quantization are unavailable.",
       "bitsandbytes 0.50.0 loaded libbitsandbytes_rocm72.so (ROCm); NF4 round trip mean |err| 0.073"},
      // The verdict line `gpustack probe fla` writes when native passes where Triton fails
      // (src/fla/fla_verdict.cpp); the near miss is its line for a native failure.
      {"GS-TRITON-003", [] { return h200(); }, [] { return h200(); }, severity::fail,
       "Triton's fault: the native pipelined kernel passes at num_stages 3, 4 where Triton fails (a Triton "
       "compiler bug, not the driver or the card)",
       "the native kernel fails too: suspect the driver, the runtime or the card before Triton"},
      // compute-sanitizer on gpustack's Triton reproducer (reports/examples/h200-fla-sanitize.json);
      // the near miss is the same read on a Triton the failure was not seen with.
      {"GS-TRITON-020", [] { return with_pkg(h200(), "triton", "3.6.0"); }, [] { return with_pkg(h200(), "triton", "3.5.1"); },
       severity::warn,
       "AcceleratorError: CUDA error: an illegal memory access was encountered; compute-sanitizer: Invalid __shared__ read "
       "of size 1024 bytes in gdn_out_kernel (759 errors)",
       "AcceleratorError: CUDA error: an illegal memory access was encountered; compute-sanitizer: Invalid __shared__ read "
       "of size 1024 bytes in gdn_out_kernel (759 errors)"},
      // A prose report of the regression (bitsandbytes#1775's shape); 0.48.1 carries the fix.
      {"GS-REG-001", [] { return nv_pkg("bitsandbytes", "0.48.0"); }, [] { return nv_pkg("bitsandbytes", "0.48.1"); },
       severity::warn, "Loading my load_in_8bit checkpoint now generates garbage; it was quantized with prior versions",
       "Loading my load_in_8bit checkpoint now generates garbage; it was quantized with prior versions"},
      // Support joins: the product the prose names and the GPU the paste shows, no error line yet.
      {"GS-EXT-009", [] { return nv_gpu("sm_70", "Tesla V100-SXM2-32GB"); }, [] { return h200(); }, severity::warn,
       "flash_attention not supported when I set attn_implementation=\"flash_attention_2\"",
       "flash_attention not supported when I set attn_implementation=\"flash_attention_2\""},
      // The stated-requirement fallbacks (gates.toml) compare what the line asks for with the GPU:
      // silent on a GPU that meets it.
      {"GS-GATE-001", [] { return nv_gpu("sm_70", "Tesla V100-SXM2-32GB"); }, [] { return h200(); }, severity::fail,
       "ValueError: punica LoRA kernels require compute capability >= 8.0",
       "ValueError: punica LoRA kernels require compute capability >= 8.0"},
      {"GS-GATE-004", [] { return nv_gpu("sm_75", "Tesla T4"); }, [] { return h200(); }, severity::fail,
       "RuntimeError: SageAttention only supports Ampere GPUs or newer.",
       "RuntimeError: SageAttention only supports Ampere GPUs or newer."},
      {"GS-VLLM-209", [] { return nv_gpu("sm_61", "NVIDIA GeForce GTX 1080 Ti"); }, [] { return nv_gpu("sm_75", "Tesla T4"); },
       severity::warn, "vllm serve Qwen/Qwen2.5-7B-Instruct fails at startup", "vllm serve Qwen/Qwen2.5-7B-Instruct fails at startup"},
      // Ollama on Linux with an RDNA2 GPU other than gfx1030 (no debug line): the documented override; the
      // same report on a gfx1030 card (in Ollama's list) is another cause.
      {"GS-APP-223", [] { return gfx("gfx1032", 100302, 32); }, [] { return gfx("gfx1030", 100300, 32); }, severity::warn,
       "Ubuntu 24.04, RX 6600: ollama ps shows 100% CPU and the GPU is not used (journalctl -u ollama has no errors)",
       "Ubuntu 24.04, RX 6600: ollama ps shows 100% CPU and the GPU is not used (journalctl -u ollama has no errors)"},
      // Rules whose real reports are rare in public threads: the text each library prints.
      // ComfyUI's start-up lines with a +cpu torch and a reporter who wants the GPU; a CUDA torch is not this.
      {"GS-APP-227", [] { return h200(); }, [] { return h200(); }, severity::warn,
       "ComfyUI is using the CPU instead of my GPU\npytorch version: 2.5.0+cpu\nSet vram state to: DISABLED\nDevice: cpu",
       "ComfyUI is using the CPU instead of my GPU\npytorch version: 2.5.1+cu124\nDevice: cuda:0 NVIDIA H200 : cudaMallocAsync"},
      // `ollama ps` with the model on the CPU and no discovery line in the paste; a GPU run is not this.
      {"GS-OLLAMA-205", [] { return h200(); }, [] { return h200(); }, severity::warn,
       "$ ollama ps\nNAME          ID              SIZE      PROCESSOR    UNTIL\nllama3.1:8b   46e0c10c039e    6.2 GB    100% CPU     4 minutes from now\nIt is very slow, the GPU is not used.",
       "$ ollama ps\nNAME          ID              SIZE      PROCESSOR    UNTIL\nllama3.1:8b   46e0c10c039e    6.2 GB    100% GPU     4 minutes from now\nIt is very slow, the GPU is not used."},
      // Current Ollama's discover/amd.go: a ROCm device without bundled rocBLAS kernels, an old Windows
      // driver, and a stray ggml-base.dll on PATH (the lines it logs).
      {"GS-APP-228", [] { return gfx("gfx1032", 100302, 32); }, [] { return gfx("gfx1032", 100302, 32); }, severity::warn,
       "level=WARN source=amd.go:470 msg=\"dropping ROCm device \u2014 no rocblas support for gfx target\" device=ROCm0 gfx_target=gfx1032",
       "level=INFO source=types.go:60 msg=\"inference compute\" id=0 library=ROCm compute=gfx1030 name=ROCm0"},
      {"GS-APP-229", [] { return r9700(); }, [] { return r9700(); }, severity::warn,
       "level=WARN source=amd.go:485 msg=\"AMD driver is too old. Update your AMD driver to enable GPU inference.\"",
       "level=INFO source=runner.go:67 msg=\"discovering available GPUs...\""},
      {"GS-APP-230", [] { return h200(); }, [] { return h200(); }, severity::warn,
       "level=WARN source=runner.go:501 msg=\"potentially incompatible library detected in PATH\" location=C:\\WINDOWS\\ggml-base.dll",
       "level=INFO source=runner.go:67 msg=\"discovering available GPUs...\""},
      // Current Ollama's warning for a device mask, then discovery on the CPU (a working GPU is not this).
      {"GS-APP-231", [] { return h200(); }, [] { return h200(); }, severity::warn,
       "level=WARN source=runner.go:722 msg=\"user overrode visible devices\" CUDA_VISIBLE_DEVICES=GPU-0a1b2c3d\n"
       "level=WARN source=runner.go:726 msg=\"if GPUs are not correctly discovered, unset and try again\"\n"
       "level=INFO source=types.go:60 msg=\"inference compute\" id=cpu library=cpu compute=\"\" name=cpu",
       "level=WARN source=runner.go:722 msg=\"user overrode visible devices\" CUDA_VISIBLE_DEVICES=0\n"
       "level=INFO source=types.go:60 msg=\"inference compute\" id=GPU-0a1b2c3d library=CUDA compute=9.0 name=CUDA0"},
      // koboldcpp.py when --usecublas finds no koboldcpp_cublas library in this build (the no-CUDA exe).
      {"GS-APP-232", [] { return h200(); }, [] { return h200(); }, severity::warn,
       "Welcome to KoboldCpp - Version 1.98.1\nWarning: CuBLAS library file not found. Non-BLAS library will be used.\n"
       "Initializing dynamic library: koboldcpp_default.dll",
       "Welcome to KoboldCpp - Version 1.98.1\nAttempting to use CuBLAS library for faster prompt ingestion. A compatible CuBLAS will be required.\n"
       "Initializing dynamic library: koboldcpp_cublas.dll"},
      // A transformers older than 4.36 under code that imports its cache module (ipex-llm PR #10835's error).
      {"GS-VER-222", [] { return h200(); }, [] { return h200(); }, severity::fail,
       "  File \"/venv/lib/python3.10/site-packages/peft/peft_model.py\", line 37, in <module>\n"
       "ModuleNotFoundError: No module named 'transformers.cache_utils'",
       "ModuleNotFoundError: No module named 'transformers_stream_generator'"},
      // Ollama 0.2-0.5's amd_linux.go refusing a GCN 3/4 GPU (slog.Warn(fmt.Sprintf("amdgpu too old gfx%d%x%x", ...))).
      {"GS-APP-226", [] { return r9700(); }, [] { return r9700(); }, severity::warn,
       "time=2024-09-23T10:00:00.000Z level=WARN source=amd_linux.go:186 msg=\"amdgpu too old gfx803\" gpu=0",
       "time=2024-09-23T10:00:00.000Z level=INFO source=amd_linux.go:330 msg=\"amdgpu is supported\" gpu=0 gpu_type=gfx1030"},
      {"GS-AMDGPU-051", [] { return r9700(); }, [] { return r9700(); }, severity::fail,
       "BOOT_IMAGE=/vmlinuz-6.8.0-49-generic root=UUID=1 ro quiet splash nomodeset\nrocminfo: ROCk module is NOT loaded",
       "BOOT_IMAGE=/vmlinuz-6.8.0-49-generic root=UUID=1 ro quiet splash\nrocminfo: ROCk module is NOT loaded"},
      {"GS-WIN-007", [] { return amd_env("HIP_VISIBLE_DEVICES", "1"); }, [] { return amd_env("HIP_VISIBLE_DEVICES", "0"); },
       std::nullopt, "hipErrorNoDevice: no ROCm-capable device is detected", "hipErrorNoDevice: no ROCm-capable device is detected"},
      {"GS-SKEW-013", [] { return h200(); }, [] { return h200(); }, std::nullopt,
       "  File \"/venv/lib/python3.12/site-packages/somelib/loader.py\", line 40, in load\nNameError: name 'GPTQConfig' is not defined",
       "  File \"/home/user/train.py\", line 40, in <module>\nNameError: name 'GPTQConfig' is not defined"},
      {"GS-SKEW-020", [] { return h200(); }, [] { return h200(); }, std::nullopt,
       "Found existing installation: torch 2.3.0a0+ebedce2\n  Successfully uninstalled torch-2.3.0a0+ebedce2\n"
       "Successfully installed torch-2.4.1 xformers-0.0.28.post1",
       "Found existing installation: torch 2.3.0\n  Successfully uninstalled torch-2.3.0\n"
       "Successfully installed torch-2.4.1 xformers-0.0.28.post1"},
      {"GS-DET-001", [] { return issue("/sys/class/drm/card1/device/mem_info_vram_total", "EACCES"); },
       [] { return issue("/sys/class/kfd/kfd/topology/nodes/2/properties", "EPERM: hidden by the container's device cgroup"); }},
      {"GS-DET-002", [] { return issue("/sys/class/kfd/kfd/topology/nodes/2/properties", "EPERM: hidden by the container's device cgroup"); },
       [] { return issue("/sys/class/kfd/kfd/topology/nodes/2/properties", "ENOENT"); }},
      {"GS-DET-002", [] { return issue("/sys/bus/pci/devices/0000:0c:00.0", "AMD GPU 1002:7550: its KFD node is hidden (EPERM)"); },
       [] { return issue("/sys/bus/pci/devices/0000:0c:00.0/device", "not a hex number"); }},
  };
  return c;
}

bool has(const std::vector<finding>& fs, const std::string& id, const finding** out = nullptr) {
  for (const finding& f : fs)
    if (f.id == id) {
      if (out) *out = &f;
      return true;
    }
  return false;
}

/// A paste's facts with nothing shown: facts it does not show are unknown, not absent.
machine_facts a_paste() {
  machine_facts m;
  m.coverage.partial = true;
  return m;
}

/// Whether rule `id` fires on error `text` from a machine the paste tells nothing about (partial
/// facts: unknown is not false), as `explain` meets a bare report: the near-miss tests' question.
bool error_text_fires(const std::string& text, const char* id) {
  static const machine_facts unknown = a_paste();
  return has(builtin().match_error_text(text, unknown), id);
}

/// The same for a paste that shows some facts, for rules that need them shown (when_shown):
/// `shown` sets them on the otherwise unknown machine.
template <class Shown>
bool error_text_fires_with(const std::string& text, const char* id, Shown shown) {
  machine_facts m = a_paste();
  shown(m);
  return has(builtin().match_error_text(text, m), id);
}

/// For error_text_fires_with: a paste that shows one AMD GPU of this arch.
auto shows_amd_gpu(const char* arch) {
  return [arch](machine_facts& m) {
    m.gpus.push_back({});
    m.gpus.back().vendor = "amd";
    m.gpus.back().arch = arch;
  };
}

std::string list(const std::vector<finding>& fs) {
  std::string s;
  for (const finding& f : fs) s += "\n  " + f.id + " [" + std::string(to_string(f.level)) + "] " + f.evidence;
  return s;
}

TEST(BuiltinRules, LoadWithoutErrors) {
  std::vector<kb_error> errors;
  knowledge_base kb = knowledge_base::load_builtin(errors);
  for (const kb_error& e : errors) ADD_FAILURE() << e.to_string();
  EXPECT_GE(kb.size(), 40u);
}

TEST(BuiltinRules, HealthyMachinesGetNoFindings) {
  EXPECT_TRUE(builtin().evaluate(r9700()).empty()) << list(builtin().evaluate(r9700()));
  EXPECT_TRUE(builtin().evaluate(h200()).empty()) << list(builtin().evaluate(h200()));
}

TEST(BuiltinRules, EachRuleFiresOnItsCaseAndNotOnTheNeighbour) {
  for (const rule_case& c : cases()) {
    SCOPED_TRACE(c.id);
    if (!c.text.empty()) {
      EXPECT_FALSE(has(builtin().evaluate(c.fires()), c.id)) << "an error-text rule fired from facts alone";
      std::vector<finding> fired = builtin().match_error_text(c.text, c.fires());
      const finding* f = nullptr;
      EXPECT_TRUE(has(fired, c.id, &f)) << "text did not match; got:" << list(fired);
      if (f && c.level) {
        EXPECT_EQ(f->level, *c.level);
      }
      if (f) {
        EXPECT_NE(f->evidence.find("error text matched"), std::string::npos) << f->evidence;
      }
      EXPECT_FALSE(has(builtin().match_error_text(c.quiet_text, c.quiet()), c.id)) << "near-miss text matched";
      continue;
    }
    std::vector<finding> fired = builtin().evaluate(c.fires());
    const finding* f = nullptr;
    EXPECT_TRUE(has(fired, c.id, &f)) << "did not fire; got:" << list(fired);
    if (f) {
      if (c.level) {
        EXPECT_EQ(f->level, *c.level) << f->evidence;
      }
      EXPECT_FALSE(f->evidence.empty());
      EXPECT_EQ(f->evidence.find("(unknown)"), std::string::npos) << "evidence names an unknown fact: " << f->evidence;
      EXPECT_EQ(f->rule_source.rfind("matrix/rules/", 0), 0u) << f->rule_source;
    }
    std::vector<finding> quiet = builtin().evaluate(c.quiet());
    EXPECT_FALSE(has(quiet, c.id)) << "fired on the neighbour:" << list(quiet);
  }
}

TEST(BuiltinRules, TheMaxSplitFixKeepsTheUsersOtherAllocatorOptions) {
  auto fix_for = [](const std::string& conf) {
    for (const finding& f : builtin().evaluate(amd_env("PYTORCH_HIP_ALLOC_CONF", conf)))
      if (f.id == "GS-ALLOC-001") return f.remediation;
    return std::string("(no GS-ALLOC-001)");
  };
  std::string fix = fix_for("expandable_segments:True,max_split_size_mb:512,roundup_power2_divisions:[64:8,>:1]");
  EXPECT_EQ(fix.rfind("export PYTORCH_HIP_ALLOC_CONF=expandable_segments:True,roundup_power2_divisions:[64:8,>:1],"
                      "garbage_collection_threshold:0.8  #", 0), 0u) << fix;
  fix = fix_for("max_split_size_mb:512,garbage_collection_threshold:0.6");
  EXPECT_EQ(fix.rfind("export PYTORCH_HIP_ALLOC_CONF=garbage_collection_threshold:0.6  #", 0), 0u) << fix;
}

TEST(BuiltinRules, EveryRuleHasACase) {
  // A row here (a machine that fires it, a neighbour that does not) or a real report in the
  // corpus that must name it (tests/corpus; its negatives and expect_not lists are the
  // neighbours there).
  std::set<std::string> tested;
  for (const rule_case& c : cases()) tested.insert(c.id);
  for (const gs::testing::corpus_case& c : gs::testing::corpus_cases())
    for (const std::string& id : c.expect) tested.insert(id);
  for (const std::string& id : gs::testing::container_case_ids()) tested.insert(id);  // real specs
  std::set<std::string> defined;
  for (const rule& r : builtin().rules()) {
    defined.insert(r.id);
    EXPECT_TRUE(tested.count(r.id)) << r.id << " (" << r.pos.path << ":" << r.pos.line << ") has no row in cases()";
  }
  for (const std::string& id : tested) EXPECT_TRUE(defined.count(id)) << id << " is tested but not defined";
}

TEST(BuiltinRules, EveryRuleExplainsItself) {
  for (const rule& r : builtin().rules()) {
    EXPECT_FALSE(r.why.empty()) << r.id;
    EXPECT_LE(r.title.size(), 110u) << r.id;
    EXPECT_EQ(r.title.find('{'), std::string::npos) << r.id << ": a title is shown as written; facts go in evidence or remediation";
    EXPECT_EQ(r.remediation.source.find('\n'), std::string::npos) << r.id << ": remediation is one line";
  }
}

TEST(BuiltinRules, EveryErrorTextPatternMatchesThroughMatchErrorText) {
  // On facts that decide nothing (pasted text that names no GPU or version), each substring
  // pattern, with the rule's plain match_requires beside it, must name its rule.
  machine_facts nothing_known = a_paste();
  int patterns = 0;
  for (const rule& r : builtin().rules()) {
    std::string context;
    bool plain_requires = true;
    for (const text_pattern& q : r.match_requires) {
      if (q.re) plain_requires = false;
      context += "  " + q.text + "\n";
    }
    if (!plain_requires) continue;  // regex requirements: covered by the rule's corpus cases
    if (!r.when_shown.empty()) continue;  // needs facts the text must show: covered by its rows
    for (const text_pattern& p : r.match_text) {
      if (p.re) continue;  // substrings can be fed back verbatim; regexes are covered in kb_eval_test
      ++patterns;
      std::vector<finding> fs =
          builtin().match_error_text("Traceback (most recent call last):\n" + context + "  " + p.text + "\n", nothing_known);
      // A rule that names the same line for a narrower reader may take it over (`supersedes`:
      // GS-CUDA-640 takes GS-CUDA-207's cuDNN line in a paste that never mentions torch).
      bool taken_over = false;
      for (const finding& f : fs)
        for (const rule& other : builtin().rules())
          if (other.id == f.id && std::find(other.supersedes.begin(), other.supersedes.end(), r.id) != other.supersedes.end())
            taken_over = true;
      EXPECT_TRUE(has(fs, r.id) || taken_over) << r.id << " did not match its own pattern '" << p.text << "'" << list(fs);
    }
  }
  EXPECT_GE(patterns, 8);
}

TEST(BuiltinRules, HostileValuesEverywhereNeverCrash) {
  const std::vector<std::string> values = {"", " ", "-1", "99999999999999999999", "1.2.3.4.5.6", "GPU-", ",,,", "[[[",
                                           "max_split_size_mb:", ":::", "1e309", std::string(5000, '9'), "\xff\xfe"};
  const char* vars[] = {"HSA_OVERRIDE_GFX_VERSION", "HSA_OVERRIDE_GFX_VERSION_1", "PYTORCH_ALLOC_CONF",
                        "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF", "CUDA_VISIBLE_DEVICES",
                        "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "TORCH_USE_HIPBLASLT", "LD_PRELOAD"};
  for (const std::string& v : values) {
    machine_facts f = two_amd();
    f.gpus.push_back(h200().gpus[0]);
    for (const char* k : vars) f.env[k] = v;
    f.stack.rocm_version = v;
    f.stack.nvidia_driver = v;
    f.python.torch_hip = v;
    f.python.torch_cuda = v;
    f.python.packages["torch"].version = v;
    f.python.packages["bitsandbytes"] = {"bitsandbytes", v, "", "", false};
    f.gpus[0].arch = v;
    f.issues.push_back({v, v});
    EXPECT_NO_THROW(builtin().evaluate(f));
    EXPECT_NO_THROW(builtin().match_error_text(v, f));
  }
}

TEST(BuiltinRules, TheTritonPipelinerErrorNamesTheRuleOnAGfx1201WithFla) {
  machine_facts f = with_pkg(triton36(r9700()), "flash-linear-attention", "0.5.0");
  std::vector<finding> fs = builtin().match_error_text(
      "loc(\"chunk_delta_h.py\":120:4): error: 'tt.load' op operation destroyed but still has uses\n"
      "RuntimeError: PassManager::run failed\n", f);
  const finding* t = nullptr;
  ASSERT_TRUE(has(fs, "GS-TRITON-001", &t)) << list(fs);
  EXPECT_EQ(t->level, severity::fail);
  EXPECT_NE(t->evidence.find("pytorch-triton-rocm 3.6.0+rocm7.2 on gfx1201"), std::string::npos) << t->evidence;
  EXPECT_NE(t->evidence.find("error text matched"), std::string::npos) << t->evidence;
}

TEST(BuiltinRules, FlashAttnRdnaRuleLeavesAnMi100PasteAlone) {
  // GS-PKG-001 fires from facts on an RDNA machine; on a paste (facts unknown) its text match must
  // stay silent where the card is an MI100 (gfx908, CDNA: ROCm/flash-attention#24) and fire where
  // nothing says which card it is.
  const std::string refusal = "RuntimeError: FlashAttention only supports AMD MI200 GPUs or newer.";
  machine_facts unknown = a_paste();
  EXPECT_TRUE(has(builtin().match_error_text(refusal, unknown), "GS-PKG-001"));
  EXPECT_FALSE(has(builtin().match_error_text("what about the MI100 gpu (gfx908)?\n" + refusal, unknown), "GS-PKG-001"));
}

TEST(BuiltinRules, ABf16RefusalOnAnAmpereInstanceIsNotCalledPreAmpere) {
  // GS-CUDA-010 (bf16 needs Ampere) from the text alone, unless the paste says its own GPU is
  // Ampere or newer: then the library's message is wrong about the GPU and "use fp16" hides that.
  // A paste that only compares GPUs in prose keeps it (the facts decide there).
  const std::string refusal = "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU "
                              "with cuda>=11.0\n";
  machine_facts unknown = a_paste();
  EXPECT_TRUE(has(builtin().match_error_text(refusal, unknown), "GS-CUDA-010"));
  EXPECT_FALSE(has(builtin().match_error_text("Training on a Colab L4 instance\n" + refusal, unknown), "GS-CUDA-010"));
  EXPECT_FALSE(has(builtin().match_error_text("GPU: NVIDIA RTX 4090\n" + refusal, unknown), "GS-CUDA-010"));
  EXPECT_TRUE(has(builtin().match_error_text("Colab T4 instance\n" + refusal, unknown), "GS-CUDA-010"));
}

TEST(BuiltinRules, AnUnresolvableCdiDeviceWithTheSpecListedIsNotAMissingSpec) {
  // GS-NV-212 says "generate the CDI spec"; a paste whose `nvidia-ctk cdi list` shows the devices
  // has one, and the engine's failure to read it is another cause.
  const std::string err = "Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all\n";
  machine_facts unknown = a_paste();
  EXPECT_TRUE(has(builtin().match_error_text(err, unknown), "GS-NV-212"));
  EXPECT_FALSE(has(builtin().match_error_text("INFO[0000] Found 3 CDI devices\nnvidia.com/gpu=all\n" + err, unknown), "GS-NV-212"));
}

TEST(BuiltinRules, NativeLinuxDeviceFixesStayQuietUnderWsl) {
  // WSL2 reaches an AMD GPU through /dev/dxg and AMD's WSL runtime: there is no /dev/kfd, no
  // render group and no amdgpu module to check or load, so a fix that names them misleads a WSL
  // user (ROCm/legacy-rocm-build#5461: the group/kfd advice was among its wrong answers). Every
  // rule whose fix is native Linux's must be silenced by host.container_kind = "wsl"; the WSL
  // rules (GS-WSL-*, GS-HIP-007) speak there. Rules on device-node readings (dev.*) or a
  // container spec (container.*) only see what exists, so they need no gate.
  const std::regex native(R"(/dev/kfd|--group-add (video|render)|render group|usermod|lsmod \| grep amdgpu|modprobe amdgpu|amdgpu-dkms|amdgpu\.[a-z_]+=)",
                          std::regex::icase);
  // Fixes that name /dev/kfd beside NVIDIA's or Windows' own steps: their other branches hold under WSL.
  const std::set<std::string> mixed = {"GS-OLLAMA-203", "GS-OLLAMA-205", "GS-CARD-005", "GS-CTR-021",
                                       "GS-LLAMA-150", "GS-ROCM-205", "GS-DET-002"};
  for (const rule& r : builtin().rules()) {
    if (!std::regex_search(r.remediation.source, native) || r.id.rfind("GS-WSL-", 0) == 0 || mixed.count(r.id)) continue;
    bool gated = false, reads_nodes = false;
    for (const condition& c : r.when) {
      gated = gated || (c.key == "host.container_kind" && c.op == cond_op::ne && !c.args.empty() && c.args[0].text == "wsl");
      reads_nodes = reads_nodes || c.key.rfind("dev.", 0) == 0 || c.key.rfind("container.", 0) == 0;
    }
    EXPECT_TRUE(gated || reads_nodes) << r.id << " (" << r.pos.path << ":" << r.pos.line
                                      << "): a native-Linux fix needs host.container_kind = { ne = \"wsl\" } in [rule.when]";
  }
}

TEST(BuiltinRules, PackagingErrorRulesNeedTheirVendorSide) {
  // Near misses of GS-PKG-301..303: the same error shapes without the part that makes the fix right.
  const std::string conflict =
      "ERROR: Cannot install -r requirements.txt (line 4) and torch==2.6.0 because these package versions have conflicting dependencies.\n"
      "    chatterbox-tts 0.1.6 depends on torch==2.5.1\nERROR: ResolutionImpossible\n";
  EXPECT_FALSE(error_text_fires(conflict, "GS-PKG-301")) << "PyPI torch on both sides: no vendor build";
  EXPECT_TRUE(error_text_fires("The user requested torch 2.6.0+rocm6.4.1\n" + conflict, "GS-PKG-301"));
  EXPECT_FALSE(error_text_fires("ERROR: No matching distribution found for jaxlib==0.4.29\n", "GS-PKG-302"))
      << "no local version: another cause (Python, platform)";
  EXPECT_TRUE(error_text_fires("ERROR: No matching distribution found for jaxlib==0.4.29+cuda12.cudnn89\n", "GS-PKG-302"));
  EXPECT_FALSE(error_text_fires("stat /usr/bin/nvidia-container-runtime-hook: no such file or directory\n", "GS-PKG-303"))
      << "the toolkit itself missing is GS-CONT's, not a stale spec";
}

TEST(BuiltinRules, SpentSet21RulesNeedTheirContrast) {
  // Near misses of the rules learned from held-back set 21: each error shape without the part that
  // makes the cause and its fix right stays silent.
  auto& fires = error_text_fires;
  const std::string denied = "DevicePath { render: \"/dev/dri/renderD128\" }\nPermission denied (os error 13)\n";
  EXPECT_TRUE(fires(denied, "GS-HOST-310"));
  EXPECT_FALSE(fires("Permission denied (os error 13)\n", "GS-HOST-310")) << "no render node in sight";
  EXPECT_FALSE(fires(denied + "docker run --device=/dev/dri\n", "GS-HOST-310")) << "containers are GS-HOST-022's";
  EXPECT_FALSE(fires("/dev/dri/renderD128 ok\nPermissionError: [Errno 13] Permission denied: '/home/user/.cache/x'\n", "GS-HOST-310"))
      << "a denied file that is not a device node";

  const std::string hang = "training is stuck with multi-GPUs, but works with a single GPU.\n";
  EXPECT_TRUE(fires(hang, "GS-DIST-506"));
  EXPECT_FALSE(fires("training is stuck with multi-GPUs.\n", "GS-DIST-506")) << "no contrast: many causes hang";
  EXPECT_FALSE(fires(hang + "export NCCL_P2P_DISABLE=1\n", "GS-DIST-506")) << "P2P already off";

  const std::string oom = "torch.OutOfMemoryError: CUDA out of memory.\n";
  EXPECT_TRUE(fires("GPU memory shows a slow and steady increase every epoch\n" + oom, "GS-MEM-385"));
  EXPECT_FALSE(fires(oom, "GS-MEM-385")) << "an OOM without growth is GS-MEM-022's";
  EXPECT_FALSE(fires("memory keeps increasing with each request in vllm\n" + oom, "GS-MEM-385")) << "a KV cache grows by design";

  const std::string glibc = "OSError: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.34' not found (required by ";
  EXPECT_TRUE(fires(glibc + "/venv/site-packages/bitsandbytes/libbitsandbytes_cuda126.so)\n", "GS-BNB-205"));
  EXPECT_FALSE(fires(glibc + "/venv/site-packages/bitblas/libtvm.so)\n", "GS-BNB-205"));
  EXPECT_TRUE(fires(glibc + "/venv/site-packages/bitblas/libtvm.so)\n", "GS-INST-684"));
  EXPECT_FALSE(fires("/usr/lib/libstdc++.so.6: version `GLIBCXX_3.4.32' not found (required by ./main)\n", "GS-INST-684"))
      << "libstdc++ is GS-INST-159's";

  EXPECT_TRUE(fires("triton on ROCm: ld.lld cannot be found\n", "GS-TRITON-212"));
  EXPECT_FALSE(fires("triton: ld.lld cannot be found\n", "GS-TRITON-212")) << "no AMD stack in sight";
  EXPECT_FALSE(fires("hipErrorInvalidDevice on an RX 580 with ROCm\n", "GS-CTR-020")) << "no works-with-sudo contrast";

  const std::string fork = "Version: v1.10.1-amd-53-g32f147b7\nRuntimeError: Torch is not able to use GPU\n";
  EXPECT_TRUE(fires("NVIDIA driver was found.\n" + fork, "GS-APP-698"));
  EXPECT_FALSE(fires(fork, "GS-APP-698")) << "no NVIDIA GPU in sight: the fork may be on its own AMD card";
  EXPECT_FALSE(fires("GeForce RTX 3080 and Radeon RX 6800\n" + fork, "GS-APP-698")) << "an AMD card too";

  EXPECT_TRUE(fires("reverting to versions 5+ days ago fixed it for me\n", "GS-REG-202"));
  EXPECT_FALSE(fires("reverting to the previous driver did not fix it\n", "GS-REG-202")) << "the contrast is denied";
  EXPECT_FALSE(fires("I reverted to an older version but it still crashes\n", "GS-REG-202"));

  EXPECT_TRUE(fires("Intel Arc B580, driver 32.0.101.8724\nVK_ERROR_DEVICE_LOST\n", "GS-VK-012"));
  EXPECT_FALSE(fires("GeForce RTX 4090\nVK_ERROR_DEVICE_LOST\n", "GS-VK-012")) << "not an Intel GPU";
  EXPECT_FALSE(fires("Intel Arc A770 next to an RTX 3060\nVK_ERROR_DEVICE_LOST\n", "GS-VK-012")) << "which GPU was lost";

  const std::string mps = "RuntimeError: The MPS backend is supported on MacOS 12.3+.\n";
  EXPECT_TRUE(fires(mps + "ProductVersion:\t12.7.6\n", "GS-PLAT-250"));
  EXPECT_FALSE(fires(mps + "ProductVersion:\t11.7.10\n", "GS-PLAT-250")) << "below 12.3 every torch refuses";
}

TEST(BuiltinRules, SpentSet22RulesNeedTheirContrast) {
  // Near misses of the rules learned from held-back set 22.
  auto& fires = error_text_fires;
  const std::string mps = "MPSAccelerator can not run on your system since the accelerator is not available.\n";
  EXPECT_TRUE(fires(mps + "my M1 Pro reports platform i386\n", "GS-PLAT-252"));
  EXPECT_FALSE(fires(mps + "my M1 Pro, platform arm64\n", "GS-PLAT-252")) << "a native Python: another cause";
  EXPECT_FALSE(fires(mps + "an Intel MacBook Pro, x86_64\n", "GS-PLAT-252")) << "an Intel Mac has no MPS GPU path anyway";

  const std::string e35 = "CUDA failure 35: CUDA driver version is insufficient for CUDA runtime version\n";
  auto fires_with = [&](const std::string& text, const char* id) {
    machine_facts f = a_paste();
    f.stack.nvidia_driver = "550.78";
    return has(builtin().match_error_text(text, f), id);
  };
  const std::string cuda12 = "image nvidia/cuda:12.2.0-runtime-ubuntu22.04\n";
  EXPECT_TRUE(fires_with(cuda12 + e35, "GS-NV-959"));
  EXPECT_FALSE(fires_with(cuda12 + e35, "GS-NV-007")) << "superseded: the driver shown runs CUDA 12";
  EXPECT_FALSE(fires_with(e35, "GS-NV-959")) << "the program's CUDA not shown: a 550 driver is old for CUDA 13";
  EXPECT_FALSE(fires_with("pip install torch --index-url https://download.pytorch.org/whl/cu130\n" + cuda12 + e35, "GS-NV-959"))
      << "a CUDA 13 program in the paste: the old-driver reading";
  EXPECT_FALSE(fires(cuda12 + e35, "GS-NV-959")) << "no driver shown: GS-NV-007's two readings stand";
  EXPECT_TRUE(fires(e35, "GS-NV-007"));
  EXPECT_TRUE(fires_with("cutlass/examples/python/CuTeDSL/dense_gemm.py\nCUDAError InsufficientDriver\n", "GS-NV-960"));
  EXPECT_FALSE(fires_with("CUDAError InsufficientDriver\n", "GS-NV-960")) << "no CUDA 13 bindings in sight";

  EXPECT_FALSE(fires("ggml_vulkan: Found 0 Vulkan devices\n", "GS-VK-013")) << "no loader error: other rules";
  EXPECT_FALSE(fires("Compute capability < 7.5 detected! Only slow 8-bit matmul is supported for your GPU!\n", "GS-BNB-206"));

  const std::string nvml =
      "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: "
      "no such file or directory: unknown\n";
  EXPECT_TRUE(fires(nvml + "I'm using WSL2 (latest Docker Desktop).\n", "GS-CONT-246"));
  EXPECT_FALSE(fires(nvml + "Ubuntu 22.04 host, docker run --gpus all\n", "GS-CONT-246")) << "native Linux: no driver there";

  const std::string curand = "custom_cuda_layers.h:12:10: fatal error: curand_kernel.h: No such file or directory\n";
  EXPECT_TRUE(fires(curand, "GS-EXT-534"));
  EXPECT_FALSE(fires(curand + "/opt/rocm/bin/hipcc -c custom_cuda_kernel.hip\n", "GS-EXT-534")) << "a HIP build: hipRAND's headers";
}

TEST(BuiltinRules, SpentSet23RulesNeedTheirContrast) {
  // Near misses of the rules learned from held-back set 23's two wrong answers.
  auto& fires = error_text_fires;
  const std::string abort750 = "common.cuh:112: ggml was not compiled with any CUDA arch <= 750\n";
  EXPECT_TRUE(fires("Device 0: NVIDIA A100-SXM4-80GB, compute capability 8.0, VMM: yes\n" + abort750, "GS-LLAMA-598"));
  EXPECT_FALSE(fires("Device 0: NVIDIA GeForce GTX 1080, compute capability 6.1, VMM: yes\n" + abort750, "GS-LLAMA-598"))
      << "an older GPU: the build really lacks its arch (GS-GATE-011)";
  const std::string nvrtc = "OSError: libnvrtc.so.12: cannot open shared object file: No such file or directory\n";
  EXPECT_TRUE(fires("Running on amd gpu with pip installed package\n" + nvrtc, "GS-ROCM-627"));
  EXPECT_FALSE(fires(nvrtc, "GS-ROCM-627")) << "no AMD GPU in sight: a missing CUDA library (GS-INST-158)";
  EXPECT_FALSE(fires("ROCm 6.2 and an RTX 4090 in the same box\n" + nvrtc, "GS-ROCM-627")) << "an NVIDIA GPU too";
}

TEST(BuiltinRules, SpentSet24RulesNeedTheirContrast) {
  // Near misses of the rules learned from held-back set 24's two wrong answers and its misses.
  auto& fires = error_text_fires;
  const std::string nameerror = "ROCm 6.1.1 on an RX 7800 XT\nNameError: name 'amdsmi' is not defined\n";
  EXPECT_TRUE(fires(nameerror, "GS-ROCM-260")) << "the binding not yet installed: installing it is the fix";
  EXPECT_FALSE(fires(nameerror, "GS-ROCM-264"));
  const std::string reinstalled = "I've recompiled amd_smi and tried a fresh install\n" + nameerror;
  EXPECT_TRUE(fires(reinstalled, "GS-ROCM-264"));
  EXPECT_FALSE(fires(reinstalled, "GS-ROCM-260")) << "the reinstall it would advise was already done";

  const std::string nodriver = "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].\n";
  EXPECT_TRUE(fires(nodriver, "GS-NV-011")) << "nothing says the toolkit is there: install it";
  EXPECT_FALSE(fires(nodriver, "GS-CONT-247"));
  EXPECT_TRUE(fires(nodriver + "NVIDIA Container Runtime version 1.17.2\n", "GS-CONT-247"));

  const std::string swapped = "Installing collected packages: torch, xformers\n  Attempting uninstall: torch\n"
                              "    Uninstalling torch-2.4.1:\n      Successfully uninstalled torch-2.4.1\n";
  EXPECT_TRUE(fires("pip3 install -U xformers --index-url https://download.pytorch.org/whl/cu121\n" + swapped, "GS-SKEW-024"));
  EXPECT_FALSE(fires("pip install -U torch xformers\n" + swapped, "GS-SKEW-024")) << "torch itself was asked for";

  EXPECT_TRUE(fires("sudo ln -s /usr/local/cuda/lib64/libcudart.so.12 /usr/local/cuda/lib64/libcudart.so.11.0\n", "GS-CUDA-963"));
  EXPECT_FALSE(fires("sudo ln -s /usr/local/cuda/lib64/libcudart.so.12.3.101 /usr/local/cuda/lib64/libcudart.so.12\n", "GS-CUDA-963"))
      << "the same major: the usual soname link";
  const std::string symbol = ": undefined symbol: _ZN5cudnn3cnn34layerNormFwd_execute_internal_impl, version libcudnn_cnn_infer.so.8\n";
  EXPECT_TRUE(fires("Error: /usr/local/cuda/lib64/libcudnn_cnn_train.so.8" + symbol, "GS-CUDA-962"));
  EXPECT_FALSE(fires("Error: /venv/lib/python3.10/site-packages/nvidia/cudnn/lib/libcudnn_cnn_train.so.8" + symbol, "GS-CUDA-962"))
      << "the wheel's own copy: not a system cuDNN in the way";

  const std::string hipblas = "The package sets (cmakeBool \"GGML_HIPBLAS\" rocmSupport)\n";
  EXPECT_TRUE(fires(hipblas + "whisper-server reports \"no GPU found\" and runs entirely on CPU\n", "GS-LLAMA-599"));
  EXPECT_FALSE(fires(hipblas, "GS-LLAMA-599")) << "no sign the GPU went unused";
  EXPECT_FALSE(fires(hipblas + "no GPU found\nggml_cuda_init: found 1 ROCm devices:\n", "GS-LLAMA-599"))
      << "an older ggml, where GGML_HIPBLAS was the name: the HIP backend is there";

  EXPECT_TRUE(fires("My RX 9070 XT: the WebUI still recognizes the gfx1036 architecture\n", "GS-HIP-601"));
  EXPECT_FALSE(fires("The WebUI recognizes the gfx1036 architecture\n", "GS-HIP-601")) << "an APU alone: the iGPU is the GPU";

  const std::string cl = "CalledProcessError: Command '['C:\\\\BuildTools\\\\cl.EXE', 'C:\\\\Temp\\\\tmp1\\\\cuda_utils.c', '/nologo']'\n";
  EXPECT_TRUE(fires("Triton's launcher: I created a new env using UV with Python 3.12.9\n" + cl, "GS-TRITON-013"));
  EXPECT_FALSE(fires("Triton's launcher: a conda env with Python 3.12\n" + cl, "GS-TRITON-013")) << "a full Python: the command line alone says nothing";

  const std::string progress = "[4/94] Building CUDA object CMakeFiles/flash_ops.dir/hopper/flash_fwd_combine.cu.o\n";
  EXPECT_TRUE(fires("compiling it uses a lot RAM, around 260GB using MAX_CORES\n" + progress, "GS-EXT-100"));
  EXPECT_FALSE(fires("compiling it uses a lot RAM, around 260GB using MAX_CORES\n", "GS-EXT-100")) << "no build in the paste";
  EXPECT_FALSE(fires("training uses a lot of GPU memory\n" + progress, "GS-EXT-100")) << "GPU memory is not the build's RAM";

  const std::string ck = "error: use of undeclared identifier 'CK_TILE_BUFFER_RESOURCE_3RD_DWORD'\n";
  EXPECT_TRUE(fires("I am trying to build flash attention on rocm6.3 for gfx1151\n" + ck, "GS-ATTN-003"));
  EXPECT_FALSE(fires("building composable_kernel's examples\n" + ck, "GS-ATTN-003")) << "CK itself, not flash-attention";

  const std::string symbol_line = "error:/opt/rocm/lib/libhipblas.so.2: undefined symbol: rocblas_sgbmv_64\n";
  EXPECT_TRUE(fires(symbol_line, "GS-INST-700"));
  EXPECT_FALSE(fires("/venv/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
                     "_ZN3c104cuda9SetDeviceEi\n", "GS-INST-700"))
      << "an extension built for another torch: GS-EXT-001 knows that line, the fallback stands aside";
}

TEST(BuiltinRules, SpentSet25RulesNeedTheirContrast) {
  // Near misses of the rules learned from held-back set 25's two wrong answers.
  auto& fires = error_text_fires;
  const std::string nodev = "ggml_cuda_init: failed to initialize ROCm: no ROCm-capable device is detected\n"
                            "C:\\lemonade\\llamacpp\\rocm-stable\\llama-server.exe\n";
  const std::string copied = "The app copied amdhip64_7.dll (10.0.3581) into the exe directory; System32 has the driver's newer 10.0.3679\n";
  EXPECT_TRUE(fires(copied + nodev, "GS-LLAMA-600"));
  EXPECT_FALSE(fires(copied + nodev, "GS-LLAMA-150")) << "the driver is the newer side: updating it is not the fix";
  EXPECT_TRUE(fires("amdhip64_6.dll is in the folder\n" + nodev, "GS-LLAMA-150")) << "no direction told: the usual case";
  EXPECT_FALSE(fires("amdhip64_6.dll is in the folder\n" + nodev, "GS-LLAMA-600"));

  const std::string cannot_read = "rocBLAS error: Cannot read C:\\venv\\_rocm_sdk_devel\\bin\\rocblas\\library/TensileLibrary.dat: "
                                  "No such file or directory for GPU arch : gfx1200\n";
  EXPECT_TRUE(fires(cannot_read + "rocBLAS error: Could not initialize Tensile host:\ndirectory_iterator::directory_iterator: "
                    "The system cannot find the path specified.: \"C:\\venv\\_rocm_sdk_devel\\bin\\rocblas\\library\"\n", "GS-BLAS-020"));
  EXPECT_FALSE(fires(cannot_read + " List of available TensileLibrary Files :\n\"C:\\rocm\\library\\TensileLibrary_lazy_gfx1100.dat\"\n",
                     "GS-BLAS-020"))
      << "the folder exists with other archs' files: a missing arch (GS-BLAS-001)";

  const std::string p2p = "Failed: Cuda error /vllm/csrc/custom_all_reduce.cuh:307 'peer access is not supported between these two devices'\n";
  EXPECT_TRUE(fires(p2p, "GS-DIST-215"));
  EXPECT_FALSE(fires(p2p, "GS-DIST-210")) << "NCCL_P2P_DISABLE does not reach the custom kernel";
  EXPECT_TRUE(fires("NCCL WARN failed to open CUDA IPC handle : 217 peer access is not supported between these two devices\n",
                    "GS-DIST-210"));
  EXPECT_TRUE(fires("Flash attention doesn't support any GPU lower than ampere.\n", "GS-EXT-005"));
  EXPECT_FALSE(fires("Flash attention does support Ampere and newer, my A100 works\n", "GS-EXT-005"));
  EXPECT_TRUE(fires("Original error: Configured CUDA binary not found at /venv/bitsandbytes/libbitsandbytes_cuda131.so\n", "GS-BNB-207"));
}

TEST(BuiltinRules, SpentSet25MissesNeedTheirContrast) {
  // Near misses of the rules learned from held-back set 25's missed cases.
  auto& fires = error_text_fires;
  const std::string jax = "jax._src.xla_bridge:444] Jax plugin configuration error: Exception when calling jax_plugins.xla_cuda12.initialize()\n";
  EXPECT_TRUE(fires(jax + "RuntimeError: Unable to load cuSPARSE. Is it installed?\n", "GS-CUDA-964"));
  EXPECT_TRUE(fires(jax + "RuntimeError: jaxlib/cuda/versions_helpers.cc:81: operation cusparseGetProperty(MAJOR_VERSION, &major) failed: "
                          "The cuSPARSE library was not found.\n", "GS-CUDA-964"));
  EXPECT_FALSE(fires("OSError: libcusparse.so.12: cannot open shared object file: No such file or directory\n", "GS-CUDA-964"))
      << "torch's loader error is another rule's";

  EXPECT_TRUE(fires("I installed the nvidia driver inside WSL and now nvidia-smi fails\n", "GS-WSL-713"));
  EXPECT_TRUE(fires("WSL2 Ubuntu 22.04\n$ sudo apt-get -y install cuda\n", "GS-WSL-713"));
  EXPECT_FALSE(fires("I installed the NVIDIA driver on Windows and the CUDA toolkit in WSL\n", "GS-WSL-713"))
      << "the Windows driver is the right one";
  EXPECT_FALSE(fires("WSL2 Ubuntu 22.04\n$ sudo apt-get -y install cuda-toolkit-12-4\n", "GS-WSL-713")) << "the toolkit has no driver";
  EXPECT_FALSE(fires("$ sudo apt-get -y install cuda\n", "GS-WSL-713")) << "native Linux: the meta-package is right there";

  EXPECT_TRUE(fires("ggml-cuda.cu:1278: to_fp32_cuda != nullptr\n", "GS-LLAMA-601"));
  EXPECT_FALSE(fires("ggml-cuda.cu:1278: GGML_ASSERT(ptr != nullptr) failed\n", "GS-LLAMA-601"));
  EXPECT_TRUE(fires("ggml-cuda.cu:359: HipVMM Failure: out of memory\n", "GS-LLAMA-602"));
  EXPECT_FALSE(fires("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4096.00 MiB on device 0: cudaMalloc failed: out of memory\n",
                     "GS-LLAMA-602"))
      << "a real allocation failure is not the VMM pool";

  const std::string memquery = "ROCm error: invalid argument\n  current device: 0, in function ggml_backend_cuda_device_get_memory at "
                               "ggml-cuda.cu:2740\n  hipMemGetInfo(free, total)\n";
  EXPECT_TRUE(fires(memquery, "GS-HIP-602"));
  EXPECT_FALSE(fires("CUDA error: invalid argument\n  current device: 0, in function ggml_backend_cuda_device_get_memory\n"
                     "  cudaMemGetInfo(free, total)\n",
                     "GS-HIP-602"))
      << "an NVIDIA build's memory query";
  machine_facts new_kernel = a_paste();
  new_kernel.host.kernel = "6.8.0-49-generic";
  EXPECT_FALSE(has(builtin().match_error_text(memquery, new_kernel), "GS-HIP-602")) << "a 6.x kernel is not the cause";
}

TEST(BuiltinRules, SpentSet26RulesNeedTheirContrast) {
  // Near misses of the rules learned from held-back set 26.
  auto& fires = error_text_fires;
  const std::string cdi = "Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=0\n";
  EXPECT_TRUE(fires("$ nvidia-ctk cdi list\nINFO[0000] Found 3 CDI devices\nnvidia.com/gpu=0\n" + cdi, "GS-CONT-248"));
  EXPECT_FALSE(fires("$ nvidia-ctk cdi list\nINFO[0000] Found 3 CDI devices\nnvidia.com/gpu=0\n" + cdi, "GS-NV-212"));
  EXPECT_FALSE(fires(cdi, "GS-CONT-248")) << "no listing: the spec is missing (GS-NV-212)";

  const std::string nix = "services.ollama = { enable = true; acceleration = \"rocm\"; rocmOverrideGfx = \"10.3.0\"; };\n"
                          "nixos/ollama: systemd service doesn't use AMD GPU\n";
  EXPECT_TRUE(fires(nix, "GS-APP-699"));
  EXPECT_FALSE(fires(nix + "Ubuntu 24.04\n", "GS-APP-223")) << "the override is already set through rocmOverrideGfx";
  EXPECT_FALSE(fires("services.ollama.acceleration = \"cuda\";\nollama runs on the CPU\n", "GS-APP-699")) << "an NVIDIA service";

  EXPECT_TRUE(fires("ROCm 6.2 docker, navi_support branch\nERROR: Failed to build installable wheels for some pyproject.toml based "
                    "projects (flash_attn)\n", "GS-ATTN-207"));
  EXPECT_FALSE(fires("CUDA 12.4\nERROR: Failed building wheel for flash-attn\n", "GS-ATTN-207")) << "an NVIDIA build";
  EXPECT_FALSE(fires("ROCm 6.2\nKilled signal terminated program cc1plus\nERROR: Failed building wheel for flash-attn\n", "GS-ATTN-207"))
      << "host RAM (GS-EXT-100)";

  const std::string tensile = "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory "
                              "for GPU arch : ";
  EXPECT_TRUE(fires(tensile + "gfx90c\n", "GS-BLAS-021"));
  EXPECT_FALSE(fires(tensile + "gfx90c\n", "GS-BLAS-001")) << "superseded by the family override";
  EXPECT_FALSE(fires(tensile + "gfx1010\n", "GS-BLAS-021")) << "RDNA1 has no shipped twin";
  EXPECT_FALSE(fires(tensile + "gfx1201\n", "GS-BLAS-021")) << "a target of its own, no family twin";

  EXPECT_TRUE(fires("-- Could NOT find Vulkan (missing: Vulkan_LIBRARY Vulkan_INCLUDE_DIR) (found version \"\")\n", "GS-VK-014"));
  EXPECT_FALSE(fires("ggml_vulkan: No devices found.\n", "GS-VK-014")) << "a runtime failure, not the build";

  EXPECT_TRUE(fires("$ /usr/lib/wsl/lib/nvidia-smi\nFailed to initialize NVML: GPU access blocked by the operating system\n", "GS-WSL-714"));
  EXPECT_FALSE(fires("Failed to initialize NVML: Driver/library version mismatch\n", "GS-WSL-714"));

  EXPECT_TRUE(fires("ERROR: No matching distribution found for torch==2.6.0+cu121\n", "GS-INST-701"));
  EXPECT_FALSE(fires("ERROR: No matching distribution found for torch==2.5.1+cu121\n", "GS-INST-701"))
      << "2.5.1 is on the cu121 index: another cause (the Python version)";
  EXPECT_FALSE(fires("pip install torch==2.6.0+cu126 --index-url https://download.pytorch.org/whl/cu126\nSuccessfully installed torch\n",
                     "GS-INST-701"));

  EXPECT_TRUE(fires("Could not find the bitsandbytes CUDA binary at WindowsPath('A:/venv/lib/site-packages/bitsandbytes/"
                    "libbitsandbytes_cuda128.dll')\n", "GS-BNB-207"));
  EXPECT_FALSE(fires("Could not find the bitsandbytes CUDA binary at /venv/bitsandbytes/libbitsandbytes_cuda118.so\n", "GS-BNB-207"))
      << "CUDA 11.8 came before every such release: its file missing is another cause";

  const std::string ort = "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : Non-zero status code "
                          "returned while running Relu node. Name:'Relu_1' Status Message: CUDA error cudaErrorNoKernelImageForDevice:"
                          "no kernel image is available for execution on the device\n";
  EXPECT_TRUE(fires(ort, "GS-CUDA-965"));
  EXPECT_FALSE(fires(ort, "GS-CUDA-004")) << "onnxruntime, not torch, is the library without the kernel";
  EXPECT_FALSE(fires("RuntimeError: CUDA error: no kernel image is available for execution on the device\n", "GS-CUDA-965"));

  EXPECT_TRUE(fires("$ ntldd ggml-cuda.dll\n        cublas64_13.dll => not found\n", "GS-CUDA-966"));
  EXPECT_TRUE(fires("\tlibcudart.so.12 => not found\n", "GS-CUDA-966"));
  EXPECT_FALSE(fires("        cublas64_12.dll => C:\\CUDA\\v12.4\\bin\\cublas64_12.dll (0x00007ff8)\n", "GS-CUDA-966"));

  const std::string bundled = "The rocm-gfx1151 prebuilts crash with SIGSEGV: the bundled ROCm runtime segfaults on startup\n";
  EXPECT_TRUE(fires(bundled + "It works with the system ROCm (LD_LIBRARY_PATH=/opt/rocm/lib).\n", "GS-HIP-603"));
  EXPECT_FALSE(fires(bundled, "GS-HIP-603")) << "without the system-ROCm contrast the cause is open";

  const std::string rootless = "Podman rootless: running the rocm image it does not utilize the GPU, the model runs on the cpu\n";
  EXPECT_TRUE(fires(rootless + "When running podman as root, the GPU is utilized.\n", "GS-HOST-067"));
  EXPECT_FALSE(fires(rootless, "GS-HOST-067")) << "no root/docker contrast: the cause is open";
  EXPECT_FALSE(fires("Podman rootless with CUDA: it does not use the GPU; as root it does\n", "GS-HOST-067")) << "not an AMD container";
}

TEST(BuiltinRules, SpentSet27RulesNeedTheirContrast) {
  // Near misses of the rules learned from held-back set 27.
  auto& fires = error_text_fires;
  const std::string semlock = "    sl = self._semlock = _multiprocessing.SemLock(\n";
  EXPECT_TRUE(fires(semlock + "OSError: [Errno 28] No space left on device\n", "GS-MEM-386"));
  EXPECT_FALSE(fires("OSError: [Errno 28] No space left on device: '/data/ckpt/model.safetensors'\n", "GS-MEM-386"))
      << "a full disk, not shared memory";

  machine_facts py313 = a_paste();
  py313.python.version = "3.13.7";
  machine_facts py312 = py313;
  py312.python.version = "3.12.9";
  const std::string no_wheel = "ERROR: Could not find a version that satisfies the requirement torch==2.5.1 (from versions: 2.6.0+cu124)\n";
  EXPECT_TRUE(has(builtin().match_error_text(no_wheel, py313), "GS-INST-702"));
  EXPECT_FALSE(has(builtin().match_error_text(no_wheel, py312), "GS-INST-702")) << "3.12 has 2.5.1's wheels";
  EXPECT_FALSE(fires(no_wheel, "GS-INST-702")) << "the Python version must be shown";
  EXPECT_FALSE(has(builtin().match_error_text("ERROR: No matching distribution found for torch==2.7.0\n", py313), "GS-INST-702"));

  EXPECT_TRUE(fires("Error: crun: cannot stat `/lib64/libEGL_nvidia.so.550.54.14`: No such file or directory: OCI runtime attempted "
                    "to invoke a command that was not found\n", "GS-NV-961"));
  EXPECT_FALSE(fires("Error: crun: cannot stat `/dev/nvidia-uvm`: No such file or directory\n", "GS-NV-961")) << "a device node";
  EXPECT_TRUE(fires("error running hook #0: fork/exec /usr/bin/nvidia-cdi-hook: no such file or directory\n", "GS-NV-962"));

  EXPECT_TRUE(fires("  File \"/usr/lib/python3/dist-packages/aiter/jit/utils/chip_info.py\", line 63\nKeyError: 'gfx1151'\n", "GS-SUP-629"));
  EXPECT_FALSE(fires("KeyError: 'gfx_arch'\n", "GS-SUP-629")) << "a config key, not an arch";
  EXPECT_FALSE(fires("KeyError: 'model.layers.0.mlp'\n", "GS-SUP-629"));

  EXPECT_TRUE(fires("WARNING: Failed to find CUDA.\n", "GS-TRITON-600"));
  EXPECT_FALSE(fires("NCCL WARN Failed to find CUDA library libcuda.so\n", "GS-TRITON-600"));

  EXPECT_TRUE(fires("Failed to load ZLUDA: Could not find module 'C:\\Python311\\bin\\rocblas.dll' (or one of its dependencies).\n",
                    "GS-WIN-254"));
  EXPECT_FALSE(fires("Failed to load ZLUDA: Could not find module 'C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\rocblas.dll' (or one of "
                     "its dependencies).\n",
                     "GS-WIN-254"))
      << "the SDK's own folder: its dependency is missing, another cause";
}

TEST(BuiltinRules, SpentSet28RulesNeedTheirContrast) {
  // Near misses of the rules learned from held-back set 28 (its three wrong answers mended).
  auto& fires = error_text_fires;
  const std::string none = "RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not match the version used "
                           "to compile Pytorch binaries.  Pytorch binaries were compiled with Cuda None.\n";
  EXPECT_TRUE(fires(none, "GS-EXT-535"));
  EXPECT_FALSE(fires(none, "GS-EXT-219")) << "no toolkit can match a torch without CUDA";
  const std::string mismatch = "RuntimeError: Cuda extensions are being compiled with a version of Cuda that does not match the version "
                               "used to compile Pytorch binaries.  Pytorch binaries were compiled with Cuda 12.1.\n";
  EXPECT_TRUE(fires(mismatch, "GS-EXT-219"));
  EXPECT_FALSE(fires(mismatch, "GS-EXT-535"));

  const std::string nodev = "E tensorflow/stream_executor/cuda/cuda_driver.cc:271] failed call to cuInit: CUDA_ERROR_NO_DEVICE: no "
                            "CUDA-capable device is detected\n";
  EXPECT_TRUE(fires("export CUDA_VISIBLE_DEVICES=-1\n" + nodev, "GS-NOTSTACK-004"));
  EXPECT_FALSE(fires("export CUDA_VISIBLE_DEVICES=-1\n" + nodev, "GS-NV-207")) << "hidden on purpose";
  EXPECT_TRUE(fires("export CUDA_VISIBLE_DEVICES=1\n" + nodev, "GS-NV-207")) << "a wrong index is still GS-NV-207's";
  EXPECT_FALSE(fires("export CUDA_VISIBLE_DEVICES=1\n" + nodev, "GS-NOTSTACK-004"));

  const std::string oom = "ggml_cuda_init: found 1 CUDA devices:\nggml_backend_cuda_buffer_type_alloc_buffer: allocating 40000.00 MiB on "
                          "device 0: cudaMalloc failed: out of memory\n";
  EXPECT_TRUE(fires("On a system with dual 3090 GPUs a single GPU is used\n-e CUDA_VISIBLE_DEVICES=0\n" + oom, "GS-LLAMA-603"));
  EXPECT_FALSE(fires("On a system with dual 3090 GPUs\n-e CUDA_VISIBLE_DEVICES=0,1\n" + oom, "GS-LLAMA-603")) << "both listed";
  EXPECT_FALSE(fires("My RTX 3090 runs out of memory\nCUDA_VISIBLE_DEVICES=0\n" + oom, "GS-LLAMA-603")) << "one GPU: a real OOM";

  EXPECT_TRUE(fires("failed to parse CDI Spec \"/etc/cdi/nvidia.yaml\": failed to unmarshal CDI Spec: error unmarshaling JSON: while "
                    "decoding JSON: json: unknown field \"additionalGids\"\n", "GS-CONT-248"));
  EXPECT_TRUE(fires("Error: llama runner process has terminated: exit status 0xc0000139\n", "GS-WIN-255"));
  EXPECT_FALSE(fires("Error: llama runner process has terminated: exit status 0xc0000409\n", "GS-WIN-255"));
  EXPECT_TRUE(fires("level=INFO source=gpu.go:604 msg=\"no nvidia devices detected by library /usr/lib64/libcuda.so.575.64.05\"\n",
                    "GS-OLLAMA-281"));
  EXPECT_FALSE(fires("level=INFO source=gpu.go:386 msg=\"no compatible GPUs were discovered\"\n", "GS-OLLAMA-281"));
  EXPECT_TRUE(fires("ImportError: librocprofiler-sdk.so.1: cannot open shared object file: No such file or directory\n", "GS-ROCM-259"));
}

TEST(BuiltinRules, SpentSet28And29RulesNeedTheirContrast) {
  // Near misses of the rules learned from spent set 28 and of set 29's wrong answers, mended.
  auto& fires = error_text_fires;
  const std::string py2 = "ImportError: /opt/rocm-3.7.0/lib/migraphx.so: undefined symbol: _Py_ZeroStruct\n";
  EXPECT_TRUE(fires(py2, "GS-INST-703"));
  EXPECT_FALSE(fires(py2, "GS-INST-700")) << "the Python C API names its own cause";
  EXPECT_FALSE(fires("ImportError: libtorch_cuda.so: undefined symbol: _ZN3c104cuda9SetDeviceEi\n", "GS-INST-703"))
      << "a C++ symbol is two builds of a library, not the interpreter";

  // Rules that need the paste to show where it ran (when_shown): the host facts a paste gave.
  auto& fires_on = error_text_fires_with<void (*)(machine_facts&)>;
  auto wsl = [](machine_facts& m) { m.host.container_kind = "wsl"; };
  auto linux_host = [](machine_facts& m) { m.host.os_id = "ubuntu"; };
  auto windows = [](machine_facts& m) { m.host.os_id = "windows"; };
  const std::string ollama = "WARNING: No NVIDIA/AMD GPU detected. Ollama will run in CPU-only mode.\n";
  EXPECT_TRUE(fires_on(ollama, "GS-WSL-715", wsl));
  EXPECT_FALSE(fires_on("| NVIDIA-SMI 546.33   Driver Version: 546.33   CUDA Version: 12.3 |\n" + ollama, "GS-WSL-715", wsl))
      << "nvidia-smi works in WSL: only the installer's check";
  EXPECT_FALSE(fires_on(ollama, "GS-WSL-715", linux_host)) << "native Linux is GS-OLLAMA-204's";
  EXPECT_FALSE(fires(ollama, "GS-WSL-715")) << "a paste that does not show WSL";

  const std::string webui = "RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS\n";
  EXPECT_TRUE(fires_on("GPU: Radeon RX 9070\n" + webui, "GS-WIN-256", windows));
  EXPECT_FALSE(fires_on("GPU: Radeon RX 9070, ZLUDA\n" + webui, "GS-WIN-256", windows)) << "ZLUDA runs a CUDA torch on purpose";
  EXPECT_FALSE(fires_on("GPU: Radeon RX 9070\n" + webui, "GS-WIN-256", linux_host)) << "Linux has ROCm torch wheels with their own failures";

  const std::string enomem = "ROCk module is loaded\nUnable to open /dev/kfd read-write: Cannot allocate memory\n";
  EXPECT_TRUE(fires("Installing CUDA Toolkit broke ROCm installation\n" + enomem, "GS-AMDGPU-020"));
  EXPECT_FALSE(fires("Installing CUDA Toolkit broke ROCm installation\n" + enomem, "GS-ROCM-303")) << "no torch in sight";
  EXPECT_TRUE(fires("my ROCm setup: pip install -r requirements.txt installs the CUDA versions of torch\n", "GS-ROCM-303"));
  EXPECT_FALSE(fires(enomem + "[ 3.5] kfd kfd: amdgpu: PITCAIRN  not supported in kfd\n", "GS-AMDGPU-020")) << "the specific reason wins";

  const std::string nvrtc = "nvrtc: error: invalid value for --gpu-architecture (-arch)\n";
  EXPECT_TRUE(fires("Device #1: Kernel /usr/local/share/hashcat/OpenCL/shared.cl build failed.\n" + nvrtc, "GS-CUDA-968"));
  EXPECT_FALSE(fires("Device #1: Kernel /usr/local/share/hashcat/OpenCL/shared.cl build failed.\n" + nvrtc, "GS-TORCH-019"));
  EXPECT_TRUE(fires("import torch\n" + nvrtc, "GS-TORCH-019"));
  EXPECT_FALSE(fires("import torch\n" + nvrtc, "GS-CUDA-968"));

  const std::string fault = "Memory access fault by GPU node-1 (Agent handle: 0x55) on address 0x65. Reason: Page not present or supervisor privilege\n";
  EXPECT_TRUE(fires("the miner on my rig of 9 RX 6600\n" + fault, "GS-HOST-068"));
  EXPECT_FALSE(fires("the miner on my rig of 9 RX 6600\n" + fault, "GS-HIP-398"));
  EXPECT_FALSE(fires("training Llama on an RX 7900 XTX\n" + fault, "GS-HOST-068"));

  EXPECT_TRUE(fires("CUDA Error:\n    Error code: 98\n    Error text: invalid device function\n", "GS-CUDA-969"));
  EXPECT_FALSE(fires("RuntimeError: HIP error: invalid device function\n", "GS-CUDA-969")) << "HIP's words on an AMD GPU";
  const std::string int8 = "RuntimeError: cuBLAS failed with status CUBLAS_STATUS_NOT_SUPPORTED\n";
  EXPECT_TRUE(fires("faster_whisper on my RTX 5080\n" + int8, "GS-CUDA-970"));
  EXPECT_FALSE(fires("faster_whisper on my GTX 1080\n" + int8, "GS-CUDA-970")) << "not the Blackwell int8 gap";
  EXPECT_TRUE(fires("Error: stat nvidia.com/gpu=all: no such file or directory\n", "GS-CONT-249"));
  EXPECT_FALSE(fires("Error: stat /dev/nvidia0: no such file or directory\n", "GS-CONT-249")) << "a real device path";
  EXPECT_TRUE(fires("Could not start backend: Runtime compute cap 75 is not compatible with compile time compute cap 80\n", "GS-APP-700"));

  const std::string insufficient = "in a docker container: RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA runtime version\n";
  auto check_driver = [&](const char* v, const char* id) {
    return error_text_fires_with(insufficient, id, [v](machine_facts& m) { m.stack.nvidia_driver = v; });
  };
  EXPECT_TRUE(check_driver("565.77", "GS-CONT-250"));
  EXPECT_FALSE(check_driver("565.77", "GS-NV-007")) << "the container, not the driver";
  EXPECT_FALSE(check_driver("470.82", "GS-CONT-250")) << "a driver older than CUDA 12 may really be too old";
  EXPECT_TRUE(check_driver("470.82", "GS-NV-007"));
  EXPECT_FALSE(fires(insufficient, "GS-CONT-250")) << "no driver shown: the generic answer";
  EXPECT_TRUE(fires("ComfyUI-Zluda\\venv\nRuntimeError: GET was unable to find an engine to execute this computation\n", "GS-WIN-257"));
  EXPECT_FALSE(fires("RuntimeError: GET was unable to find an engine to execute this computation\n", "GS-WIN-257")) << "no ZLUDA";
  const std::string hipfile = "ERROR:libhipfile.so.0: cannot open shared object file: No such file or directory\n";
  EXPECT_TRUE(fires("since the 10.1.0a20260811 nightly\n" + hipfile, "GS-ROCM-266"));
  EXPECT_FALSE(fires("since the 10.1.0a20260811 nightly\n" + hipfile, "GS-ROCM-259")) << "the wheel's preload list, not /opt/rocm";
  EXPECT_TRUE(fires("rocminfo\n" + hipfile, "GS-ROCM-259")) << "a system install";
  EXPECT_FALSE(fires("rocminfo\n" + hipfile, "GS-ROCM-266"));
  auto polaris = shows_amd_gpu("gfx803");
  EXPECT_TRUE(error_text_fires_with("ninja: error: unknown target 'ggml-hip', did you mean 'ggml-cpu'\n", "GS-SUP-630", polaris));
  EXPECT_FALSE(error_text_fires_with("ggml_vulkan: Found 1 Vulkan devices: RX 580, and ollama is slow\n", "GS-SUP-630", polaris))
      << "already on Vulkan";
  EXPECT_FALSE(fires("ninja: error: unknown target 'ggml-hip', did you mean 'ggml-cpu'\n", "GS-SUP-630")) << "no gfx8 card shown";
}

TEST(BuiltinRules, SpentSet30RulesNeedTheirContrast) {
  // Set 30's wrong answers, mended, and their near misses.
  auto& fires = error_text_fires;
  EXPECT_TRUE(fires("llama-server: error while loading shared libraries: libllama-server-impl.so: cannot open shared object file: No such "
                    "file or directory\n", "GS-LLAMA-604"));
  EXPECT_FALSE(fires("python: error while loading shared libraries: libpython3.11.so.1.0: cannot open shared object file\n", "GS-LLAMA-604"));

  auto rdna1_on = [](const char* kernel) {
    return error_text_fires_with("devProgram.load() failed with buildLog=Error: Freezing the executable failed: "
                                 "HSA_STATUS_ERROR_OUT_OF_RESOURCES\n", "GS-AMDGPU-021", [kernel](machine_facts& m) {
                                   m.gpus.push_back({});
                                   m.gpus.back().vendor = "amd";
                                   m.gpus.back().arch = "gfx1012";
                                   m.host.kernel = kernel;
                                 });
  };
  EXPECT_TRUE(rdna1_on("6.12.101+deb13-amd64"));
  EXPECT_FALSE(rdna1_on("6.8.0-49-generic")) << "kernels before 6.12 do not validate the CWSR area";

  const std::string cpu = "[InvokeAI]::INFO --> Using torch device: CPU\n";
  EXPECT_TRUE(fires("GPU model: RX 7900 XTX (ROCm)\nThe installed version of bitsandbytes was compiled without GPU support.\n" + cpu, "GS-ROCM-268"));
  EXPECT_FALSE(fires("GPU model: RX 7900 XTX (ROCm)\nThe installed version of bitsandbytes was compiled without GPU support.\n" + cpu, "GS-BNB-005"))
      << "bitsandbytes' message is the consequence";
  EXPECT_FALSE(fires("GPU: RTX 4090\n" + cpu, "GS-ROCM-268")) << "no AMD GPU in sight";

  EXPECT_TRUE(fires("Forge AMD 7900xtx. Rocm 6.2.4 and Rocm 6.1.2 doesn't work. Rocm 5.7.1 Works\n", "GS-WIN-258"));
  EXPECT_FALSE(fires("Forge AMD 7900xtx. Rocm 6.2.4 and Rocm 6.1.2 doesn't work. Rocm 5.7.1 Works\n", "GS-REG-201"));
  EXPECT_FALSE(fires("vLLM on ROCm 6.2.4 doesn't work, ROCm 6.1.2 works\n", "GS-WIN-258")) << "no ZLUDA web UI";
  EXPECT_FALSE(fires("Radeon 780M (gfx1103): Ollama v0.11.6 falls back to CPU\n", "GS-ROCM-268")) << "Ollama has no torch";
  EXPECT_TRUE(fires("InvokeAI on my AMD R9700 still falls back to CPU, does not detect my GPU\n", "GS-ROCM-268"));
}

TEST(BuiltinRules, SpentSet31RulesNeedTheirContrast) {
  // Set 31's wrong answers, mended, and their near misses.
  auto& fires = error_text_fires;
  const std::string denied = "Looking in indexes: https://download.pytorch.org/whl/rocm6.2.4\nERROR: Could not find a version that "
                             "satisfies the requirement torch (from versions: none)\n";
  EXPECT_TRUE(fires(denied + "Opening the URL in a browser shows AccessDenied\n", "GS-ROCM-269"));
  EXPECT_FALSE(fires(denied, "GS-ROCM-269")) << "an index that exists but has no wheel for this Python";
  const std::string mla = "ImportError('/usr/local/lib/python3.12/dist-packages/vllm/_C.abi3.so: undefined symbol: "
                          "_Z18cutlass_mla_decodeRKN2at6TensorE')\n";
  EXPECT_TRUE(fires("WARNING [rocm.py:29] Failed to import from vllm._C with " + mla, "GS-VLLM-212"));
  EXPECT_FALSE(fires("WARNING [rocm.py:29] Failed to import from vllm._C with " + mla, "GS-INST-700"));
  EXPECT_FALSE(fires("on an H100: " + mla, "GS-VLLM-212")) << "a CUDA build: another cause";
  const std::string cdi = "Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=0\n";
  EXPECT_TRUE(fires("$ sudo podman run --device=nvidia.com/gpu=0 works\nRunning podman as non root user, I get:\n" + cdi, "GS-CONT-251"));
  EXPECT_FALSE(fires("$ sudo podman run --device=nvidia.com/gpu=0 works\nRunning podman as non root user, I get:\n" + cdi, "GS-NV-212"));
  EXPECT_FALSE(fires(cdi, "GS-CONT-251")) << "no root/rootless contrast: maybe no spec at all";
  const std::string igpu = "msg=\"dropping integrated GPU; to enable, set OLLAMA_IGPU_ENABLE=1\"\n";
  EXPECT_TRUE(fires(igpu + "  id=1 library=Vulkan name=Vulkan1 description=\"NVIDIA GeForce RTX 4080 Laptop GPU\"\n", "GS-OLLAMA-282"));
  EXPECT_FALSE(fires(igpu + "  id=0 library=Vulkan name=Vulkan0 description=\"AMD Radeon 890M Graphics\"\n", "GS-OLLAMA-282"))
      << "a real iGPU is GS-OLLAMA-206's";
  EXPECT_TRUE(fires("no kernel image is available for execution on the device flash-attention/csrc/layer_norm/ln_fwd_kernels.cuh 236\n",
                    "GS-ATTN-209"));
  EXPECT_TRUE(fires("The procedure entry point ?x@@ could not be located in the dynamic link library "
                    "C:\\ComfyUI\\python_embeded\\Lib\\site-packages\\xformers\\_C.pyd\n", "GS-EXT-536"));
}

TEST(BuiltinRules, SpentSet31MissesAndTheirNearMisses) {
  // Set 31's misses that name a class: a misspelled HIP target, an RDNA2 crash without the override,
  // the override on Windows, a CUDA soname of another major than the toolkit said, nvidia_uvm unloaded.
  auto& fires = error_text_fires;
  EXPECT_TRUE(fires("make -j16 LLAMA_HIPBLAS=1 AMDGPU_TARGETS=gxf1031\n", "GS-HIP-214"));
  EXPECT_TRUE(fires("cmake -B build -DGGML_HIP=ON -DAMDGPU_TARGETS=\"gfx1030;sm_86\"\n", "GS-HIP-214")) << "a CUDA arch in a HIP list";
  for (const char* ok : {"make -j16 LLAMA_HIPBLAS=1 AMDGPU_TARGETS=gfx1030\n", "cmake -DGPU_TARGETS=\"gfx1100;gfx1201\" ..\n",
                         "export PYTORCH_ROCM_ARCH=gfx90a,gfx942:xnack+\n", "cmake -DGPU_TARGETS=native ..\n",
                         "cmake -DAMDGPU_TARGETS=gfx11-generic ..\n", "cmake -DGPU_TARGETS=<your gfx> ..\n",
                         "PYTORCH_ROCM_ARCH=gfx908 python setup.py install\n", "`export HCC_AMDGPU_TARGET=gfx90a`\n",
                         "[AMDGPU_TARGETS=gfx1100] and {GPU_TARGETS=gfx1030}\n"})
    EXPECT_FALSE(fires(ok, "GS-HIP-214")) << ok;
  auto& amd = shows_amd_gpu;
  const std::string rocm = "ROCm 5.6, make LLAMA_HIPBLAS=1\n";
  EXPECT_TRUE(error_text_fires_with(rocm + "Segmentation fault (core dumped)\n", "GS-HIP-215", amd("gfx1031")));
  EXPECT_FALSE(error_text_fires_with(rocm + "export HSA_OVERRIDE_GFX_VERSION=10.3.0\nSegmentation fault (core dumped)\n", "GS-HIP-215",
                                     amd("gfx1031")))
      << "the override is already set: another cause";
  EXPECT_FALSE(error_text_fires_with(rocm + "Segmentation fault (core dumped)\n", "GS-HIP-215", amd("gfx1030"))) << "gfx1030 has its own code";
  EXPECT_FALSE(fires(rocm + "Segmentation fault (core dumped)\n", "GS-HIP-215")) << "the GPU not shown";
  const std::string win = "set HSA_OVERRIDE_GFX_VERSION=11.0.0\nmain.exe -m model.gguf -ngl 99\n";
  EXPECT_TRUE(fires(win, "GS-WIN-259"));
  EXPECT_FALSE(fires("export HSA_OVERRIDE_GFX_VERSION=11.0.0\n/opt/rocm/bin/rocminfo\n", "GS-WIN-259")) << "Linux reads it";
  EXPECT_FALSE(fires("wsl2 on windows 11: export HSA_OVERRIDE_GFX_VERSION=11.0.0\n", "GS-WIN-259")) << "WSL runs the Linux runtime";
  const std::string dso = "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: "
                          "No such file or directory\n";
  auto toolkit = [](const char* v) { return [v](machine_facts& m) { m.stack.cuda_toolkit_version = v; }; };
  EXPECT_TRUE(error_text_fires_with(dso, "GS-CUDA-972", toolkit("12.3")));
  EXPECT_FALSE(error_text_fires_with(dso, "GS-CUDA-972", toolkit("11.8"))) << "the same major: a path problem";
  EXPECT_FALSE(fires(dso, "GS-CUDA-972")) << "no toolkit shown: TensorFlow's own rules";
  EXPECT_TRUE(error_text_fires_with("ImportError: libcudart.so.12: cannot open shared object file: No such file or directory\n",
                                    "GS-CUDA-972", toolkit("11.8")));
  EXPECT_TRUE(fires("4. See that `nvidia-uvm` is not loaded:\n$ lsmod | grep nvidia_uvm\n", "GS-NV-332"));
  EXPECT_TRUE(fires("ls: cannot access '/dev/nvidia-uvm': No such file or directory\n", "GS-NV-332"));
  EXPECT_FALSE(fires("modprobe: FATAL: Module nvidia_uvm not found in directory /lib/modules/6.8.0\nnvidia_uvm is not loaded\n", "GS-NV-332"))
      << "the module is not built for this kernel: another cause";
}

TEST(BuiltinRules, SpentSet32RulesAndTheirNearMisses) {
  auto& fires = error_text_fires;
  EXPECT_TRUE(fires("RuntimeError: WARNING: User is missing the following required groups: render, video. Please add user to these groups.\n",
                    "GS-HOST-069"));
  EXPECT_TRUE(fires("  - /dev/dri/card0: Permission denied; owner=root(0):video(39);\n", "GS-HOST-069"));
  const std::string cpp = "Could not load bitsandbytes native library: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.32' not found "
                          "(required by /venv/lib/python3.10/site-packages/bitsandbytes/libbitsandbytes_cpu.so)\n";
  EXPECT_TRUE(fires(cpp, "GS-BNB-208"));
  EXPECT_FALSE(fires(cpp, "GS-BNB-005")) << "the loader's own words say why the library did not load";
  const std::string legacy = "/home/user/envs/textgen/lib/python3.10/site-packages/bitsandbytes/cuda_setup/main.py:136: UserWarning: "
                             "/home/user/envs/textgen did not contain libcudart.so as expected! Searching further paths...\n";
  EXPECT_TRUE(error_text_fires_with(legacy, "GS-BNB-209", [](machine_facts& m) { m.host.container_kind = "wsl"; }));
  EXPECT_FALSE(fires(legacy, "GS-BNB-209")) << "WSL not shown";
  const std::string ld = "/usr/bin/ld: cannot find -l:libcuda.so.1\ncollect2: error: ld returned 1 exit status\n";
  EXPECT_TRUE(fires(ld, "GS-TRITON-022"));
  EXPECT_FALSE(fires(ld, "GS-TRITON-018")) << "the exact-name link: the library exists, the linker's path lacks it";
  EXPECT_TRUE(fires("it can't find libcuda.so. The model weights load and then the ld error happens.\n", "GS-TRITON-018"));
  EXPECT_TRUE(fires("pip install triton-3.2.0-cp311-cp311-win_amd64.whl\nFailed to find MSVC\n", "GS-TRITON-023"));
  EXPECT_FALSE(fires("error: Failed to find Windows SDK. Do you have the Windows 10 SDK installed?\nzig build\n", "GS-TRITON-023"))
      << "zig's words: not Triton";
  const std::string flags = "clang++: error: unknown argument: '--use_fast_math'\n";
  EXPECT_TRUE(fires("ROCM used to build PyTorch: 6.2.41134-0\n" + flags, "GS-EXT-537"));
  EXPECT_FALSE(fires(flags, "GS-EXT-537")) << "no ROCm in sight: clang compiles CUDA too";
  EXPECT_TRUE(fires("shaderc: internal error: compilation succeeded but failed to optimize: Invalid capability operand: 5433\n", "GS-VK-015"));
  EXPECT_TRUE(fires("PYTORCH_ROCM_ARCH=gfx908 python setup.py install\n" + flags + "ROCm 6.2\n", "GS-EXT-537"));
  EXPECT_FALSE(fires("PYTORCH_ROCM_ARCH=gfx908 python setup.py install\n", "GS-HIP-214")) << "a space ends the value";
  const std::string dll = "amd_comgr_2.dll and amdhip64_6.dll missing\n";
  EXPECT_TRUE(error_text_fires_with(dll, "GS-WIN-260", shows_amd_gpu("gfx803")));
  EXPECT_FALSE(error_text_fires_with(dll, "GS-WIN-260", shows_amd_gpu("gfx1100"))) << "RDNA3 has HIP 6: another cause";
  const std::string ck = "  creating /home/user/flash-attention/build/temp.linux-x86_64-3.10/csrc/flash_attn_ck\n";
  EXPECT_TRUE(error_text_fires_with(ck, "GS-ATTN-210", shows_amd_gpu("gfx1100")));
  EXPECT_FALSE(error_text_fires_with(ck, "GS-ATTN-210", shows_amd_gpu("gfx942"))) << "an Instinct GPU is CK's own";
  EXPECT_FALSE(fires(ck, "GS-ATTN-210")) << "the GPU not shown";
}

TEST(BuiltinRules, SpentSet33RulesAndTheirNearMisses) {
  auto& fires = error_text_fires;
  const std::string lazy = "rocblaslt error: Could not load /venv/lib/python3.11/site-packages/torch/lib/hipblaslt/library/"
                           "TensileLibrary_lazy_gfx942.dat\n";
  EXPECT_TRUE(fires(lazy, "GS-BLAS-022"));
  EXPECT_FALSE(fires(lazy, "GS-BLAS-006")) << "gfx942 is in every hipBLASLt build";
  const std::string rdna4 = "rocblaslt error: Cannot read /opt/ollama/lib/hipblaslt/library/TensileLibrary_lazy_gfx1201.dat: "
                            "No such file or directory\n";
  EXPECT_TRUE(fires(rdna4, "GS-BLAS-006"));
  EXPECT_FALSE(fires(rdna4, "GS-BLAS-022"));
  const std::string halo = "Strix Halo gfx1151: HIP out of memory\n";
  EXPECT_TRUE(fires(halo, "GS-HIP-212"));
  EXPECT_FALSE(fires(halo + "It is not out-of-memory: peak 23 GB of 40 GB\n", "GS-HIP-212")) << "the report rules it out";
  const std::string tdr = "gfx1151 under Windows 11, ROCm 7.2\n  File \"conv.py\", line 717, in _conv_forward\nFatal Python error: Aborted\n";
  EXPECT_TRUE(fires(tdr, "GS-WIN-261"));
  EXPECT_FALSE(fires("gfx1151 on Ubuntu, ROCm 7.2\n  File \"conv.py\", line 717, in _conv_forward\nFatal Python error: Aborted\n",
                     "GS-WIN-261"))
      << "no driver timeout on Linux";
  EXPECT_TRUE(fires("E: Failed to fetch https://repo.radeon.com/amdgpu/6.2.3/ubuntu/dists/jammy/main/binary-amd64/Packages.gz  File has "
                    "unexpected size (14796 != 14502). Mirror sync in progress? [IP: 1.2.3.4 443]\n",
                    "GS-INST-706"));
  EXPECT_TRUE(fires("Title: Choosing ROCm install, ComfyUI still expects Nvidia GPU\n", "GS-ROCM-205"));
  EXPECT_FALSE(fires("my RTX 4090 box still expects an NVIDIA driver update\n", "GS-ROCM-205")) << "no AMD in sight";
  auto ids = [](const char* text) {
    std::set<std::string> out;
    for (const finding& f : explain_text(text, builtin_knowledge_base()).findings) out.insert(f.id);
    return out;
  };
  const char* igpu_only = "*******\nAgent 2\n*******\n  Name:                    gfx1036\n  Marketing Name:          AMD Radeon Graphics\n"
                          "  Device Type:             GPU\n";
  EXPECT_TRUE(ids(igpu_only).count("GS-HIP-216"));
  EXPECT_FALSE(ids((std::string(igpu_only) + "export HSA_OVERRIDE_GFX_VERSION=10.3.0\n").c_str()).count("GS-HIP-216")) << "already overridden";
  EXPECT_FALSE(ids((std::string(igpu_only) + "*******\nAgent 3\n*******\n  Name:                    gfx1100\n  Marketing Name:          "
                                             "Radeon RX 7900 XTX\n  Device Type:             GPU\n")
                       .c_str())
                   .count("GS-HIP-216"))
      << "next to a discrete GPU the iGPU is hidden instead";
}

TEST(BuiltinRules, SpentSet33MissesTurnedIntoRules) {
  auto& fires = error_text_fires;
  const std::string launcher = "    raise RuntimeError(\"PyTorch is not able to access CUDA\")\nRuntimeError: PyTorch is not able to access CUDA\n";
  EXPECT_TRUE(fires(launcher, "GS-APP-702"));
  EXPECT_TRUE(fires("RuntimeError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable to disable this check\n",
                    "GS-APP-702"));
  EXPECT_FALSE(fires(launcher + "GPU: AMD Radeon RX 7900 XTX\n", "GS-APP-702")) << "a CUDA torch on a Radeon is GS-WIN-256's";
  EXPECT_FALSE(fires(launcher + "venv for --use-zluda\n", "GS-APP-702")) << "ZLUDA runs a CUDA torch on purpose";
  EXPECT_FALSE(fires(launcher + "it works with sudo\n", "GS-APP-702")) << "a sudo-only contrast is the device nodes' group";
  EXPECT_TRUE(fires("misc/strongstream.cc:53 NCCL WARN NCCL cannot be captured in a graph if either it wasn't built with CUDA runtime "
                    ">= 11.3 or if the installed CUDA driver < R465.\nRuntimeError: NCCL error: invalid usage\n",
                    "GS-DIST-230"));
  EXPECT_FALSE(fires("RuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)\n", "GS-DIST-230"))
      << "invalid usage has other causes: only NCCL's graph-capture warning names this one";
  EXPECT_TRUE(fires("LLVM ERROR: Cannot select: intrinsic %llvm.amdgcn.fdot2.bf16.bf16\n", "GS-HIP-217"));
  const std::string rdna2_bf16 = "AMD Radeon RX 6600 XT (gfx1032): LoRA in bf16 crashes at the first step\n";
  EXPECT_TRUE(error_text_fires_with(rdna2_bf16, "GS-HIP-218", shows_amd_gpu("gfx1032")));
  EXPECT_FALSE(error_text_fires_with(rdna2_bf16, "GS-HIP-218", shows_amd_gpu("gfx1100"))) << "RDNA3 computes in bf16";
  EXPECT_FALSE(error_text_fires_with("AMD Radeon RX 6600 XT (gfx1032): LoRA in fp16 crashes at the first step\n", "GS-HIP-218",
                                     shows_amd_gpu("gfx1032")))
      << "no bf16 in the run";
  const std::string nightly = "torch 2.12.0.dev20260324+rocm7.2\nSegmentation fault (core dumped)\n";
  EXPECT_TRUE(fires(nightly, "GS-REG-203"));
  EXPECT_FALSE(fires("torch 2.6.0+rocm6.2.4\nSegmentation fault (core dumped)\n", "GS-REG-203")) << "a release build";
  EXPECT_FALSE(fires(nightly + "The stable release crashes the same way too.\n", "GS-REG-203")) << "the stable one fails too";
  EXPECT_FALSE(fires(nightly + "RuntimeError: No HIP GPUs are available\n", "GS-REG-203")) << "a specific cause outranks it";
  const std::string not_supported = "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasSgemm( handle, opa, opb, m, n, k)`\n";
  EXPECT_TRUE(fires(not_supported + "ZLUDA 3.8.4 patched into torch\\lib\n", "GS-WIN-262"));
  EXPECT_FALSE(fires(not_supported + "GPU: RTX 4090\n", "GS-WIN-262")) << "without ZLUDA it is cuBLAS's own refusal";
  auto explained = [](const std::string& text) {
    std::set<std::string> out;
    for (const finding& f : explain_text(text, builtin_knowledge_base()).findings) out.insert(f.id);
    return out;
  };
  EXPECT_TRUE(explained("I run it on WSL2 with an RTX 3080.\ntaichi does not recognize my CUDA, it runs on the CPU\n").count("GS-WSL-719"));
  EXPECT_FALSE(explained("Ubuntu 22.04 with an RTX 3080.\ntaichi does not recognize my CUDA, it runs on the CPU\n").count("GS-WSL-719"))
      << "not WSL";
  EXPECT_FALSE(explained("I run it on WSL2 with a Radeon RX 7900 XTX.\nit does not detect my GPU, runs on the CPU\n").count("GS-WSL-719"))
      << "ROCm on WSL is another path";
  EXPECT_TRUE(fires("OSError: [Errno 28] No space left on device: '/root/.cache/pip/http/12'\n", "GS-HOST-070"));
  EXPECT_FALSE(fires("RuntimeError: unable to write to file </torch_123_456>: No space left on device (28)\n"
                     "docker run without --shm-size: /dev/shm is 64 MB\n",
                     "GS-HOST-070"))
      << "/dev/shm in a container is its own limit";
  const std::string busy = "ollama run deepseek-r1:14b: the CPU utilization jumps but not the GPU\n";
  EXPECT_TRUE(error_text_fires_with(busy, "GS-APP-703", shows_amd_gpu("gfx1103")));
  EXPECT_FALSE(error_text_fires_with(busy, "GS-APP-703", shows_amd_gpu("gfx1100"))) << "gfx1100 is in Ollama's ROCm list";
  EXPECT_FALSE(error_text_fires_with(busy + "using the ollama-vulkan runner\n", "GS-APP-703", shows_amd_gpu("gfx1103")))
      << "a Vulkan runner does not use the ROCm list";
  const std::string run = "docker run -it --device /dev/kfd --device /dev/dri rocm/vllm bash\n";
  EXPECT_TRUE(fires(run + "RuntimeError: No HIP GPUs are available\n", "GS-CONT-253"));
  EXPECT_FALSE(fires("docker run -it --device /dev/dri rocm/vllm bash\nRuntimeError: No HIP GPUs are available\n", "GS-CONT-253"))
      << "without /dev/kfd the missing flag is the cause";
  const std::string cuda13 = "the cuda13 images do not work with my V100, the cuda12 images work\n";
  auto nvidia = [](const char* arch) {
    return [arch](machine_facts& m) {
      m.gpus.push_back({});
      m.gpus.back().vendor = "nvidia";
      m.gpus.back().arch = arch;
    };
  };
  EXPECT_TRUE(error_text_fires_with(cuda13, "GS-CUDA-975", nvidia("sm_70")));
  EXPECT_FALSE(error_text_fires_with(cuda13, "GS-CUDA-975", nvidia("sm_89")))
      << "Ada runs CUDA 13 code";
}

}  // namespace
}  // namespace gs
