// What Windows reports carry: the system-information lines of games and tools, dxdiag, Device
// Manager and `wmic` print the NVIDIA driver in Windows' own four-part form, the OS by its NT
// build, AMD's driver by its Adrenalin release; WSL2's kernel log names its paravirtual GPU (dxg).
//   godotengine/godot#86530: "Windows 11 (22621.2861) ... NVIDIA GeForce RTX 3060 (NVIDIA; 31.0.15.4633)"
//   godotengine/godot#92406: "Windows 10.0.22631 ... AMD Radeon RX 7900 XTX (Advanced Micro Devices, Inc.; 31.0.24033.1003)"
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/text_scan.h"
#include "explain/paste_scan.h"

namespace gs {
namespace {

/// NVIDIA's Windows driver as Windows numbers it, "32.0.15.6636", is the release 566.36: the last
/// digit of the third field and the four of the last are the five digits of the release (31.0.15.4633
/// is 546.33, 27.21.14.5671 is 456.71). Only the shape NVIDIA uses (a two-digit third field, a
/// four-digit last one) is read: AMD's "31.0.24033.1003" and Intel's "31.0.101.5333" are not NVIDIA's.
std::optional<std::string> nvidia_release_of_windows_version(std::string_view line) {
  for (size_t i = 0; i < line.size(); ++i) {
    if (!scan::is_digit(line[i]) || (i > 0 && (std::isalnum(static_cast<unsigned char>(line[i - 1])) || line[i - 1] == '.'))) continue;
    size_t e = i;
    while (e < line.size() && (scan::is_digit(line[e]) || line[e] == '.')) ++e;
    std::vector<std::string_view> f = scan::split(line.substr(i, e - i), '.');
    i = e;
    if (f.size() != 4 || f[0].size() != 2 || f[2].size() != 2 || f[3].size() != 4) continue;
    std::string digits = std::string(1, f[2][1]) + std::string(f[3]);  // "56636"
    if (digits[0] < '3') continue;                                      // releases run 3xx .. 9xx
    return digits.substr(0, 3) + "." + digits.substr(3);
  }
  return std::nullopt;
}

/// The NT build after "10.0." on a line that says Windows ("Windows-10-10.0.22631-SP0" from
/// platform.platform(), "Microsoft Windows [Version 10.0.22631.4602]", "Windows 10.0.22631"):
/// Windows 11 keeps the 10.0 kernel number and starts at build 22000.
std::optional<std::string> windows_release_of_build(std::string_view lower) {
  // CMake's "Selecting Windows SDK version 10.0.22621.0 to target Windows 10.0.19045" names the
  // SDK first: a build log's line is not the OS's.
  if (lower.find("windows") == std::string_view::npos || lower.find("sdk") != std::string_view::npos) return std::nullopt;
  for (size_t p = lower.find("10.0."); p != std::string_view::npos; p = lower.find("10.0.", p + 5)) {
    if (p > 0 && scan::is_digit(lower[p - 1])) continue;
    size_t b = p + 5, e = b;
    while (e < lower.size() && scan::is_digit(lower[e])) ++e;
    if (e - b != 5) continue;
    return std::stoi(std::string(lower.substr(b, e - b))) >= 22000 ? "11" : "10";
  }
  return std::nullopt;
}

/// "AMD Software: Adrenalin Edition 24.12.1", "Adrenalin 25.3.1", "adrenalin driver 24.9.1": AMD's
/// Windows driver release (year.month.n).
std::optional<std::string> adrenalin_release(std::string_view lower, const std::string& line) {
  size_t p = lower.find("adrenalin");
  if (p == std::string_view::npos) return std::nullopt;
  size_t q = p + 9;
  for (bool moved = true; moved;) {
    moved = false;
    for (std::string_view w : {" edition", " driver", " version", ":", " ", "v"})
      if (lower.compare(q, w.size(), w) == 0 && q + w.size() < lower.size()) {
        q += w.size();
        moved = true;
      }
  }
  if (q >= lower.size() || !scan::is_digit(lower[q])) return std::nullopt;
  auto v = first_version(line, q);
  if (!v || line.compare(q, v->size(), *v) != 0) return std::nullopt;
  int year = std::atoi(v->c_str());
  if (year < 19 || year > 40) return std::nullopt;
  return v;
}

bool names_nvidia(std::string_view lower) {
  for (std::string_view w : {"nvidia", "geforce", "quadro", "tesla", "rtx "})
    if (lower.find(w) != std::string_view::npos) return true;
  return false;
}

}  // namespace

void scan_windows_line(paste_scan& s, size_t i, const std::string& l, const std::string& lower) {
  // The four-part driver on the card's own line, or on a "Driver Version" line of a block that
  // names an NVIDIA card a few lines above (dxdiag's "Card name:" is ten lines up).
  if (lower.find("driver") != std::string::npos || names_nvidia(lower))
    if (auto r = nvidia_release_of_windows_version(l)) {
      bool nvidia = names_nvidia(lower);
      for (size_t j = i > 12 ? i - 12 : 0; j < i && !nvidia; ++j) nvidia = names_nvidia(lower_copy(s.lines[j]));
      if (nvidia) {
        s.propose("nvidia.driver", *r, i, "windows driver", weight::labelled);
        s.propose("host.os_id", "windows", i, "windows driver", weight::labelled);
      }
    }
  // As strong as a distribution named in prose: "Windows 11 10.0.22621, WSL Ubuntu 24.04.2" names both.
  if (auto r = windows_release_of_build(lower)) {
    s.propose("host.os_id", "windows", i, "text", weight::prose);
    s.propose("host.os_version", *r, i, "text", weight::prose);
  }
  if (auto v = adrenalin_release(lower, l)) {
    s.propose("app.adrenalin", *v, i, "text", weight::labelled);
    s.propose("host.os_id", "windows", i, "text", weight::prose);
  }
  // The HIP SDK's install folder, "C:\Program Files\AMD\ROCm\6.2\bin\rocblas.dll" (AMD's HIP SDK for
  // Windows installs each release under ROCm\<major.minor>): the SDK that is installed, so it
  // outweighs a release the prose only mentions ("ROCm 6.3 added support"), and the OS is Windows.
  if (size_t p = lower.find("\\amd\\rocm\\"); p != std::string::npos) {
    size_t q = p + 10;
    if (auto v = first_version(lower, q); v && lower.compare(q, v->size(), *v) == 0 && v->find('.') != std::string::npos) {
      s.propose("rocm.version", *v, i, "hip sdk path", weight::labelled);
      s.propose("host.os_id", "windows", i, "hip sdk path", weight::labelled);
    }
  }
  // WSL2's GPU is the Windows driver's, behind the dxgkrnl paravirtual device: its kernel log
  // says "misc dxg: dxgk: dxgkio_query_adapter_info: Ioctl failed: -22".
  if (lower.find("dxgk") != std::string::npos || lower.find("misc dxg") != std::string::npos)
    s.propose("host.container_kind", "wsl", i, "wsl", weight::labelled);
  // microsoft/WSL's issue form: "- [X] WSL 2" ticked, "WSL version: 2.0.14.0" (`wsl --version`).
  if (lower.find("[x] wsl 2") != std::string::npos) s.propose("host.container_kind", "wsl", i, "wsl", weight::labelled);
  if (auto v = after_label(l, "WSL version:"); v && !v->empty() && scan::is_digit((*v)[0]))
    s.propose("host.container_kind", "wsl", i, "wsl", weight::labelled);
}

}  // namespace gs
