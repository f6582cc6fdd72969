// What `gpustack probe collective` runs (docs/collective.md): which operations, over how many
// ranks on which backend, at which sizes. Parsed from the command line here, without I/O, so
// every bad value is a usage error before anything starts.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

/// The operations in run order; "p2p" is the GPU-to-GPU access and copy matrix (no torchrun).
const std::vector<std::string>& collective_ops();

/// "4K", "4KiB", "64M", "1G", "1GiB" or plain bytes (K, M, G are powers of 1024, as nccl-tests
/// reads them); nullopt with why for anything else, zero, or more than 16 GiB.
std::optional<uint64_t> parse_byte_count(std::string_view text, std::string* why);

/// Sizes from `lo` to `hi`, each 4x the one before (nccl-tests -f 4), `hi` always last.
std::vector<uint64_t> size_ladder(uint64_t lo, uint64_t hi);

/// "all_reduce,broadcast" or "all": the operations named, in run order; nullopt with why.
std::optional<std::vector<std::string>> parse_collective_ops(std::string_view text, std::string* why);

/// "hang:RANK:OP", "crash:RANK:OP" or "linger:RANK:OP" (OP may be "any"; linger: the rank finishes, then
/// takes 5 s to go, as a loaded machine's torchrun teardown does): the self-test's injected fault as the
/// JSON the worker reads; nullopt with why.
std::optional<std::string> parse_collective_fault(std::string_view text, std::string* why);

}  // namespace gs
