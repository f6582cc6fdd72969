// The closed set of outcomes for a probe, and the severities of findings (GUIDE "Contracts").
#pragma once
#include <optional>
#include <string_view>

namespace gs {

/// A probe's outcome. `skip`: not applicable here (with a reason); `error`: the probe itself
/// could not run; `hang`: the watchdog killed it at a deadline; `crash`: it died by a signal.
enum class status { pass, warn, fail, skip, hang, crash, error };

/// A finding's severity.
enum class severity { info, warn, fail };

std::string_view to_string(status s);
std::string_view to_string(severity s);
/// Sort key, most severe first: fail 0, warn 1, info 2.
int severity_rank(severity s);
std::optional<status> parse_status(std::string_view s);
std::optional<severity> parse_severity(std::string_view s);

/// True for outcomes that make the run exit 1 (fail, crash, error); hang has its own code.
bool is_failure(status s);

/// Process exit codes (GUIDE): 0 nothing failed, 1 a finding or probe failed,
/// 2 the tool could not run, 3 a probe hung (the GPU may need a reset).
enum exit_code : int { exit_ok = 0, exit_failed = 1, exit_usage = 2, exit_hang = 3 };

}  // namespace gs
