// rocm-smi-lib (librocm_smi64) as a dlopen table, for the VBIOS and the firmware blocks whose
// numbering every release shares. ABI traps (research/detection.md 4.1): the SONAME went .so.1
// (Debian's 5.2) / .so.5 -> .so.7 at ROCm 6.0; rsmi_fw_block_t later gained MES and MES_KIQ
// after MEC2, which moved PFP and every block after it by two, so only ASD, CE, DMCU, MC, ME,
// MEC and MEC2 (0..6) mean the same in every library; device indices are rocm-smi's own and
// are matched by PCI address (rsmi_dev_pci_id_get); its process-shared mutex can hang a caller
// after a crashed holder, so callers run it in a child (card/card_record.cpp) with
// RSMI_MUTEX_THREAD_ONLY=1.
#pragma once
#include <cstdint>
#include <string>

#include "vendor/dl_library.h"

namespace gs::vendor {

using rsmi_status_t = int;
constexpr rsmi_status_t RSMI_STATUS_SUCCESS = 0;
constexpr rsmi_status_t RSMI_STATUS_NOT_SUPPORTED = 2;
/// The stable part of rsmi_fw_block_t.
constexpr int RSMI_FW_BLOCK_ASD = 0, RSMI_FW_BLOCK_CE = 1, RSMI_FW_BLOCK_ME = 4, RSMI_FW_BLOCK_MEC = 5,
              RSMI_FW_BLOCK_MEC2 = 6;

struct rocm_smi_api {
  dl_library lib;
  rsmi_status_t (*rsmi_init)(uint64_t flags) = nullptr;
  rsmi_status_t (*rsmi_shut_down)() = nullptr;
  rsmi_status_t (*rsmi_status_string)(rsmi_status_t, const char**) = nullptr;
  rsmi_status_t (*rsmi_num_monitor_devices)(uint32_t*) = nullptr;
  rsmi_status_t (*rsmi_dev_pci_id_get)(uint32_t, uint64_t*) = nullptr;
  rsmi_status_t (*rsmi_dev_vbios_version_get)(uint32_t, char*, uint32_t) = nullptr;
  rsmi_status_t (*rsmi_dev_firmware_version_get)(uint32_t, int, uint64_t*) = nullptr;

  /// GPUSTACK_ROCM_SMI_LIBRARY, else the sonames through the loader, then /opt/rocm/lib.
  runtime_status load();
  /// rocm-smi's text for a status ("RSMI_STATUS_NOT_SUPPORTED: ..."), "rsmi status N" without.
  std::string error_text(rsmi_status_t rc) const;
};

/// "0000:03:00.0" from rocm-smi's BDFID (domain << 32 | bus << 8 | device << 3 | function).
std::string rsmi_bdfid_address(uint64_t bdfid);

}  // namespace gs::vendor
