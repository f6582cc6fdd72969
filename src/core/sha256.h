// SHA-256 (FIPS 180-4): GPU serials and UUIDs as stable, non-reversible ids in redacted reports,
// the JIT cache's keys and the matrix's report digests. In core/ because the runtime, report and
// matrix layers all use it. No crypto library is linked; 60 lines are cheaper than a dependency.
#pragma once
#include <string>
#include <string_view>

namespace gs {

/// Lower-case hex digest of `data` (64 characters).
std::string sha256_hex(std::string_view data);

}  // namespace gs
