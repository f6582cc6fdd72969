// Expected bandwidth and FLOP rates per GPU and per kernel (matrix/hardware/expected_perf.toml),
// and the one rule that turns an achieved rate into pass or warn. Loading errors cite
// file:line:column; a GPU missing from the table means "no expectation", never a failure.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace gs {

/// One [[gpu]] entry. A figure of 0 means "not known".
struct gpu_expectation {
  std::string arch;                ///< "sm_90", "gfx1201"
  std::string name_contains;       ///< "" for the arch's default entry
  std::string label;               ///< "NVIDIA H200 SXM 141GB"
  double hbm_peak_gbps = 0;        ///< spec memory bandwidth
  double copy_gbps = 0;            ///< measured device copy (read + write counted), 0 when none
  double fp32_tflops = 0;          ///< CUDA-core / vector FP32
  double bf16_tflops = 0;          ///< tensor/matrix cores, dense
  double fp16_tflops = 0;
  double fp8_tflops = 0;           ///< dense E4M3 matrix rate, 0 where the card has none (or none is known)
  double bf16_library_tflops = 0;  ///< a vendor library measured on the card, 0 when none
  bool approximate = false;
  /// Figure by key ("fp32_tflops", "copy_gbps", ...); 0 when unknown or not a figure.
  double figure(std::string_view key) const;
};

/// One [[kernel]] entry: the kernel reaches `fraction` of the GPU's `bound_by` figure.
struct kernel_expectation {
  std::string name;      ///< "gemm_v2", "copy_v2"
  std::string bound_by;  ///< a gpu_expectation figure key
  double fraction = 0;
};

struct expected_perf {
  double gemm_warn_below = 0.30;
  double bandwidth_warn_below = 0.60;
  double copy_fraction_of_peak = 0.80;
  std::vector<gpu_expectation> gpus;
  std::vector<kernel_expectation> kernels;

  /// The entry for a device: arch plus a name_contains match, else the arch's default; nullptr if none.
  const gpu_expectation* find_gpu(std::string_view arch, std::string_view device_name) const;
  const kernel_expectation* find_kernel(std::string_view name) const;
};

/// Parse the TOML text; false with `error` = "<source>:<line>:<column>: <message>".
bool parse_expected_perf(std::string_view text, std::string_view source, expected_perf& out, std::string& error);

/// The embedded matrix/hardware/expected_perf.toml, parsed once; `error` non-empty if it did not parse.
const expected_perf& builtin_expected_perf(std::string* error = nullptr);

/// An achieved rate against what was expected.
struct rate_verdict {
  status outcome = status::pass;
  double expected = 0;  ///< 0 when there was nothing to compare with
  double ratio = 0;     ///< achieved / expected
  std::string detail;   ///< "612 TFLOP/s, 78% of expected 790"
};

/// pass at or above warn_below * expected, else warn; pass with a note when expected is 0.
/// `unit` is "GB/s" or "TFLOP/s"; `causes` is appended to a warning's detail.
rate_verdict judge_rate(double achieved, double expected, double warn_below, std::string_view unit,
                        std::string_view causes);

/// Expected rate of `kernel` on `gpu`: gpu figure * kernel fraction. For copies without a
/// measured copy_gbps, hbm_peak_gbps * copy_fraction_of_peak stands in. 0 when unknown;
/// `basis` says how the number was made.
double expected_rate(const expected_perf& perf, const gpu_expectation* gpu, std::string_view kernel, std::string& basis);

/// What the built-in table expects of `kernel` on one device: the lookup every rate probe makes.
struct device_expectation {
  const expected_perf* perf = nullptr;    ///< the built-in table (its warn_below fractions)
  const gpu_expectation* gpu = nullptr;   ///< the device's entry; nullptr when it has none
  double expected = 0;                    ///< expected_rate; 0 when unknown
  std::string basis;                      ///< how `expected` was made, else why there is none
                                          ///< (the table's load error when it did not parse)
};
device_expectation builtin_expectation(std::string_view arch, std::string_view device_name, std::string_view kernel);

}  // namespace gs
