// Byte counts as people read them. Sizes are GiB (2^30 bytes) everywhere: `check` shows VRAM
// and RAM so, `estimate` takes --vram/--ram/--disk so, and PyTorch's OOM message prints GiB, so
// a number the user compares across the three must be the same unit.
#pragma once
#include <string>

namespace gs {

/// `bytes` in GiB with `decimals` digits after the point, no unit: "31.9" (a table column
/// whose heading names the unit).
std::string gib_number(double bytes, int decimals = 1);

/// The same with its unit: "31.9 GiB".
std::string gib_text(double bytes, int decimals = 1);

}  // namespace gs
