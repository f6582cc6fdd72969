// SHA-256 (FIPS 180-4), only to turn GPU serials and UUIDs into stable, non-reversible ids in
// redacted reports. No crypto library is linked, and 60 lines are cheaper than a dependency.
#pragma once
#include <string>
#include <string_view>

namespace gs {

/// Lower-case hex digest of `data` (64 characters).
std::string sha256_hex(std::string_view data);

}  // namespace gs
