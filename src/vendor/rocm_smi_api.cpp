// rocm-smi symbol table (rocm_smi_api.h).
#include "vendor/rocm_smi_api.h"

#include <cstdio>

namespace gs::vendor {

runtime_status rocm_smi_api::load() {
  runtime_status st = lib.open(library_candidates("GPUSTACK_ROCM_SMI_LIBRARY",
                                                  {"librocm_smi64.so.7", "librocm_smi64.so.5", "librocm_smi64.so.1"},
                                                  {"/opt/rocm/lib"}));
  if (!st.ok) {
    st.message = "librocm_smi64 " + st.message;
    return st;
  }
  return lib.resolve({
      dl_req("rsmi_init", rsmi_init),
      dl_req("rsmi_shut_down", rsmi_shut_down),
      dl_req("rsmi_num_monitor_devices", rsmi_num_monitor_devices),
      dl_req("rsmi_dev_pci_id_get", rsmi_dev_pci_id_get),
      dl_opt("rsmi_status_string", rsmi_status_string),
      dl_opt("rsmi_dev_vbios_version_get", rsmi_dev_vbios_version_get),
      dl_opt("rsmi_dev_firmware_version_get", rsmi_dev_firmware_version_get),
  });
}

std::string rocm_smi_api::error_text(rsmi_status_t rc) const {
  const char* s = nullptr;
  if (rsmi_status_string && rsmi_status_string(rc, &s) == RSMI_STATUS_SUCCESS && s && *s) return s;
  return "rsmi status " + std::to_string(rc);
}

std::string rsmi_bdfid_address(uint64_t id) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", unsigned((id >> 32) & 0xffff), unsigned((id >> 8) & 0xff),
                unsigned((id >> 3) & 0x1f), unsigned(id & 0x7));
  return buf;
}

}  // namespace gs::vendor
