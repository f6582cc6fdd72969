// detect_access: can this process open the device nodes a GPU runtime opens? AMD: /dev/kfd and
// /dev/dri/renderD<minor> of every KFD GPU, reported separately because libhsakmt treats them
// differently (an EACCES on a render node fails hsa_init outright, detection.md 1.7). NVIDIA:
// /dev/nvidiactl, /dev/nvidia<minor>, /dev/nvidia-uvm (created lazily by nvidia-modprobe).
// The owning group is looked up by gid, never assumed ("render" was "video" before Ubuntu 20.04,
// and in a container the gid often has no name at all).
#include <algorithm>
#include <cerrno>
#include <set>

#include "detect/detect.h"
#include "detect/nvidia_proc.h"
#include "core/text_scan.h"

namespace gs {
namespace {

device_access check(const sysroot& sys, const std::string& path, const std::vector<gid_t>& groups) {
  device_access a;
  a.path = path;
  node_stat st = sys.stat(path);
  a.exists = st.exists;
  int err = a.exists ? sys.open_device(path) : ENOENT;
  a.ok = err == 0;
  a.error = a.ok ? "" : errno_name(err);
  if (a.exists) {
    a.group = sys.group_name(st.gid);
    a.user_in_group = std::find(groups.begin(), groups.end(), st.gid) != groups.end();
  }
  return a;
}

}  // namespace

void detect_access(const sysroot& sys, machine_facts& facts) {
  std::vector<gid_t> groups = sys.process_groups();
  std::vector<std::string> paths;
  auto want = [&](std::string p) {
    if (std::find(paths.begin(), paths.end(), p) == paths.end()) paths.push_back(std::move(p));
  };

  bool amd_kfd_gpu = false, nvidia_gpu = false;
  for (const gpu_info& g : facts.gpus) {
    if (g.vendor == "amd" && g.source == "kfd") amd_kfd_gpu = true;
    if (g.vendor == "nvidia" && g.source == "proc-nvidia") nvidia_gpu = true;
  }
  // /dev/kfd matters whenever a KFD GPU exists or the node is there (a hidden GPU in a
  // container still shows an unopenable /dev/kfd, which is the user's clue).
  if (amd_kfd_gpu || sys.exists("/dev/kfd")) want("/dev/kfd");
  for (const gpu_info& g : facts.gpus)
    if (g.vendor == "amd" && g.render_minor >= 0) want("/dev/dri/renderD" + std::to_string(g.render_minor));

  if (nvidia_gpu || sys.exists("/dev/nvidiactl")) {
    want("/dev/nvidiactl");
    // The device minor is in procfs; the list of /dev/nvidiaN shows what udev made, so take both.
    for (const nvidia_proc_gpu& p : read_nvidia_proc_gpus(sys)) {
      auto it = p.info.find("Device Minor");
      if (it == p.info.end()) continue;
      if (auto m = scan::parse_u64(it->second); m && *m < 256) want("/dev/nvidia" + std::to_string(*m));
    }
    for (const std::string& n : sys.list("/dev"))
      if (n.size() > 6 && n.starts_with("nvidia") && scan::parse_u64(n.substr(6))) want("/dev/" + n);
    want("/dev/nvidia-uvm");
  }
  for (const std::string& p : paths) facts.access.push_back(check(sys, p, groups));
}

}  // namespace gs
