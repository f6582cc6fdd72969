// gfx target resolution for the hip backend; see hip_arch.h for the order and why.
#include "runtime/hip_arch.h"

#include "detect/kfd_topology.h"
#include "sys/sysroot.h"

namespace gs {

namespace {

std::string base(const std::string& a) { return a.substr(0, a.find(':')); }

// HSA's BDFID and KFD's location_id share one encoding: bus << 8 | device << 3 | function.
int bdf_of(const hip_arch_inputs& in) {
  if (in.pci_bus < 0 || in.pci_device < 0) return -1;
  return (in.pci_bus << 8) | (in.pci_device << 3);
}

}  // namespace

hip_arch_choice choose_hip_arch(const hip_arch_inputs& in) {
  hip_arch_choice out;
  const int bdf = bdf_of(in);

  std::string hsa_arch;
  if (in.hsa_ok) {
    for (const vendor::hsa_gpu& g : in.hsa)
      if (bdf >= 0 && g.bdfid != 0 && (g.bdfid & ~7u) == static_cast<uint32_t>(bdf)) hsa_arch = g.name;
    // No PCI match (a library that does not answer BDFID): HIP numbers devices in HSA's order.
    if (hsa_arch.empty() && in.ordinal >= 0 && static_cast<size_t>(in.ordinal) < in.hsa.size())
      hsa_arch = in.hsa[static_cast<size_t>(in.ordinal)].name;
  }
  std::string kfd_arch;
  for (const kfd_gpu& k : in.kfd)
    if (bdf >= 0 && (k.location_id & ~7u) == static_cast<uint32_t>(bdf) &&
        (in.pci_domain < 0 || k.domain == static_cast<uint32_t>(in.pci_domain)))
      kfd_arch = k.gfx;
  if (kfd_arch.empty() && bdf < 0 && in.ordinal >= 0 && static_cast<size_t>(in.ordinal) < in.kfd.size())
    kfd_arch = in.kfd[static_cast<size_t>(in.ordinal)].gfx;

  if (!hsa_arch.starts_with("gfx")) hsa_arch.clear();
  if (!hsa_arch.empty()) {
    out.arch = base(hsa_arch);
    out.source = "hsa";
  } else if (!kfd_arch.empty()) {
    out.arch = kfd_arch;
    out.source = "kfd";
  } else if (!in.props_arch.empty()) {
    out.arch = base(in.props_arch);
    out.source = in.props_symbol.empty() ? "hipGetDeviceProperties" : in.props_symbol;
  }
  if (!in.hsa_ok && !in.hsa_error.empty()) out.notes.push_back("HSA unavailable: " + in.hsa_error);
  // KFD ignores HSA_OVERRIDE_GFX_VERSION and the runtime honours it: a difference means an
  // override is active (or the runtime disagrees with the kernel), worth saying out loud.
  if (!kfd_arch.empty() && !out.arch.empty() && kfd_arch != out.arch)
    out.notes.push_back("KFD reports " + kfd_arch + " but the runtime (" + out.source + ") uses " + out.arch +
                        ": HSA_OVERRIDE_GFX_VERSION or a mismatched runtime");
  if (!in.props_arch.empty() && !out.arch.empty() && base(in.props_arch) != out.arch)
    out.notes.push_back("hipDeviceProp_t gcnArchName says " + in.props_arch + " (" + in.props_symbol + "), " + out.source +
                        " says " + out.arch);
  return out;
}

std::vector<kfd_gpu> live_kfd_gpus() {
  std::vector<kfd_gpu> out;
  kfd_topology topo = read_kfd_topology(sysroot::live());
  for (const kfd_node& n : topo.nodes) {
    if (!n.is_gpu()) continue;
    kfd_gpu g;
    g.domain = static_cast<uint32_t>(n.props.get_or("domain", 0));
    g.location_id = static_cast<uint32_t>(n.props.get_or("location_id", 0));
    g.gfx = gfx_name(n.props.get_or("gfx_target_version", 0));
    out.push_back(g);
  }
  return out;
}

}  // namespace gs
