// The outcome of one probe, as the report carries it (GUIDE "Report JSON": probes[]).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"

namespace gs {

struct probe_result {
  std::string id;                        ///< "gemm.bf16"
  status outcome = status::skip;
  std::string phase;                     ///< last phase entered: load, compile, launch, sync, verify
  double duration_ms = 0;
  std::string detail;                    ///< one line for humans ("max rel err 3.1e-3 < 1e-2; 612 TFLOP/s")
  nlohmann::json data = nlohmann::json::object();  ///< probe-specific figures
  std::vector<std::string> finding_ids;  ///< knowledge-base findings this result matched
  std::vector<std::string> kernel_log;   ///< new dmesg lines seen while it ran (amdgpu resets, Xid)
};

/// A result that is only a verdict and its reason: a skip or an error decided before (or
/// instead of) running the probe.
inline probe_result make_result(std::string id, status outcome, std::string detail) {
  probe_result r;
  r.id = std::move(id);
  r.outcome = outcome;
  r.detail = std::move(detail);
  return r;
}

}  // namespace gs
