// `ls -l /dev/kfd /dev/dri/*` in a paste: who owns the GPU device nodes. With the error the
// runtime printed for the same node ("Unable to open /dev/kfd read-write: Permission denied",
// "hipErrorNoDevice ... Permission denied") it gives the device facts the host rules need
// (GS-HOST-020: a node left to root:root 0600 by a missing udev rule, never "join group root").
#include <cctype>

#include "explain/paste_scan.h"

namespace gs {
namespace {

/// "crw-rw----+ 1 root render 226, 128 Dec  3 09:00 /dev/dri/renderD128" -> group and path.
bool listing_line(std::string_view t, device_access& d) {
  if (t.size() < 20 || (t[0] != 'c' && t[0] != 'b')) return false;
  for (size_t i = 1; i < 10; ++i)
    if (t[i] != 'r' && t[i] != 'w' && t[i] != 'x' && t[i] != '-' && t[i] != 's' && t[i] != 'S' && t[i] != 't') return false;
  size_t dev = t.find(" /dev/");
  if (dev == std::string_view::npos) return false;
  std::string path = trim_copy(t.substr(dev + 1));
  path = path.substr(0, path.find_first_of(" \t"));
  if (!(path == "/dev/kfd" || path.rfind("/dev/dri/", 0) == 0 || path.rfind("/dev/nvidia", 0) == 0)) return false;
  // fields: mode links owner group major, minor ...
  std::vector<std::string> f;
  size_t i = 10;
  while (i < dev && f.size() < 4) {
    while (i < dev && (t[i] == ' ' || t[i] == '+' || t[i] == '.')) ++i;
    size_t b = i;
    while (i < dev && t[i] != ' ') ++i;
    if (i > b) f.emplace_back(t.substr(b, i - b));
  }
  if (f.size() < 3) return false;
  d.path = path;
  d.exists = true;
  d.group = f[2];
  return true;
}

}  // namespace

void scan_device_listing(paste_scan& s) {
  for (const std::string& l : s.lines) {
    device_access d;
    if (!listing_line(trim_copy(l), d)) continue;
    s.kind("ls -l /dev");
    bool seen = false;
    for (const device_access& x : s.devices) seen = seen || x.path == d.path;
    if (!seen) s.devices.push_back(d);
  }
  if (s.devices.empty()) return;
  // The error the runtime printed for a listed node: "Unable to open /dev/kfd read-write:
  // Permission denied" (rocminfo), "open /dev/kfd: permission denied", "Operation not permitted".
  for (const std::string& l : s.lines) {
    std::string lower = lower_copy(l);
    const char* err = lower.find("permission denied") != std::string::npos     ? "EACCES"
                      : lower.find("operation not permitted") != std::string::npos ? "EPERM"
                                                                                   : nullptr;
    if (!err) continue;
    for (device_access& d : s.devices)
      if (lower.find(d.path) != std::string::npos || (d.path == "/dev/kfd" && lower.find("kfd") != std::string::npos)) {
        d.error = err;
        d.ok = false;
      }
  }
}

}  // namespace gs
