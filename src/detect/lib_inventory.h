// Inventory of the vendor libraries a GPU stack loads: which copies of libamdhip64, libcuda,
// libnvrtc ... exist, their real paths, SONAMEs and versions from the real file names. Used by
// detect_toolkits (system, ROCm, CUDA dirs) and detect_python (torch/lib, nvidia/*/lib wheels).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/facts.h"
#include "sys/sysroot.h"

namespace gs {

/// ROCm libraries by file stem (dlopen names in research/detection.md appendix A).
const std::vector<std::string_view>& rocm_library_stems();
/// NVIDIA driver and toolkit libraries by file stem.
const std::vector<std::string_view>& nvidia_library_stems();

/// True when `filename` is a file of `stem`: "libamdhip64.so" or "libamdhip64.so.<anything>".
bool library_name_matches(std::string_view stem, std::string_view filename);
/// The version a real file name carries: "libamdhip64.so.6.2.60200" -> "6.2.60200",
/// "libcuda.so.580.159.04" -> "580.159.04". A bare SONAME major ("libcuda.so.1") or no suffix
/// gives "": that is an ABI number, not a version.
std::string library_version_from_filename(std::string_view stem, std::string_view filename);

/// Scan `dir` for files of `stems`; append one library_info per distinct real file not already
/// in `out` (tagged with `origin`). Unreadable directories (other than missing ones), dangling
/// links and ELF files whose SONAME cannot be read become issues; a non-ELF file (a fixture's
/// fake, a linker script) simply has no SONAME.
void scan_library_dir(const sysroot& sys, std::string_view dir, const std::vector<std::string_view>& stems,
                      std::string_view origin, std::vector<library_info>& out,
                      std::vector<detection_issue>& issues);

}  // namespace gs
