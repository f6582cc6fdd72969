// Detection: fill machine_facts from a sysroot without loading any vendor library, importing
// Python or starting a GPU runtime. Each detector adds what it can and records what it could
// not read as a detection_issue; none throws.
#pragma once
#include <string>

#include "core/facts.h"
#include "sys/sysroot.h"

namespace gs {

struct detect_options {
  std::string python;  ///< --python PATH
  std::string venv;    ///< --venv DIR
  std::string cwd;     ///< where ./.venv is looked for ("" = the process's cwd)
};

/// Host: os-release, kernel, CPU, RAM, swap and zram, container.       (detect/host.cpp)
void detect_host(const sysroot& sys, machine_facts& facts);
/// AMD GPUs from the KFD topology, DRM and PCI; amdgpu module state.     (detect/amd.cpp)
void detect_amd(const sysroot& sys, machine_facts& facts);
/// NVIDIA GPUs and driver from /proc/driver/nvidia and PCI.              (detect/nvidia.cpp)
void detect_nvidia(const sysroot& sys, machine_facts& facts);
/// /dev/kfd, /dev/dri/renderD*, /dev/nvidia* access and group membership. (detect/access.cpp)
void detect_access(const sysroot& sys, machine_facts& facts);
/// ROCm installs, CUDA toolkit, vendor libraries and where they come from. (detect/toolkits.cpp)
void detect_toolkits(const sysroot& sys, machine_facts& facts);
/// The relevant environment variables (names in detect/env_vars.cpp).   (detect/env_vars.cpp)
void detect_env(const sysroot& sys, machine_facts& facts);
/// The Python ML stack from dist-info, without running Python.          (python/python_env.cpp)
void detect_python(const sysroot& sys, const detect_options& opts, machine_facts& facts);

/// All of the above, in dependency order.                               (detect/detect.cpp)
machine_facts detect_machine(const sysroot& sys, const detect_options& opts);

}  // namespace gs
