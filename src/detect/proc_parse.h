// Pure parsers for the host files detect_host reads: os-release, /proc/meminfo, /proc/cpuinfo,
// /proc/swaps and /proc/1/cgroup. Text in, values out, never throw: each is a libFuzzer target
// (fuzz/), so any byte string must be safe.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

/// os-release(5): KEY=VALUE lines, values optionally in "" or '' with \-escapes; '#' comments.
std::map<std::string, std::string> parse_os_release(std::string_view text);

/// /proc/meminfo: "MemTotal:  65536000 kB" -> {"MemTotal", 67108864000}. Values with the kB unit
/// are converted to bytes; unit-less ones (HugePages_Total) are kept as counts. Bad lines skipped.
std::map<std::string, uint64_t> parse_meminfo(std::string_view text);

struct cpuinfo_summary {
  std::string model;       ///< first "model name" (x86) or "Model"/"Hardware" (arm), "" if none
  int logical = 0;         ///< "processor" entries
  int physical_cores = 0;  ///< distinct (physical id, core id) pairs; 0 when the file lacks them
  std::string arch_hint;   ///< "x86_64" (flags has lm), "aarch64" (CPU architecture: 8), ""
};
/// /proc/cpuinfo, blocks separated by blank lines, "key\t: value".
cpuinfo_summary parse_cpuinfo(std::string_view text);

struct swap_entry {
  std::string path;         ///< "/dev/zram0", "/swap.img"
  std::string type;         ///< "partition", "file"
  uint64_t size_bytes = 0;  ///< /proc/swaps sizes are KiB
  uint64_t used_bytes = 0;
  bool zram = false;        ///< a compressed RAM swap device: it costs RAM, it does not add any
};
/// /proc/swaps: a header line, then "Filename Type Size Used Priority".
std::vector<swap_entry> parse_swaps(std::string_view text);

/// Container runtime named by /proc/1/cgroup ("docker", "kubernetes", "podman", "lxc"), or "".
/// cgroup v2 hosts show "0::/" in a container too, so "" does not mean "not a container".
std::string container_kind_from_cgroup(std::string_view text);

}  // namespace gs
