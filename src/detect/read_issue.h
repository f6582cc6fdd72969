// How detectors turn an unreadable or malformed file into a detection_issue. One wording for
// every errno so rules and users see the same explanation everywhere; EPERM on sysfs is the
// container device cgroup hiding a GPU (detection.md 1.7), not a broken machine.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "core/facts.h"
#include "sys/sysroot.h"

namespace gs {

/// "EPERM: hidden by the container's device cgroup", "EACCES: permission denied", ...
std::string explain_errno(int err);

/// Append {source, message} to facts.issues, unless that exact issue is already there.
void add_issue(machine_facts& facts, std::string_view source, std::string message);

/// Read `path`; on failure record an issue (unless the error is ENOENT and `missing_ok`).
std::optional<std::string> read_or_issue(const sysroot& sys, std::string_view path,
                                         machine_facts& facts, bool missing_ok);

}  // namespace gs
