// Who and where this machine is (hostname, user, home): read only so that redaction knows
// what to remove. The lead's detect_machine() calls detect_identity(); build_report() and the
// snapshot never print these unless --include-identifiers.
#pragma once
#include "core/facts.h"
#include "sys/sysroot.h"

namespace gs {

/// Fill facts.host.{hostname,user,home} from /proc/sys/kernel/hostname, /etc/hostname, the
/// environment (USER, LOGNAME, HOME) and, on a live machine, /etc/passwd for this uid.
/// Fields already set are kept; nothing is recorded as an issue (absence is normal).
void detect_identity(const sysroot& sys, machine_facts& facts);

}  // namespace gs
