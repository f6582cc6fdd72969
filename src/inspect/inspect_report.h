// `gpustack inspect` output: the JSON document (schema in docs/inspect.md) and the human table,
// built from the scans and the GPUs judged for. Pure functions of their inputs (tests feed
// scans of real nvcc/comgr objects).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inspect/code_judge.h"
#include "inspect/library_scan.h"

namespace gs {

struct inspected_library {
  library_scan scan;
  device_code_library summary;
};

struct inspect_gpu {
  gpu_target target;
  std::string source;  ///< "detected" | "--gpu"
  std::string name;    ///< "NVIDIA H200" when detected
};

/// Exit status rule: true when some library has verdict none or error for some GPU.
bool inspect_failed(const std::vector<inspected_library>& libs, const std::vector<inspect_gpu>& gpus);

nlohmann::json inspect_json(const std::vector<inspected_library>& libs, const std::vector<inspect_gpu>& gpus,
                            double elapsed_ms, bool include_identifiers);
std::string inspect_human(const std::vector<inspected_library>& libs, const std::vector<inspect_gpu>& gpus,
                          double elapsed_ms, bool include_identifiers);

}  // namespace gs
