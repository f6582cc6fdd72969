// Hardware knowledge as data: matrix/hardware/amd_gpus.toml and nvidia_gpus.toml map PCI ids to
// product names and expected figures, and AMD gfx targets to families. Used for naming and for
// filling what the kernel does not tell (NVIDIA compute capability); AMD detection never gates
// on these tables (the KFD gfx_target_version is the truth, detection.md 1.11).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/table_error.h"

namespace gs {

struct gpu_table_entry {
  uint32_t device = 0;                 ///< PCI device id
  std::optional<uint32_t> revision;    ///< AMD names differ by revision (0x7550 c0/c2/c3)
  std::string name;                    ///< "Radeon AI PRO R9700", "NVIDIA H200"
  std::string arch;                    ///< "gfx1201", "sm_90"
  std::string compute_capability;      ///< NVIDIA "9.0"
  int compute_units = 0;               ///< CUs / SMs of the full product, 0 unknown
  uint64_t vram_bytes = 0;             ///< 0 unknown
};

struct arch_family {
  std::string prefix;   ///< "gfx12", "gfx90a": the longest matching prefix wins
  std::string family;   ///< "rdna4", "cdna2"
  int wave_size = 0;    ///< HIP default warpSize for the family
};

struct gpu_tables {
  std::vector<gpu_table_entry> amd;
  std::vector<gpu_table_entry> nvidia;
  std::vector<arch_family> amd_families;
};

/// Parse one table file (either vendor; "[[gpu]]" and "[[family]]" arrays) into `out`.
/// Errors carry file, line and column; bad entries are skipped, good ones kept.
void parse_gpu_table(std::string_view path, std::string_view text, std::vector<gpu_table_entry>& gpus,
                     std::vector<arch_family>& families, std::vector<table_error>& errors);

/// The embedded tables, parsed once; problems in them are printed then (print_table_errors), and
/// `errors` (if given) receives them.
const gpu_tables& builtin_gpu_tables(std::vector<table_error>* errors = nullptr);

/// Best entry: exact (device, revision) first, then a revision-less entry for the device.
const gpu_table_entry* find_gpu(const std::vector<gpu_table_entry>& table, uint32_t device,
                                std::optional<uint32_t> revision);

/// The family of an AMD gfx target by longest prefix ("gfx1201" -> rdna4), or nullptr.
const arch_family* find_amd_family(const gpu_tables& t, std::string_view gfx);

}  // namespace gs
