// `gpustack probe fla --sanitize`: a step of the triton or fla backend that failed with a memory
// fault is run again, as its standalone reproducer (fla_repro.h), under the vendor's memory
// checker, and the first findings (what was accessed wrongly, in which kernel) are attached to
// the step. NVIDIA: compute-sanitizer --tool memcheck. AMD: ROCm has no checker that sees code
// Triton generates (the HIP address sanitizer needs the kernel built with -fsanitize=address),
// so there the step says so instead.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/probe_result.h"

namespace gs {

/// True when the step's error reads as a memory fault a sanitizer can locate: CUDA's illegal
/// memory access / misaligned address / out-of-range, HIP's "Memory access fault by GPU".
bool is_memory_fault(const probe_result& step);

/// compute-sanitizer on this machine: $CUDA_HOME/bin, $CUDA_PATH/bin, PATH, /usr/local/cuda/bin,
/// /opt/cuda/bin, in that order; "" when none.
std::string find_compute_sanitizer();

struct sanitizer_error {
  std::string what;    ///< "Invalid __shared__ read of size 1024 bytes"
  std::string kernel;  ///< "gdn_out_kernel" (the "at KERNEL+0x..." line); "" when not named
  std::string where;   ///< the "at ..." line as printed
};

struct sanitizer_report {
  std::vector<sanitizer_error> errors;  ///< distinct (what, kernel) pairs, in the order printed
  std::optional<long> error_count;      ///< "ERROR SUMMARY: 228 errors"
  nlohmann::json to_json() const;
  /// "Invalid __shared__ read of size 1024 bytes in gdn_out_kernel (228 errors)"
  std::string summary() const;
};

/// Reads compute-sanitizer's output ("========= Invalid __shared__ read ...", "=========     at
/// gdn_out_kernel+0x1c30", "========= ERROR SUMMARY: 228 errors"). Lines of the program itself
/// (without the prefix) are ignored.
sanitizer_report parse_compute_sanitizer(std::string_view output);

}  // namespace gs
