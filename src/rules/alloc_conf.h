// PyTorch's caching-allocator settings (PYTORCH_ALLOC_CONF / PYTORCH_CUDA_ALLOC_CONF /
// PYTORCH_HIP_ALLOC_CONF), parsed option by option the way c10's ConfigTokenizer does, so a
// rule can speak about max_split_size_mb or expandable_segments separately and say what torch
// would reject at the first GPU allocation. Public so a libFuzzer target can drive it.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

struct alloc_option {
  std::string key;    ///< "max_split_size_mb"
  std::string value;  ///< "512", "True", or a list as written: "[64:8,>:1]"
};

struct alloc_conf {
  std::vector<alloc_option> options;   ///< in the order written
  std::vector<std::string> unknown;    ///< keys no torch release we know accepts
  std::vector<std::string> problems;   ///< what torch would refuse ("max_split_size_mb:10 is below torch's 20 MiB minimum")

  std::optional<double> max_split_size_mb;
  std::optional<double> garbage_collection_threshold;
  std::optional<std::string> expandable_segments;  ///< raw value; torch accepts only "True"/"False"
  std::optional<std::string> backend;              ///< "native", "cudaMallocAsync"

  /// The last value given for `key`, or null.
  const alloc_option* find(std::string_view key) const;
};

/// The environment variables torch reads, in the order a ROCm build of torch >= 2.9 looks
/// for them (older builds read PYTORCH_CUDA_ALLOC_CONF first; every build prefers it to the
/// HIP spelling).
inline constexpr std::string_view kAllocConfVars[] = {"PYTORCH_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF",
                                                      "PYTORCH_HIP_ALLOC_CONF"};

/// Every option key some torch release accepts (both the cuda and hip spellings).
const std::vector<std::string_view>& known_alloc_options();

/// Parse a setting string; never throws, whatever the input.
alloc_conf parse_alloc_conf(std::string_view text);

}  // namespace gs
