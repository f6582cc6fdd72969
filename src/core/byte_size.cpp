#include "core/byte_size.h"

#include <fmt/format.h>

namespace gs {

std::string gib_number(double bytes, int decimals) { return fmt::format("{:.{}f}", bytes / double(1ull << 30), decimals); }

std::string gib_text(double bytes, int decimals) { return gib_number(bytes, decimals) + " GiB"; }

}  // namespace gs
