// GPU product names as people write them ("RX 9070 XT", "my 4090", "Radeon 780M") -> arch, from
// matrix/hardware/gpu_names.toml. Only for reading pasted text: live detection has PCI ids.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

struct gpu_name_hit {
  std::string arch;   ///< "gfx1201", "sm_89"
  std::string name;   ///< the table's spelling that matched ("rx 9070")
  std::string text;   ///< the words as the line has them ("RX 9070 XT")
  size_t at = 0;      ///< byte offset in the line
  /// Read from an APU's CPU model ("Ryzen 5 4500U with Radeon Graphics" -> its Vega iGPU, gfx90c):
  /// the weakest reading, for a paste that names no GPU of its own.
  bool by_cpu = false;
};

/// Every product name in `line`, in line order (an APU's CPU model only on a line that speaks of its
/// graphics: "with Radeon Graphics", iGPU, APU, integrated, Vega); the longest spelling wins where two overlap ("rx 6800m" beats
/// "rx 6800"). Names that run on into more digits do not match ("rx 9070" in "rx 90700").
std::vector<gpu_name_hit> find_gpu_names(std::string_view line);

/// "nvidia" for sm_*, "amd" for gfx*, "" otherwise.
std::string_view vendor_of_arch(std::string_view arch);

/// Load errors of the embedded table ("matrix/hardware/gpu_names.toml:12:3: ..."); empty when clean.
std::vector<std::string> gpu_names_errors();

}  // namespace gs
