// libFuzzer target for every parser `gpustack check` feeds with files from the machine: KFD
// properties, NVIDIA procfs, os-release/meminfo/cpuinfo/swaps/cgroup, ELF SONAME, Python
// METADATA/version.py/pyvenv.cfg, allocator settings, PEP 440 versions and ranges. The first
// byte picks the parser so one corpus covers all of them. Run: scripts/fuzz.sh build-asan 20
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/version.h"
#include "detect/elf_soname.h"
#include "detect/kfd_topology.h"
#include "detect/nvidia_proc.h"
#include "detect/proc_parse.h"
#include "python/dist_info.h"
#include "python/pep503.h"
#include "python/pyvenv_cfg.h"
#include "python/torch_version.h"
#include "rules/alloc_conf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 14) {
    case 0: {
      auto p = gs::parse_kfd_properties(text);
      (void)p;
      if (size >= 9) {
        uint64_t v = 0;
        for (int i = 1; i < 9; ++i) v = (v << 8) | data[i];
        (void)gs::gfx_name(v);
        (void)gs::pci_address_from_location(v >> 32, v);
      }
      break;
    }
    case 1: (void)gs::parse_nvidia_version(text); break;
    case 2: (void)gs::parse_nvidia_information(text); break;
    case 3: (void)gs::parse_os_release(text); break;
    case 4: (void)gs::parse_meminfo(text); break;
    case 5: (void)gs::parse_cpuinfo(text); break;
    case 6: (void)gs::parse_swaps(text); (void)gs::container_kind_from_cgroup(text); break;
    case 7: (void)gs::elf_soname_from_bytes(text); break;
    case 8: {
      gs::dist_metadata m;
      std::string err;
      (void)gs::parse_dist_metadata(text, m, err);
      (void)gs::parse_installer(text);
      break;
    }
    case 9: (void)gs::parse_torch_version_py(text); break;
    case 10: (void)gs::parse_pyvenv_cfg(text); (void)gs::pep503_normalize(text); break;
    case 11: (void)gs::parse_alloc_conf(text); break;
    case 12: {
      auto a = gs::version::parse(text);
      auto b = gs::version::parse("2.11.0+rocm7.2");
      if (a && b) (void)gs::compare(*a, *b);
      break;
    }
    case 13: (void)gs::version_range::parse(text); break;
  }
  return 0;
}
