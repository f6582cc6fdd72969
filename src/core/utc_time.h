// Wall-clock time as reports, snapshots and breadcrumbs write it.
#pragma once
#include <string>

namespace gs {

/// Now as "YYYY-MM-DDTHH:MM:SSZ" (UTC, second resolution: 20 characters).
std::string utc_now_iso();

}  // namespace gs
