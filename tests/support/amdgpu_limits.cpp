// The per-arch limits and the fit check; see amdgpu_limits.h.
#include "support/amdgpu_limits.h"

#include <fmt/format.h>

namespace gs::test {

namespace {

int round_up(int v, int to) { return (v + to - 1) / to * to; }

}  // namespace

// Sources:
// - VGPRs (granule, register file per SIMD, addressable per wave): comgr's ISA table,
//   amd/comgr/src/comgr-isa-metadata.def (ROCm/llvm-project, as copied in ROCm/rocMLIR), columns
//   VGPR Alloc / Max / Addr: gfx90a and gfx942 8 / 512 / 512 (ArchVGPRs and AGPRs in one file),
//   gfx1100 and gfx1201 24 / 1536 / 256 (wave32). The same figures are LLVM's
//   AMDGPUBaseInfo getVGPRAllocGranule / getTotalNumVGPRs / getAddressableNumVGPRs.
// - LDS: 64 KiB per workgroup. gfx90a/gfx942 have 64 KiB per CU ("LDS (KiB)" in
//   https://rocm.docs.amd.com/en/latest/reference/gpu-specs.html); RDNA3/RDNA4 have 128 KiB per
//   WGP, of which one workgroup addresses 64 KiB (LLVM's getAddressableLocalMemorySize, the limit
//   the backend diagnoses static LDS against: https://reviews.llvm.org/D139468), which is also what
//   HIP's sharedMemPerBlock reports (src/runtime/runtime_hip.cpp sets max_shared_bytes to it).
// - SIMDs a workgroup's waves share: a CDNA CU has 4 SIMDs; on gfx10+ clang compiles for WGP
//   mode unless -mcumode (AMDGPUUsage, target feature "cumode"), where a workgroup spans the WGP's
//   4 SIMD32s. Measured check of that reading: clang-19 caps gdn_v2_state (1024-thread bound) at
//   192 VGPRs on gfx1201, i.e. 1536 / (32 waves / 4 SIMDs).
// - AGPR layout: accum_offset is a multiple of 4 (AMDGPUUsage, kernel descriptor for GFX90A,
//   ACCUM_OFFSET), so a wave holds round_up(vgprs, 4) + agprs.
const std::vector<amdgpu_arch_limits>& amdgpu_limits_table() {
  static const std::vector<amdgpu_arch_limits> table = {
      // arch      wave  LDS/workgroup  VGPR/wave  file/SIMD  granule  SIMDs  unified AGPRs
      {"gfx90a", 64, 64 * 1024, 512, 512, 8, 4, true},
      {"gfx942", 64, 64 * 1024, 512, 512, 8, 4, true},
      {"gfx1100", 32, 64 * 1024, 256, 1536, 24, 4, false},
      {"gfx1201", 32, 64 * 1024, 256, 1536, 24, 4, false},
  };
  return table;
}

const amdgpu_arch_limits* amdgpu_limits_for(const std::string& arch) {
  for (const amdgpu_arch_limits& l : amdgpu_limits_table())
    if (arch == l.arch) return &l;
  return nullptr;
}

int amdgpu_allocated_vgprs(const amdgpu_kernel_resources& k, const amdgpu_arch_limits& lim) {
  const int total = lim.unified_agprs && k.agprs > 0 ? round_up(k.vgprs, 4) + k.agprs : k.vgprs;
  return round_up(total, lim.vgpr_granule);
}

std::vector<std::string> amdgpu_fit_problems(const amdgpu_kernel_resources& k, const amdgpu_arch_limits& lim,
                                             bool scratch_fails) {
  std::vector<std::string> out;
  const std::string who = k.name + " on " + lim.arch;
  if (k.wave != lim.wave)
    out.push_back(fmt::format("{}: built for wave{}, the arch runs wave{}", who, k.wave, lim.wave));
  const unsigned lds = k.lds_bytes + k.dynamic_lds_bytes;
  if (lds > lim.lds_per_workgroup)
    out.push_back(fmt::format("{}: LDS {} B ({} static + {} dynamic) over the {} B a workgroup may use", who, lds,
                              k.lds_bytes, k.dynamic_lds_bytes, lim.lds_per_workgroup));
  const int held = lim.unified_agprs && k.agprs > 0 ? round_up(k.vgprs, 4) + k.agprs : k.vgprs;
  if (held > lim.vgprs_per_wave || (!lim.unified_agprs && k.agprs > 0))
    out.push_back(fmt::format("{}: {} VGPRs + {} AGPRs over the {} a wave may address", who, k.vgprs, k.agprs,
                              lim.vgprs_per_wave));
  if (k.max_block > 0 && k.wave > 0) {
    // Napkin math: a 1024-thread block on wave32 is 32 waves, 8 per SIMD over a WGP's 4 SIMDs;
    // 8 x 192 = 1536 fills the file, so at most 192 VGPRs each.
    const int waves = (k.max_block + k.wave - 1) / k.wave;
    const int per_simd = (waves + lim.simds_per_workgroup - 1) / lim.simds_per_workgroup;
    const int alloc = amdgpu_allocated_vgprs(k, lim);
    if (alloc * per_simd > lim.vgpr_file_per_simd)
      out.push_back(fmt::format("{}: a {}-thread block is {} waves per SIMD x {} VGPRs = {}, over the {} of a SIMD",
                                who, k.max_block, per_simd, alloc, alloc * per_simd, lim.vgpr_file_per_simd));
  }
  if (scratch_fails && k.scratch_bytes > 0)
    out.push_back(fmt::format("{}: {} B of scratch per lane in a matrix kernel ({})", who, k.scratch_bytes,
                              k.vgpr_spills > 0 ? fmt::format("{} VGPRs spilled", k.vgpr_spills)
                                                : "no spill: a stack object, e.g. a local whose address is taken"));
  return out;
}

}  // namespace gs::test
