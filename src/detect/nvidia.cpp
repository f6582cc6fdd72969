// detect_nvidia: the kernel driver's version (and whether it is the open module) from
// /proc/driver/nvidia/version, each GPU from /proc/driver/nvidia/gpus/<bus>/information, its
// PCI device id from sysfs, and compute capability / sm_XX / SMs / memory from
// matrix/hardware/nvidia_gpus.toml (procfs has no CC; the driver-API probe confirms it later).
// NVIDIA display functions on the PCI bus that the driver does not list are reported too.
#include <cerrno>
#include <set>

#include "detect/detect.h"
#include "detect/gpu_tables.h"
#include "detect/nvidia_proc.h"
#include "detect/pci_bus.h"
#include "detect/read_issue.h"
#include "core/text_scan.h"

namespace gs {
namespace {

constexpr uint32_t kNvidiaVendor = 0x10de;

/// Driver version: the procfs banner, else /sys/module/nvidia/version. True when the driver is loaded.
bool read_driver(const sysroot& sys, machine_facts& facts) {
  const char* path = "/proc/driver/nvidia/version";
  read_result r = sys.read(path);
  if (r) {
    nvidia_banner b = parse_nvidia_version(*r.text);
    if (b.ok) {
      facts.stack.nvidia_driver = b.version;
      facts.stack.nvidia_open_module = b.open_module;
      return true;
    }
    add_issue(facts, path, "no 'NVRM version: ... <version>' line: the banner is not recognised");
  } else if (r.err != ENOENT) {
    add_issue(facts, path, explain_errno(r.err));
  }
  // Every nvidia module carries MODULE_VERSION; it says which driver even when procfs is hidden.
  if (auto v = sys.read_text("/sys/module/nvidia/version")) {
    std::string ver = find_driver_version(scan::trim(*v));
    if (!ver.empty()) {
      facts.stack.nvidia_driver = ver;
      return true;
    }
    add_issue(facts, "/sys/module/nvidia/version", "not a driver version");
  }
  return r.err == 0;  // procfs exists but was garbage: the driver is there, its version unknown
}

void fill_from_table(const gpu_tables& tables, gpu_info& g, uint32_t device) {
  const gpu_table_entry* e = find_gpu(tables.nvidia, device, std::nullopt);
  if (!e) return;
  if (g.name.empty()) g.name = e->name;
  g.arch = e->arch;
  g.compute_capability = e->compute_capability;
  g.compute_units = e->compute_units;
  g.vram_bytes = e->vram_bytes;
}

}  // namespace

void detect_nvidia(const sysroot& sys, machine_facts& facts) {
  const gpu_tables& tables = builtin_gpu_tables();
  bool driver = read_driver(sys, facts);
  std::set<std::string> seen;
  for (const nvidia_proc_gpu& p : read_nvidia_proc_gpus(sys)) {
    std::string info_path = "/proc/driver/nvidia/gpus/" + p.bus + "/information";
    if (p.err) add_issue(facts, info_path, explain_errno(p.err));
    gpu_info g;
    g.vendor = "nvidia";
    g.source = "proc-nvidia";
    g.wave_size = 32;  // every NVIDIA GPU since G80
    auto get = [&](const char* k) {
      auto it = p.info.find(k);
      return it == p.info.end() ? std::string() : it->second;
    };
    g.name = get("Model");
    g.serial = get("GPU UUID");
    g.pci_address = get("Bus Location");
    if (g.pci_address.empty()) g.pci_address = p.bus;
    if (!p.err && g.name.empty()) add_issue(facts, info_path, "no 'Model:' line");
    if (get("GPU Excluded") == "Yes")
      add_issue(facts, info_path, "the driver excludes this GPU (GPU Excluded: Yes): CUDA will not see it");
    std::string dir = "/sys/bus/pci/devices/" + g.pci_address;
    if (sys.exists(dir)) {
      pci_function f = read_pci_function(sys, dir, g.pci_address, facts);
      if (f.device) g.pci_id = pci_id_text(f.vendor ? f.vendor : kNvidiaVendor, f.device);
      if (f.device || f.revision) g.pci_revision = scan::hex(f.revision, 2);
      fill_from_table(tables, g, f.device);
      if (f.device && g.arch.empty())
        add_issue(facts, dir, "device " + g.pci_id + " is not in matrix/hardware/nvidia_gpus.toml: "
                              "compute capability unknown until the CUDA driver is asked");
    } else {
      add_issue(facts, dir, "no PCI device for this GPU: PCI id and compute capability unknown");
    }
    seen.insert(g.pci_address);
    facts.gpus.push_back(std::move(g));
  }

  for (const pci_function& f : list_pci_gpus(sys, kNvidiaVendor, facts)) {
    if (seen.count(f.address)) continue;
    gpu_info g;
    g.vendor = "nvidia";
    g.source = "pci";
    g.wave_size = 32;
    g.pci_address = f.address;
    g.pci_id = pci_id_text(f.vendor, f.device);
    g.pci_revision = scan::hex(f.revision, 2);
    fill_from_table(tables, g, f.device);
    if (g.name.empty()) g.name = "NVIDIA GPU";
    std::string why;
    if (!f.driver.empty() && f.driver != "nvidia")
      why = "bound to " + f.driver + ", not nvidia: CUDA cannot use it";
    else if (!driver)
      why = "the nvidia kernel driver is not loaded: the GPU is on the PCI bus but unusable";
    else
      why = "the nvidia driver is loaded but does not list this GPU (check dmesg for NVRM errors)";
    add_issue(facts, "/sys/bus/pci/devices/" + f.address, "NVIDIA GPU " + g.pci_id + " (" + g.name + ") " + why);
    facts.gpus.push_back(std::move(g));
  }
}

}  // namespace gs
