// How the machine's GPUs reach each other (issue 20): for a DDP/FSDP job the link between two
// GPUs decides whether NCCL/RCCL can use peer-to-peer and at what bandwidth, and an IOMMU that
// translates DMA or a PCIe bridge whose ACS redirects peer requests upstream is the usual reason
// collectives hang on a PCIe box (NCCL's troubleshooting guide; nccl#631, #2079). All from sysfs:
// each GPU's place in the PCI tree, NUMA node, IOMMU group and AMD XGMI hive, and, where the
// process may read the bridges' extended config space (root), their ACS control bits.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/facts.h"
#include "sys/sysroot.h"

namespace gs {

/// Fills each GPU's pcie_root, pcie_bridges, numa_node, iommu_group_type and xgmi_hive, and, with
/// two or more GPUs, facts.topology. A GPU without a PCI address (or sysfs) keeps the defaults.
void detect_gpu_topology(const sysroot& sys, machine_facts& facts);

/// The link between two GPUs in nvidia-smi topo -m's words: "XGMI" (the same AMD XGMI hive), "PIX"
/// (under one PCIe switch), "PXB" (several bridges, not through the host bridge), "PHB" (through the
/// host bridge), "NODE" (between host bridges of one NUMA node), "SYS" (between NUMA nodes); ""
/// when either GPU's place is unknown.
std::string gpu_link_kind(const gpu_info& a, const gpu_info& b);

/// Rank of a kind from fastest to slowest (XGMI 0 ... SYS 5); -1 for "" or an unknown word.
int gpu_link_rank(std::string_view kind);

/// The ACS Control register of a bridge from its config space bytes (the extended capability
/// list from offset 0x100, capability id 0x000D, control at +6); 0 when the bridge has no ACS
/// capability; nullopt when the bytes stop before the extended space (an unprivileged read of
/// sysfs `config` returns the first 64 bytes only).
std::optional<uint16_t> acs_control(std::string_view config);

/// ACS bits that send peer-to-peer requests or completions up to the root complex instead of
/// across the switch: P2P Request Redirect (bit 2) and Completion Redirect (bit 3).
constexpr uint16_t acs_redirect_bits = 0x0004 | 0x0008;

}  // namespace gs
