// The AMD card's loaded firmware and VBIOS through its libraries (issue 18): libdrm_amdgpu on the
// GPU's render node (every IP block the kernel names: MES, MES_KIQ, SMC, PSP SOS, ...), rocm-smi
// where libdrm_amdgpu is missing (the blocks its releases agree on, and the VBIOS). The figures
// that move (clocks, power) come from sysfs (detect/amd_card.h); this is what sysfs does not show
// without debugfs. Live only; a snapshot's card record carries it (card_record.h).
#pragma once
#include <string>
#include <vector>

#include "core/facts.h"

namespace gs {

/// One firmware block the kernel can report: our name and its AMDGPU_INFO_FW_* id
/// (include/uapi/drm/amdgpu_drm.h of current kernels; ids an older kernel lacks answer EINVAL
/// and are skipped).
struct amdgpu_fw_block {
  const char* name;
  unsigned id;
};
const std::vector<amdgpu_fw_block>& amdgpu_fw_blocks();

/// Firmware and VBIOS of the amdgpu device behind `node` ("/dev/dri/renderD128") into `c`
/// (appended to c.firmware, c.vbios when the VBIOS query answers). False with *why when the
/// library or the device cannot be opened; per-query failures other than "not supported by
/// this kernel" go to *failures.
bool read_amdgpu_card(const std::string& node, card_state& c, std::string* why, std::vector<std::string>* failures);

/// The same from rocm-smi for the GPU at `pci_address`: VBIOS and the stable firmware blocks.
bool read_rsmi_card(const std::string& pci_address, card_state& c, std::string* why, std::vector<std::string>* failures);

/// Every AMD GPU of `facts` with a render node: libdrm_amdgpu, else rocm-smi; c.source gains
/// "+libdrm" or "+rocm-smi". What fails becomes a detection issue (source "libdrm_amdgpu",
/// "rocm-smi"). Nothing is loaded without an AMD GPU. `dri_dir` is where the render nodes are
/// (tests point it at a scratch directory).
void detect_amd_lib_cards(machine_facts& facts, const std::string& dri_dir = "/dev/dri");

}  // namespace gs
