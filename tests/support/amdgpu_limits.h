// What one AMD workgroup may use on the four archs the clang-19 build test compiles for, and the
// check of a kernel's resources (from its code object's AMDGPU metadata note) against them.
// Kept apart from the compiling so the check itself is tested on hand-made records: a kernel
// over the LDS, VGPR or register-file limit, or one that spills, must fail it.
#pragma once
#include <string>
#include <vector>

namespace gs::test {

/// One kernel's resources as its metadata note states them (llvm-readelf --notes), plus the
/// dynamic LDS the probe asks for at launch, which the note cannot know.
struct amdgpu_kernel_resources {
  std::string name;
  unsigned lds_bytes = 0;          ///< .group_segment_fixed_size: static __shared__
  unsigned dynamic_lds_bytes = 0;  ///< extern __shared__ at the probe's largest launch
  unsigned scratch_bytes = 0;      ///< .private_segment_fixed_size: spills or a stack object
  int vgpr_spills = 0;             ///< VGPRs spilled to scratch (clang's kernel-resource-usage remark)
  int sgpr_spills = 0;             ///< SGPRs spilled (to VGPR lanes or scratch)
  int vgprs = 0;                   ///< .vgpr_count (architected VGPRs)
  int agprs = 0;                   ///< .agpr_count (gfx90a/gfx94x accumulation registers)
  int sgprs = 0;                   ///< .sgpr_count
  int max_block = 0;               ///< .max_flat_workgroup_size: __launch_bounds__, else clang's 1024
  int wave = 0;                    ///< .wavefront_size
};

/// The limits of one arch (one row of the table in amdgpu_limits.cpp, with its sources).
struct amdgpu_arch_limits {
  const char* arch;
  int wave;                    ///< the wave size gpustack compiles it for
  unsigned lds_per_workgroup;  ///< bytes one workgroup may allocate
  int vgprs_per_wave;          ///< addressable VGPRs of one wave (ArchVGPR + AGPR where unified)
  int vgpr_file_per_simd;      ///< VGPRs per lane in one SIMD's register file
  int vgpr_granule;            ///< allocation granule of a wave's VGPRs
  int simds_per_workgroup;     ///< SIMDs one workgroup's waves spread over (CU; WGP on gfx10+)
  bool unified_agprs;          ///< AGPRs come out of the same file (gfx90a, gfx94x)
};

/// gfx90a, gfx942, gfx1100, gfx1201: the archs the test builds.
const std::vector<amdgpu_arch_limits>& amdgpu_limits_table();
/// The row for `arch`; nullptr when the table has none.
const amdgpu_arch_limits* amdgpu_limits_for(const std::string& arch);

/// VGPRs a wave of `k` is allocated: ArchVGPRs (rounded to 4 where AGPRs follow them, as the
/// kernel descriptor's accum_offset is) plus AGPRs, rounded up to the granule.
int amdgpu_allocated_vgprs(const amdgpu_kernel_resources& k, const amdgpu_arch_limits& lim);

/// Why `k` does not fit `lim`, one line each; empty when it fits. LDS (static + dynamic) over the
/// workgroup limit, VGPRs over the per-wave limit, a max-size block whose waves' VGPRs overflow
/// the SIMDs' register files, a wave size other than the arch's; and scratch when `scratch_fails`
/// (matrix kernels: their operands must stay in registers).
std::vector<std::string> amdgpu_fit_problems(const amdgpu_kernel_resources& k, const amdgpu_arch_limits& lim,
                                             bool scratch_fails);

}  // namespace gs::test
