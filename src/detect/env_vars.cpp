// The environment variables that matter to a GPU fine-tuning stack. Collected raw into
// facts.env; redaction of values happens at output (report/). Exact names are always taken;
// prefix families are taken unless the name looks like a credential.
#include <array>
#include <string>

#include "detect/detect.h"
#include "detect/env_vars.h"

namespace gs {
namespace {

struct env_entry {
  std::string_view name;  ///< exact name, or a prefix when it ends in '_' and prefix is true
  bool prefix;
  std::string_view why;   ///< kept next to the name so the table documents itself
};

constexpr std::array kEnvTable{
    // AMD device selection and identity.
    env_entry{"HSA_OVERRIDE_GFX_VERSION", false, "fakes the gfx target; 11.0.0 on a gfx1201 hangs"},
    env_entry{"HSA_", true, "ROCR knobs, incl. HSA_OVERRIDE_GFX_VERSION_<node> (node counts CPUs)"},
    env_entry{"ROCR_VISIBLE_DEVICES", false, "hides GPUs below HIP; a typo gives 'no device'"},
    env_entry{"HIP_VISIBLE_DEVICES", false, "HIP-level GPU mask"},
    env_entry{"GPU_DEVICE_ORDINAL", false, "OpenCL/HIP device mask, still honoured by HIP"},
    env_entry{"HIP_", true, "HIP_PATH, HIP_PLATFORM, HIP_LAUNCH_BLOCKING ..."},
    env_entry{"ROCM_PATH", false, "which ROCm install hipcc, Triton and builds use"},
    env_entry{"AMD_SERIALIZE_KERNEL", false, "debug setting that serialises launches (slow)"},
    env_entry{"AMD_LOG_LEVEL", false, "HIP runtime logging; high levels slow everything down"},
    env_entry{"PYTORCH_ROCM_ARCH", false, "gfx list for source builds (flash-attn, causal-conv1d)"},
    env_entry{"MIOPEN_", true, "MIOpen find mode, cache dirs, debug"},
    // NVIDIA device selection and toolkit.
    env_entry{"CUDA_VISIBLE_DEVICES", false, "GPU mask; also honoured by ROCm torch"},
    env_entry{"CUDA_DEVICE_ORDER", false, "PCI_BUS_ID vs FASTEST_FIRST changes numbering"},
    env_entry{"CUDA_HOME", false, "the toolkit torch extensions and Triton compile with"},
    env_entry{"CUDA_PATH", false, "same, for other tools"},
    env_entry{"CUDA_LAUNCH_BLOCKING", false, "debug setting: synchronous launches, slow"},
    env_entry{"CUDA_MODULE_LOADING", false, "LAZY/EAGER; collect_env reports it"},
    env_entry{"TORCH_CUDA_ARCH_LIST", false, "sm list for source builds"},
    env_entry{"NCCL_", true, "multi-GPU transport settings"},
    // PyTorch allocator and BLAS.
    env_entry{"PYTORCH_HIP_ALLOC_CONF", false, "max_split_size_mb here blocks large allocations"},
    env_entry{"PYTORCH_CUDA_ALLOC_CONF", false, "same for CUDA (also read on ROCm)"},
    env_entry{"PYTORCH_ALLOC_CONF", false, "device-neutral name in torch >= 2.9"},
    env_entry{"PYTORCH_NO_CUDA_MEMORY_CACHING", false, "disables the caching allocator"},
    env_entry{"PYTORCH_TUNABLEOP_", true, "TunableOp GEMM tuning (first run takes minutes)"},
    env_entry{"TORCH_USE_HIPBLASLT", false, "hipBLASLt on/off; unsupported gfx can fail"},
    env_entry{"TORCH_BLAS_PREFER_HIPBLASLT", false, "same, newer name"},
    // Loader and Python environment.
    env_entry{"LD_LIBRARY_PATH", false, "can make torch load a different libamdhip64/libcuda"},
    env_entry{"LD_PRELOAD", false, "injects libraries into every process"},
    env_entry{"VIRTUAL_ENV", false, "the active venv: where check looks for Python"},
    env_entry{"CONDA_PREFIX", false, "the active conda env"},
    env_entry{"PYTHONPATH", false, "can shadow installed packages"},
    env_entry{"PATH", false, "which python3 is found"},
    // Kernel libraries.
    env_entry{"TRITON_", true, "TRITON_LIBHIP_PATH, cache dir, interpreter, debug"},
    env_entry{"FLA_", true, "flash-linear-attention backend switches"},
    env_entry{"FLASH_ATTENTION_TRITON_AMD_ENABLE", false, "flash-attn's Triton AMD backend"},
    env_entry{"BNB_CUDA_VERSION", false, "forces a bitsandbytes binary; mismatches fail to load"},
    env_entry{"BNB_ROCM_VERSION", false, "same for ROCm builds"},
    // Hugging Face (paths only; tokens are never collected).
    env_entry{"HF_HOME", false, "model cache location (disk space, NFS)"},
    env_entry{"HF_HUB_OFFLINE", false, "offline mode explains download errors"},
};

}  // namespace

bool env_name_looks_secret(std::string_view name) {
  static constexpr std::array<std::string_view, 7> kWords{"TOKEN", "SECRET", "PASSWORD", "PASSWD",
                                                          "CREDENTIAL", "AUTH", "KEY"};
  std::string upper(name);
  for (char& c : upper)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  for (std::string_view w : kWords)
    if (upper.find(w) != std::string::npos) return true;
  return false;
}

bool is_relevant_env_var(std::string_view name) {
  for (const env_entry& e : kEnvTable)
    if (!e.prefix && name == e.name) return true;
  if (env_name_looks_secret(name)) return false;
  for (const env_entry& e : kEnvTable)
    if (e.prefix && name.size() > e.name.size() && name.substr(0, e.name.size()) == e.name) return true;
  return false;
}

void detect_env(const sysroot& sys, machine_facts& facts) {
  for (auto& [name, value] : sys.environment())
    if (is_relevant_env_var(name)) facts.env[name] = value;
}

}  // namespace gs
