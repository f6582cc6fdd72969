// The one table of probes, in run order (GUIDE habit 3). A probe is added by declaring its
// probe_spec in its own file and listing it here; dependencies must come before dependents.
// Probes named selftest.* stay out of the default suite and run only when named.
#include "probes/bandwidth_probe.h"
#include "probes/blas_probe.h"
#include "probes/device_probes.h"
#include "probes/gemm_mma_probe.h"
#include "probes/gemm_probes.h"
#include "probes/gpu_hang_probe.h"
#include "probes/llama_cpp_probe.h"
#include "probes/probe.h"
#include "probes/python_probes.h"
#include "probes/quant_probes.h"
#include "probes/selftest_probes.h"
#include "probes/serving_probe.h"
#include "probes/tensor_probes.h"
#include "probes/vulkan_probe.h"

namespace gs {

const std::vector<const probe_spec*>& all_probes() {
  static const std::vector<const probe_spec*> table = {
      // ---- native GPU probes (issue 3), in run order: device.*, tensor.*, memory.bandwidth,
      // ---- gemm.* . Add each `&<name>_probe` here and one line to docs/probes.md.
      &device_visible_probe,      // "device.visible"     runtime opens the device; props make sense
      &tensor_vector_add_probe,   // "tensor.vector_add"  every element exact, guards intact
      &tensor_reduce_probe,       // "tensor.reduce"      warp-shuffle sum, exact, any wave size
      &memory_bandwidth_probe,    // "memory.bandwidth"   device copy GB/s vs expected band
      &gemm_fp32_probe,           // "gemm.fp32"          checked vs CPU reference, TFLOP/s judged
      &gemm_bf16_probe,           // "gemm.bf16"          bf16 inputs, fp32 accumulate
      &gemm_fp16_probe,           // "gemm.fp16"          fp16 inputs, fp32 accumulate
      &gemm_mma_bf16_probe,       // "gemm.mma.bf16"      matrix unit (mma.sync/WMMA/MFMA) vs the card's peak
      &gemm_mma_fp16_probe,       // "gemm.mma.fp16"      the same, fp16 inputs
      &gemm_mma_fp8_probe,        // "gemm.mma.fp8"       E4M3 where the arch has it (wgmma / MFMA / WMMA), else skip
      &blas_bf16_probe,           // "blas.bf16"          vendor BLAS at a QLoRA step's GEMMs, checked, timed
      &blas_fp16_probe,           // "blas.fp16"          the same at fp16
      &quant_nf4_probe,           // "quant.nf4"          bitsandbytes NF4, bit-exact vs reference, timed
      &quant_fp4_probe,           // "quant.fp4"          bitsandbytes FP4, bit-exact vs reference
      &quant_int8_probe,          // "quant.int8"         LLM.int8(), bit-exact vs reference

      // ---- the user's own stack (issue 6, steps 2-13): Python steps in the interpreter check
      // ---- found (py.torch first: its skip skips the rest), then llama.cpp, Vulkan, serving.
      &py_torch_probe,            // "py.torch"           imports, sees the GPU, a tensor op matches
      &py_bnb_load_probe,         // "py.bnb.load"        native GPU library loaded, not the CPU fallback
      &py_bnb_int8_probe,         // "py.bnb.int8"        LLM.int8 vs gpustack's reference
      &py_bnb_nf4_probe,          // "py.bnb.nf4"         NF4 bytes bit for bit; Linear4bit (bnb#2087)
      &py_transformers_bnb_probe, // "py.transformers.bnb" BitsAndBytesConfig quantizes a tiny model
      &py_peft_lora_probe,        // "py.peft.lora"       backward reaches the LoRA adapters
      &py_trl_config_probe,       // "py.trl.config"      SFTConfig builds
      &py_sdpa_probe,             // "py.sdpa"            backends, numerics, which one torch picks
      &py_matmul_probe,           // "py.matmul"          a QLoRA step's GEMMs per BLAS backend vs reference
      &py_triton_probe,           // "py.triton"          compiles and runs; target arch
      &llama_cpp_probe,           // "llama_cpp.build"    backends, archs, devices of llama-server/cli
      &vulkan_devices_probe,      // "vulkan.devices"     loader, physical devices, drivers
      &serving_settings_probe,    // "serving.settings"   KV cache / ubatch / slots sanity

      // ---- watchdog self-tests: run only when named.
      &selftest_pass_probe,
      &selftest_hang_probe,
      &selftest_crash_probe,
      &selftest_gpu_hang_probe,
      &selftest_py_pass_probe,
      &selftest_py_hang_probe,
      &selftest_py_crash_probe,
  };
  return table;
}

const probe_spec* find_probe(std::string_view id) {
  for (const probe_spec* p : all_probes())
    if (id == p->id) return p;
  return nullptr;
}

}  // namespace gs
