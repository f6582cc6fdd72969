// AMD firmware and VBIOS through libdrm_amdgpu and rocm-smi (amd_lib_card.h).
#include "card/amd_lib_card.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "vendor/drm_amdgpu_api.h"
#include "vendor/rocm_smi_api.h"

namespace gs {

const std::vector<amdgpu_fw_block>& amdgpu_fw_blocks() {
  // The blocks a compute hang report asks about first (MES schedules every user queue on RDNA3+,
  // MEC the compute rings before it, SMC power and clocks, PSP SOS/ASD/TA security and loading),
  // then the rest the kernel names.
  static const std::vector<amdgpu_fw_block> t = {
      {"mes", 0x1a}, {"mes_kiq", 0x19}, {"mec", 0x08}, {"rlc", 0x07}, {"smc", 0x0a}, {"sos", 0x0c},
      {"asd", 0x0d}, {"ta", 0x13},      {"imu", 0x1b}, {"sdma", 0x0b}, {"me", 0x04}, {"pfp", 0x05},
      {"vcn", 0x0e}, {"dmcub", 0x14},   {"toc", 0x15}, {"cap", 0x16},  {"rlcp", 0x17}, {"rlcv", 0x18},
  };
  return t;
}

namespace {

std::string fixed_text(const uint8_t* p, size_t n) {
  size_t len = 0;
  while (len < n && p[len] >= 0x20 && p[len] < 0x7f) ++len;
  return std::string(reinterpret_cast<const char*>(p), len);
}

void add_source(card_state& c, const char* lib) {
  c.source = (c.source.empty() ? std::string("sysfs") : c.source) + "+" + lib;
}

}  // namespace

bool read_amdgpu_card(const std::string& node, card_state& c, std::string* why, std::vector<std::string>* failures) {
  vendor::drm_amdgpu_api api;
  runtime_status st = api.load();
  if (!st.ok) {
    *why = st.message;
    return false;
  }
  int fd = ::open(node.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    *why = node + ": " + std::strerror(errno);
    return false;
  }
  uint32_t major = 0, minor = 0;
  vendor::amdgpu_device_handle dev = nullptr;
  int rc = api.amdgpu_device_initialize(fd, &major, &minor, &dev);
  if (rc != 0 || !dev) {
    *why = "amdgpu_device_initialize(" + node + "): " + std::strerror(rc < 0 ? -rc : rc);
    ::close(fd);
    return false;
  }
  bool any = false;
  for (const amdgpu_fw_block& b : amdgpu_fw_blocks()) {
    uint32_t ver = 0, feature = 0;
    rc = api.amdgpu_query_firmware_version(dev, b.id, 0, 0, &ver, &feature);
    // EINVAL: a block this kernel does not know; ENOENT/0: a block this card does not have.
    if (rc == -EINVAL || rc == -ENOENT || (rc == 0 && ver == 0)) continue;
    if (rc != 0) {
      if (failures) failures->push_back(std::string("amdgpu_query_firmware_version(") + b.name + "): " + std::strerror(-rc));
      continue;
    }
    c.firmware.push_back({b.name, ver, feature});
    any = true;
  }
  if (!c.vram_used_bytes) {  // sysfs hid mem_info_vram_used (a trimmed container tree): ask the kernel
    uint64_t used = 0;
    if (api.amdgpu_query_info(dev, vendor::AMDGPU_INFO_VRAM_USAGE, sizeof used, &used) == 0) {
      c.vram_used_bytes = double(used);
      any = true;
    }
  }
  if (api.drmCommandWrite) {
    vendor::drm_amdgpu_info_vbios vb{};
    vendor::drm_amdgpu_info_request req{};
    req.return_pointer = reinterpret_cast<uintptr_t>(&vb);
    req.return_size = sizeof vb;
    req.query = vendor::AMDGPU_INFO_VBIOS;
    req.u[0] = vendor::AMDGPU_INFO_VBIOS_INFO;
    rc = api.drmCommandWrite(fd, vendor::DRM_AMDGPU_INFO, &req, sizeof req);
    if (rc == 0) {
      std::string ver = fixed_text(vb.vbios_pn, sizeof vb.vbios_pn);
      if (!ver.empty()) {
        c.vbios = ver;
        any = true;
      }
    } else if (rc != -EINVAL && failures) {  // EINVAL: a kernel before 5.19
      failures->push_back(std::string("DRM_AMDGPU_INFO(VBIOS_INFO): ") + std::strerror(-rc));
    }
  }
  api.amdgpu_device_deinitialize(dev);
  ::close(fd);
  if (any) add_source(c, "libdrm");
  return true;
}

bool read_rsmi_card(const std::string& pci_address, card_state& c, std::string* why, std::vector<std::string>* failures) {
  vendor::rocm_smi_api api;
  runtime_status st = api.load();
  if (!st.ok) {
    *why = st.message;
    return false;
  }
  ::setenv("RSMI_MUTEX_THREAD_ONLY", "1", 1);  // no process-shared mutex a crashed holder left locked
  int rc = api.rsmi_init(0);
  if (rc != vendor::RSMI_STATUS_SUCCESS) {
    *why = "rsmi_init: " + api.error_text(rc);
    return false;
  }
  uint32_t n = 0;
  rc = api.rsmi_num_monitor_devices(&n);
  int index = -1;
  for (uint32_t i = 0; rc == vendor::RSMI_STATUS_SUCCESS && i < n; ++i) {
    uint64_t bdf = 0;
    if (api.rsmi_dev_pci_id_get(i, &bdf) == vendor::RSMI_STATUS_SUCCESS && vendor::rsmi_bdfid_address(bdf) == pci_address)
      index = int(i);
  }
  if (index < 0) {
    *why = rc != vendor::RSMI_STATUS_SUCCESS ? "rsmi_num_monitor_devices: " + api.error_text(rc)
                                             : "rocm-smi lists no device at " + pci_address + " (" + std::to_string(n) + " devices)";
    api.rsmi_shut_down();
    return false;
  }
  bool any = false;
  if (api.rsmi_dev_vbios_version_get) {
    char buf[256] = {};
    rc = api.rsmi_dev_vbios_version_get(uint32_t(index), buf, sizeof buf);
    if (rc == vendor::RSMI_STATUS_SUCCESS && buf[0]) {
      buf[sizeof buf - 1] = '\0';
      c.vbios = buf;
      any = true;
    } else if (rc != vendor::RSMI_STATUS_SUCCESS && rc != vendor::RSMI_STATUS_NOT_SUPPORTED && failures) {
      failures->push_back("rsmi_dev_vbios_version_get: " + api.error_text(rc));
    }
  }
  static const std::pair<const char*, int> kStable[] = {{"asd", vendor::RSMI_FW_BLOCK_ASD},
                                                        {"ce", vendor::RSMI_FW_BLOCK_CE},
                                                        {"me", vendor::RSMI_FW_BLOCK_ME},
                                                        {"mec", vendor::RSMI_FW_BLOCK_MEC},
                                                        {"mec2", vendor::RSMI_FW_BLOCK_MEC2}};
  for (auto [name, block] : kStable) {
    if (!api.rsmi_dev_firmware_version_get) break;
    uint64_t v = 0;
    rc = api.rsmi_dev_firmware_version_get(uint32_t(index), block, &v);
    if (rc == vendor::RSMI_STATUS_SUCCESS && v) {
      c.firmware.push_back({name, uint32_t(v), 0});
      any = true;
    } else if (rc != vendor::RSMI_STATUS_SUCCESS && rc != vendor::RSMI_STATUS_NOT_SUPPORTED && failures) {
      failures->push_back(std::string("rsmi_dev_firmware_version_get(") + name + "): " + api.error_text(rc));
    }
  }
  api.rsmi_shut_down();
  if (any) add_source(c, "rocm-smi");
  return true;
}

void detect_amd_lib_cards(machine_facts& facts, const std::string& dri_dir) {
  for (gpu_info& g : facts.gpus) {
    if (g.vendor != "amd" || g.render_minor < 0) continue;
    std::string node = dri_dir + "/renderD" + std::to_string(g.render_minor), why, rsmi_why;
    std::vector<std::string> failures;
    const char* source = "libdrm_amdgpu";
    if (!read_amdgpu_card(node, g.card, &why, &failures)) {
      // libdrm_amdgpu missing or the node closed to us: rocm-smi reads sysfs and debugfs itself.
      if (!read_rsmi_card(g.pci_address, g.card, &rsmi_why, &failures)) {
        facts.issues.push_back({"libdrm_amdgpu", g.pci_address + ": the loaded firmware is unknown: " + why +
                                                     "; rocm-smi: " + rsmi_why});
        continue;
      }
      source = "rocm-smi";
    }
    if (!failures.empty()) {
      std::string msg = g.pci_address + ":";
      for (const std::string& f : failures) msg += " " + f + ";";
      msg.pop_back();
      facts.issues.push_back({source, msg});
    }
  }
}

}  // namespace gs
