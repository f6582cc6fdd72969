// How the GPUs reach each other (the report's `topology`, with each GPU's `place`) as one line of
// prose for the terminal view and the Markdown alike: "0-1 PIX, 0-2 SYS; 2 NUMA nodes; IOMMU
// translated; ACS redirects peer traffic at 0000:02:08.0".
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace gs {

/// "" when the report has no topology (fewer than two GPUs, or their places unknown).
std::string topology_summary(const nlohmann::json& report);

}  // namespace gs
