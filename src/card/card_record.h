// The card state `check` adds after file-based detection, and its record in a snapshot. On the
// live machine it comes from vendor libraries (NVML; libdrm_amdgpu for AMD firmware), which no
// file in a captured tree can replay, so `gpustack snapshot` writes what they said into
// /.gpustack-card.toml and `check --sysroot` reads it back (format: docs/snapshot.md).
#pragma once
#include <string>
#include <string_view>

#include "core/facts.h"
#include "sys/sysroot.h"

namespace gs {

/// Where a captured tree keeps the card record.
constexpr std::string_view kCardRecordPath = "/.gpustack-card.toml";

/// The library-read card state of every GPU that has one, and the libraries' detection issues
/// (sources NVML, libdrm_amdgpu, rocm-smi), as TOML ("" when there is neither). Process pids and
/// names only when `identifiers`; their count always.
std::string card_record_text(const machine_facts& facts, bool identifiers);

/// Fill the GPUs of `facts` (matched by PCI address) from a record; fields the record lacks are
/// kept. False with *err on a TOML error (the facts are then unchanged).
bool apply_card_record(std::string_view text, machine_facts& facts, std::string* err);

/// Seconds the live library reads may take: nvmlInit on an 8-GPU host takes about a second,
/// nvidia-smi -q 0.11 s on the H200 (shared/GUIDE.md); a driver that does not answer in 10 s is
/// the finding, not something to wait for.
constexpr double kCardReadDeadlineS = 10;

/// Live: NVML for NVIDIA GPUs and libdrm_amdgpu (or rocm-smi) for AMD ones, in a forked child
/// under kCardReadDeadlineS. Captured: the tree's record, if any
/// (a malformed one is a detection_issue).
void detect_card_state(const sysroot& sys, machine_facts& facts);

}  // namespace gs
