// The KFD topology (/sys/class/kfd/kfd/topology): the parser for its "key value" properties
// files, the gfx_target_version decoder, the location_id -> PCI address decoder, and a reader
// that snapshots all nodes with libhsakmt's generation_id retry. Formats: detection.md 1.1-1.6.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts.h"
#include "sys/sysroot.h"

namespace gs {

/// One parsed properties file. Values are unsigned decimal (the kernel prints "%s %u\n" and
/// "%s %llu\n"); unknown keys are kept, malformed lines counted, never fatal.
struct kfd_properties {
  std::map<std::string, uint64_t, std::less<>> values;
  int malformed_lines = 0;   ///< lines that are not "<key> <decimal>"
  bool truncated = false;    ///< the last line had no '\n': cut off mid-write, so it was dropped
  std::optional<uint64_t> get(std::string_view key) const;
  uint64_t get_or(std::string_view key, uint64_t fallback) const;
};
kfd_properties parse_kfd_properties(std::string_view text);

/// gfx_target_version (decimal MMmmss) to the LLVM target: major in decimal, minor and stepping
/// in hex. 120001 -> "gfx1201", 90010 -> "gfx90a", 90402 -> "gfx942"; 0 (a CPU node) -> "".
std::string gfx_name(uint64_t gfx_target_version);

/// KFD domain + location_id ((bus << 8) | devfn) -> "0000:03:00.0". Bits above the 16-bit BDF
/// are ignored. MI300 partitions OR their node id into the low (function) bits, so a caller
/// that finds no such function should try function 0 (detect/amd.cpp does).
std::string pci_address_from_location(uint64_t domain, uint64_t location_id);

struct kfd_mem_bank {
  uint64_t heap_type = 0;  ///< 1 FB public, 2 FB private = VRAM
  uint64_t size_bytes = 0;
};

struct kfd_node {
  int index = -1;              ///< the directory name: user node index, CPU nodes counted
  uint64_t gpu_id = 0;         ///< 0 on CPU nodes
  kfd_properties props;
  int properties_err = 0;      ///< errno of the properties read (EPERM = hidden by cgroup)
  std::vector<kfd_mem_bank> mem_banks;
  /// simd_count > 0 (or gpu_id != 0) and gfx_target_version != 0 (detection.md 1.4); a missing
  /// gfx_target_version (truncated file) counts as a GPU of unknown arch, not a CPU.
  bool is_gpu() const;
  uint64_t vram_bytes() const; ///< sum of heap_type 1|2 banks
};

struct kfd_topology {
  bool present = false;        ///< the topology directory exists (amdgpu with KFD loaded)
  std::string root;            ///< the path that was read
  std::vector<kfd_node> nodes; ///< in numeric index order
  std::vector<detection_issue> issues;
};

/// Read every node; retries (up to 3 times) when generation_id changes during the scan, as
/// libhsakmt's topology_take_snapshot does, because a hot-unplug mid-scan mixes two topologies.
kfd_topology read_kfd_topology(const sysroot& sys);

}  // namespace gs
