// Errno wording for detection issues (see read_issue.h).
#include "detect/read_issue.h"

#include <cerrno>

namespace gs {

std::string explain_errno(int err) {
  std::string name = errno_name(err);
  switch (err) {
    case EPERM: return name + ": hidden by the container's device cgroup";
    case EACCES: return name + ": permission denied";
    case ENOENT: return name + ": not present";
    case EIO: return name + ": I/O error from the driver (device in reset or hung?)";
    case ENODEV: return name + ": no such device (driver not bound)";
    case ENXIO: return name + ": no such device or address";
    case EBUSY: return name + ": device busy";
    case EINVAL: return name + ": rejected by the driver";
    default: return name;
  }
}

void add_issue(machine_facts& facts, std::string_view source, std::string message) {
  // Detectors share files (a PCI id is read for DRM, KFD and the bus scan): say it once.
  for (const detection_issue& i : facts.issues)
    if (i.source == source && i.message == message) return;
  facts.issues.push_back({std::string(source), std::move(message)});
}

std::optional<std::string> read_or_issue(const sysroot& sys, std::string_view path,
                                         machine_facts& facts, bool missing_ok) {
  read_result r = sys.read(path);
  if (r) return std::move(r.text);
  if (!(missing_ok && r.err == ENOENT)) add_issue(facts, path, explain_errno(r.err));
  return std::nullopt;
}

}  // namespace gs
