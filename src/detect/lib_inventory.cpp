// Library inventory: list a directory once, match file stems, resolve each match to its real
// file, read the SONAME with a few small ranged reads. A big lib dir (/usr/lib/x86_64-linux-gnu,
// ~3000 entries) costs one readdir plus a stat per match, so the whole inventory stays in the
// low milliseconds.
#include "detect/lib_inventory.h"

#include <algorithm>
#include <cerrno>

#include "detect/elf_soname.h"
#include "detect/path_util.h"

namespace gs {

const std::vector<std::string_view>& rocm_library_stems() {
  // HIP runtime, ROCr, comgr (.so.2 in ROCm <= 6, .so.3 in 7: enums renumbered), hiprtc,
  // the two SMI libraries, rocm-core (getROCmVersion).
  static const std::vector<std::string_view> stems{"libamdhip64",    "libhsa-runtime64", "libamd_comgr",
                                                   "libhiprtc",      "librocm_smi64",    "libamd_smi",
                                                   "librocm-core"};
  return stems;
}

const std::vector<std::string_view>& nvidia_library_stems() {
  // Driver API (comes with the kernel driver), NVML (same), NVRTC (comes with the toolkit or
  // the nvidia-cuda-nvrtc wheel).
  static const std::vector<std::string_view> stems{"libcuda", "libnvidia-ml", "libnvrtc"};
  return stems;
}

bool library_name_matches(std::string_view stem, std::string_view filename) {
  if (filename.size() < stem.size() + 3 || filename.substr(0, stem.size()) != stem) return false;
  std::string_view rest = filename.substr(stem.size());
  return rest == ".so" || (rest.size() > 4 && rest.substr(0, 4) == ".so.");
}

std::string library_version_from_filename(std::string_view stem, std::string_view filename) {
  if (!library_name_matches(stem, filename) || filename.size() <= stem.size() + 4) return "";
  std::string_view suffix = filename.substr(stem.size() + 4);
  if (suffix.find('.') == std::string_view::npos) return "";
  for (char c : suffix)
    if (!((c >= '0' && c <= '9') || c == '.')) return "";  // "so.1.bak", "so.7.orig": not a version
  return std::string(suffix);
}

void scan_library_dir(const sysroot& sys, std::string_view dir, const std::vector<std::string_view>& stems,
                      std::string_view origin, std::vector<library_info>& out,
                      std::vector<detection_issue>& issues) {
  int err = 0;
  std::vector<std::string> names = sys.list(dir, &err);
  if (err != 0) {
    if (err != ENOENT && err != ENOTDIR)
      issues.push_back({std::string(dir), "cannot list library directory: " + errno_name(err)});
    return;
  }
  for (std::string_view stem : stems) {
    for (const std::string& n : names) {
      if (!library_name_matches(stem, n)) continue;
      std::string link = path_join(dir, n);
      std::string real = resolve_path(sys, link);
      node_stat st = sys.stat(real);
      if (!st.exists) {
        issues.push_back({link, "dangling symlink to " + real});
        continue;
      }
      if (st.is_dir) continue;
      bool seen = std::any_of(out.begin(), out.end(), [&](const library_info& l) { return l.path == real; });
      if (seen) continue;
      library_info li;
      li.name = std::string(stem);
      li.path = real;
      li.version = library_version_from_filename(stem, path_basename(real));
      li.origin = std::string(origin);
      elf_soname_result so = elf_soname_from_file(sys, real);
      li.soname = so.soname;
      if (!so.error.empty()) issues.push_back({real, "cannot read SONAME: " + so.error});
      out.push_back(std::move(li));
    }
  }
}

}  // namespace gs
