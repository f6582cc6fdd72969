// Packages of interest and alias lookups. The preferred order inside a group puts the GPU
// vendor's build first: on a ROCm box pytorch-triton-rocm is the one torch was built against,
// a plain `triton` next to it is usually a pip accident that overwrote its files.
#include "python/packages.h"

#include "python/pep503.h"

namespace gs {

const std::vector<package_interest>& packages_of_interest() {
  static const std::vector<package_interest> table{
      {"torch", {"torch"}, false, "build flavour (+rocm/+cu), HIP/CUDA it was built for"},
      {"triton", {"pytorch-triton-rocm", "triton-rocm", "pytorch-triton", "triton"}, true,
       "3.6.0's AMD pipeliner deadlocks FLA at num_stages >= 2 on gfx12"},
      {"bitsandbytes", {"bitsandbytes"}, false, "QLoRA 4-bit; needs a binary for the GPU arch"},
      {"fla", {"flash-linear-attention", "fla-core"}, false, "gated delta rule kernels (Qwen3.5)"},
      {"fla-core", {"fla-core"}, false, "the kernels half of flash-linear-attention >= 0.3"},
      {"causal-conv1d", {"causal-conv1d"}, false, "compiled extension, arch-specific"},
      {"flash-attn", {"flash-attn"}, false, "CK or Triton backend on ROCm; arch-specific"},
      {"xformers", {"xformers"}, false, "compiled extension, arch-specific"},
      {"vllm", {"vllm"}, false, "pins torch/triton versions"},
      {"transformers", {"transformers"}, false, "model code; version gates features"},
      {"peft", {"peft"}, false, "LoRA adapters"},
      {"trl", {"trl"}, false, "SFT trainers"},
      {"accelerate", {"accelerate"}, false, "device placement, big-model loading"},
      {"safetensors", {"safetensors"}, false, "weights loading"},
      {"tilelang", {"tilelang"}, false, "kernel DSL used by newer FLA backends"},
      {"numpy", {"numpy"}, false, "numpy 2 vs extensions built for 1.x"},
      // nvidia-* (cuBLAS, cuDNN, NVRTC, NCCL wheels) are looked up by prefix.
  };
  return table;
}

namespace {

const package_interest* interest_for(std::string_view normalized_logical) {
  for (const package_interest& p : packages_of_interest())
    if (pep503_normalize(p.logical) == normalized_logical) return &p;
  return nullptr;
}

}  // namespace

std::vector<const python_package*> find_all_packages(const python_info& py, std::string_view logical) {
  std::vector<const python_package*> out;
  std::string key = pep503_normalize(logical);
  const package_interest* p = interest_for(key);
  if (!p) {
    auto it = py.packages.find(key);
    if (it != py.packages.end()) out.push_back(&it->second);
    return out;
  }
  for (std::string_view n : p->names) {
    auto it = py.packages.find(pep503_normalize(n));
    if (it != py.packages.end()) out.push_back(&it->second);
  }
  return out;
}

const python_package* find_package(const python_info& py, std::string_view logical) {
  auto all = find_all_packages(py, logical);
  return all.empty() ? nullptr : all.front();
}

std::vector<const python_package*> find_packages_with_prefix(const python_info& py, std::string_view prefix) {
  std::vector<const python_package*> out;
  std::string key = pep503_normalize(prefix);
  for (auto it = py.packages.lower_bound(key); it != py.packages.end() && it->first.rfind(key, 0) == 0; ++it)
    out.push_back(&it->second);
  return out;
}

}  // namespace gs
