// Parsers for the NVIDIA kernel driver's procfs (detection.md 7.1): the version banner of
// /proc/driver/nvidia/version and the "Key: value" gpus/<bus>/information files. Pure and
// total, so they double as libFuzzer targets.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sys/sysroot.h"

namespace gs {

struct nvidia_banner {
  bool ok = false;           ///< an "NVRM version:" line with a version number was found
  std::string version;       ///< "580.159.04"
  bool open_module = false;  ///< "Open Kernel Module" (the open-gpu-kernel-modules build)
  std::string banner;        ///< the NVRM line after "NVRM version:", trimmed
};
/// "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ..."
nvidia_banner parse_nvidia_version(std::string_view text);

/// The first token that looks like a driver version (\d+\.\d+(\.\d+)?) in `s`, or "".
std::string find_driver_version(std::string_view s);

/// "Model: \t\t NVIDIA H200" lines -> {"Model": "NVIDIA H200", ...}; split on the first ':'.
std::map<std::string, std::string> parse_nvidia_information(std::string_view text);

struct nvidia_proc_gpu {
  std::string bus;   ///< directory name, "0000:00:06.0"
  std::map<std::string, std::string> info;  ///< parsed information file (empty if unreadable)
  int err = 0;       ///< errno of the information read
};
/// Every /proc/driver/nvidia/gpus/<bus>/information, sorted by bus.
std::vector<nvidia_proc_gpu> read_nvidia_proc_gpus(const sysroot& sys);

}  // namespace gs
