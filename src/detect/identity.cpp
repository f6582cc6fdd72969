// detect_identity: the three strings redaction must know to remove. On a captured tree the
// hostname file is normally absent (snapshots leave it out) and USER/HOME come from the
// manifest's [env], already redacted, so a replay redacts nothing new.
#include "detect/identity.h"

#include <unistd.h>

#include <string>
#include <string_view>

#include "core/text_scan.h"

namespace gs {
namespace {

/// The passwd line for `uid`: name (field 1) and home (field 6).
bool passwd_entry(const std::string& text, unsigned uid, std::string& name, std::string& home) {
  for (std::string_view line : scan::lines(text)) {
    std::string_view f[7];
    size_t n = 0, start = 0;
    for (size_t i = 0; i <= line.size() && n < 7; ++i)
      if (i == line.size() || line[i] == ':') {
        f[n++] = line.substr(start, i - start);
        start = i + 1;
      }
    if (n < 6 || f[2] != std::to_string(uid)) continue;
    name = std::string(f[0]);
    home = std::string(f[5]);
    return true;
  }
  return false;
}

}  // namespace

void detect_identity(const sysroot& sys, machine_facts& facts) {
  host_info& h = facts.host;
  if (h.hostname.empty()) {
    for (const char* p : {"/proc/sys/kernel/hostname", "/etc/hostname"}) {
      if (auto text = sys.read_text(p)) {
        std::string v = std::string(scan::trim(*text));
        if (!v.empty() && v != "(none)") {
          h.hostname = v;
          break;
        }
      }
    }
  }
  auto env = sys.environment();
  auto get = [&env](const char* k) {
    auto it = env.find(k);
    return it == env.end() ? std::string() : std::string(scan::trim(it->second));
  };
  if (h.user.empty()) h.user = get("USER");
  if (h.user.empty()) h.user = get("LOGNAME");
  if (h.home.empty()) h.home = get("HOME");
  if ((h.user.empty() || h.home.empty()) && sys.is_live()) {
    // A container started with `docker run -u 1000` has neither USER nor HOME: ask passwd.
    if (auto text = sys.read_text("/etc/passwd")) {
      std::string name, home;
      if (passwd_entry(*text, static_cast<unsigned>(::getuid()), name, home)) {
        if (h.user.empty()) h.user = name;
        if (h.home.empty()) h.home = home;
      }
    }
  }
  while (h.home.size() > 1 && h.home.back() == '/') h.home.pop_back();
}

}  // namespace gs
