// The probe option table (probe_options.h). Ranges are what each probe can run: the element
// counts stay inside the buffers' 32-bit indexing, the GEMM side inside 16384^2 x 3 fp32 (3 GiB).
#include "probes/probe_options.h"

#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

namespace gs {

const std::vector<probe_option_spec>& probe_option_table() {
  static const std::vector<probe_option_spec> t = {
      {"tensor.vector_add", "n", true, 1, 1LL << 28, "elements"},
      {"tensor.reduce", "n", true, 1, 1LL << 24, "elements"},
      {"memory.bandwidth", "mib", true, 1, 16384, "MiB per buffer"},
      {"memory.bandwidth", "iters", true, 1, 1000, "timed copies"},
      {"gemm.fp32", "size", true, 16, 16384, "M = N = K"},
      {"gemm.fp32", "iters", true, 1, 100, "timed runs"},
      {"gemm.fp32", "kernel", false, 0, 0, "v1 or v2 (the tiled kernel)"},
      {"gemm.bf16", "size", true, 16, 16384, "M = N = K"},
      {"gemm.bf16", "iters", true, 1, 100, "timed runs"},
      {"gemm.bf16", "kernel", false, 0, 0, "v1 or v2 (the tiled kernel)"},
      {"gemm.fp16", "size", true, 16, 16384, "M = N = K"},
      {"gemm.fp16", "iters", true, 1, 100, "timed runs"},
      {"gemm.fp16", "kernel", false, 0, 0, "v1 or v2 (the tiled kernel)"},
      {"gemm.mma.bf16", "size", true, 16, 16384, "M = N = K"},
      {"gemm.mma.bf16", "iters", true, 1, 100, "timed runs"},
      {"gemm.mma.bf16", "wgmma", true, 0, 1, "cc 9.0: 1 the sm_90a wgmma path, 0 mma.sync"},
      {"gemm.mma.fp16", "size", true, 16, 16384, "M = N = K"},
      {"gemm.mma.fp16", "iters", true, 1, 100, "timed runs"},
      {"gemm.mma.fp16", "wgmma", true, 0, 1, "cc 9.0: 1 the sm_90a wgmma path, 0 mma.sync"},
      {"gemm.mma.fp8", "size", true, 16, 16384, "M = N = K"},
      {"gemm.mma.fp8", "iters", true, 1, 100, "timed runs"},
      {"gemm.mma.fp8", "wgmma", true, 0, 1, "cc 9.0: 1 the sm_90a wgmma path, 0 skip (no fp8 mma.sync entry on sm_90)"},
      {"blas.bf16", "model", false, 0, 0, "registry model whose QLoRA step runs (qwen3.5-0.8b)"},
      {"blas.bf16", "tokens", true, 1, 65536, "tokens per step: the M of the projections (2048)"},
      {"blas.bf16", "library", false, 0, 0, "cublaslt, hipblaslt, rocblas or all (all)"},
      {"blas.bf16", "size", true, 16, 16384, "side of the square GEMM that measures the library's rate (4096)"},
      {"blas.bf16", "iters", true, 1, 1000, "timed runs per GEMM (10)"},
      {"blas.bf16", "timeout_s", true, 10, 3600, "seconds one library's child may take (900)"},
      {"blas.fp16", "model", false, 0, 0, "registry model whose QLoRA step runs (qwen3.5-0.8b)"},
      {"blas.fp16", "tokens", true, 1, 65536, "tokens per step: the M of the projections (2048)"},
      {"blas.fp16", "library", false, 0, 0, "cublaslt, hipblaslt, rocblas or all (all)"},
      {"blas.fp16", "size", true, 16, 16384, "side of the square GEMM that measures the library's rate (4096)"},
      {"blas.fp16", "iters", true, 1, 1000, "timed runs per GEMM (10)"},
      {"blas.fp16", "timeout_s", true, 10, 3600, "seconds one library's child may take (900)"},
      {"quant.nf4", "size", true, 0, 32768, "timed matrix side (0: not timed)"},
      {"quant.nf4", "iters", true, 1, 10000, "timed runs"},
      {"quant.nf4", "blocksize", true, 32, 4096, "quantization block"},
      {"quant.fp4", "size", true, 0, 32768, "timed matrix side (0: not timed)"},
      {"quant.fp4", "iters", true, 1, 10000, "timed runs"},
      {"quant.fp4", "blocksize", true, 32, 4096, "quantization block"},
      {"py.bnb.int8", "m", true, 1, 65536, "rows of A"},
      {"py.bnb.int8", "k", true, 1, 65536, "inner dimension"},
      {"py.bnb.int8", "n", true, 1, 65536, "rows of B"},
      {"py.bnb.int8", "seed", true, 0, 2147483647, "random seed"},
      {"py.bnb.int8", "vectors_dir", false, 0, 0, "directory to keep bitsandbytes' vectors in"},
      {"py.bnb.nf4", "rows", true, 1, 65536, "matrix rows"},
      {"py.bnb.nf4", "cols", true, 64, 65536, "matrix columns"},
      {"py.bnb.nf4", "seed", true, 0, 2147483647, "random seed"},
      {"py.bnb.nf4", "vectors_dir", false, 0, 0, "directory to keep bitsandbytes' vectors in"},
      {"py.sdpa", "seed", true, 0, 2147483647, "random seed"},
      {"py.matmul", "model", false, 0, 0, "registry model whose QLoRA step's GEMMs run (qwen3.5-0.8b)"},
      {"py.matmul", "tokens", true, 1, 65536, "tokens per step (2048)"},
      {"py.matmul", "iters", true, 1, 1000, "timed calls per GEMM (10)"},
      {"py.matmul", "seed", true, 0, 2147483647, "input seed"},
      {"selftest.py.hang", "phase", false, 0, 0, "the phase to hang in (import, load, launch, sync, ...)"},
      {"llama_cpp.build", "llama_cpp.bin", false, 0, 0, "llama-server or llama-cli to run"},
      {"vulkan.devices", "vulkan.loader", false, 0, 0, "libvulkan.so.1 to load"},
      {"serving.settings", "serving_config", false, 0, 0, "serving settings file"},
  };
  return t;
}

const probe_option_spec* find_probe_option(std::string_view probe, std::string_view key) {
  for (const probe_option_spec& o : probe_option_table())
    if (probe == o.probe && key == o.key) return &o;
  return nullptr;
}

namespace {

std::string valid_keys(const std::vector<std::string>& selected) {
  std::string out;
  for (const probe_option_spec& o : probe_option_table())
    for (const std::string& id : selected)
      if (id == o.probe) out += fmt::format("{}{}.{}", out.empty() ? "" : ", ", o.probe, o.key);
  return out.empty() ? "none (the selected probes take no options)" : out;
}

/// "" when `value` is right for `o`, else why not.
std::string check_value(const probe_option_spec& o, const std::string& value) {
  if (value.empty()) return fmt::format("{}.{} needs a value ({})", o.probe, o.key, o.help);
  if (!o.integer) return "";
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(value.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE)
    return fmt::format("'{}' is not a whole number ({}.{}: {}, {}..{})", value, o.probe, o.key, o.help, o.lo, o.hi);
  if (v < o.lo || v > o.hi) return fmt::format("{} is outside {}..{} ({}.{}: {})", value, o.lo, o.hi, o.probe, o.key, o.help);
  return "";
}

}  // namespace

std::map<std::string, std::string> resolve_probe_settings(const std::vector<std::string>& sets,
                                                          const std::vector<std::string>& selected, std::string& error) {
  std::map<std::string, std::string> out;
  for (const std::string& kv : sets) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      error = fmt::format("--set {}: write KEY=VALUE or PROBE.KEY=VALUE; valid keys: {}", kv, valid_keys(selected));
      return {};
    }
    std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
    std::vector<const probe_option_spec*> hits;
    for (const std::string& id : selected) {
      if (const probe_option_spec* o = find_probe_option(id, key)) hits.push_back(o);  // KEY: every probe with it
      if (key.size() > id.size() + 1 && key.compare(0, id.size(), id) == 0 && key[id.size()] == '.')
        if (const probe_option_spec* o = find_probe_option(id, std::string_view(key).substr(id.size() + 1))) hits.push_back(o);
    }
    if (hits.empty()) {
      error = fmt::format("--set {}: no selected probe takes '{}'; valid keys: {}", kv, key, valid_keys(selected));
      return {};
    }
    for (const probe_option_spec* o : hits) {
      if (std::string why = check_value(*o, value); !why.empty()) {
        error = "--set " + kv + ": " + why;
        return {};
      }
      out[std::string(o->probe) + "." + o->key] = value;
    }
  }
  return out;
}

}  // namespace gs
