// The HIP device declarations gpustack pre-includes when it drives comgr with neither hiprtc nor
// its builtins library on the machine. It mirrors what HIP's own headers define for the subset
// kernels/*.cu use, on clang's AMDGPU builtins; each mapping says what HIP does.
#include "runtime/hip_compiler.h"

namespace gs {

const std::string& hip_rtc_shim() {
  static const std::string text = R"GS(// gpustack hip_rtc_shim.h: minimal HIP device runtime for comgr.
#pragma once
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
// HIP: amdgpu_flat_work_group_size(1, max); the min-blocks hint has no AMDGPU equivalent here.
#define __launch_bounds__(...) __attribute__((amdgpu_flat_work_group_size(1, __GS_LB_FIRST(__VA_ARGS__, 0))))
#define __GS_LB_FIRST(a, ...) a
#define warpSize __AMDGCN_WAVEFRONT_SIZE

typedef __SIZE_TYPE__ size_t;
struct __gs_uint3 { unsigned x, y, z; };
// HIP reads the same registers through properties; a struct value is enough because the
// builtins are pure and the unused lanes of the struct fold away.
#define threadIdx (__gs_uint3{__builtin_amdgcn_workitem_id_x(), __builtin_amdgcn_workitem_id_y(), __builtin_amdgcn_workitem_id_z()})
#define blockIdx (__gs_uint3{__builtin_amdgcn_workgroup_id_x(), __builtin_amdgcn_workgroup_id_y(), __builtin_amdgcn_workgroup_id_z()})
#define blockDim (__gs_uint3{__builtin_amdgcn_workgroup_size_x(), __builtin_amdgcn_workgroup_size_y(), __builtin_amdgcn_workgroup_size_z()})
// The dispatch grid is in work-items and hipModuleLaunchKernel sets it to gridDim * blockDim.
#define gridDim (__gs_uint3{__builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x(), \
                            __builtin_amdgcn_grid_size_y() / __builtin_amdgcn_workgroup_size_y(), \
                            __builtin_amdgcn_grid_size_z() / __builtin_amdgcn_workgroup_size_z()})

// HIP's __syncthreads: workgroup release fence, s_barrier, workgroup acquire fence.
static __device__ __forceinline__ void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
static __device__ __forceinline__ void __threadfence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
static __device__ __forceinline__ void __threadfence_block() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }

static __device__ __forceinline__ unsigned __float_as_uint(float f) { return __builtin_bit_cast(unsigned, f); }
static __device__ __forceinline__ float __uint_as_float(unsigned u) { return __builtin_bit_cast(float, u); }
static __device__ __forceinline__ int __float_as_int(float f) { return __builtin_bit_cast(int, f); }
static __device__ __forceinline__ float __int_as_float(int i) { return __builtin_bit_cast(float, i); }

static __device__ __forceinline__ int __lane_id() {
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}
// HIP's __shfl_xor: lanes whose partner falls outside their `width` segment read themselves;
// ds_bpermute addresses lanes in bytes, hence the << 2. No mask: every active lane takes part.
static __device__ __forceinline__ int __shfl_xor(int var, int lane_mask, int width = warpSize) {
  int self = __lane_id();
  int index = self ^ lane_mask;
  index = index >= ((self + width) & ~(width - 1)) ? self : index;
  return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
static __device__ __forceinline__ unsigned __shfl_xor(unsigned var, int lane_mask, int width = warpSize) {
  return (unsigned)__shfl_xor((int)var, lane_mask, width);
}
static __device__ __forceinline__ float __shfl_xor(float var, int lane_mask, int width = warpSize) {
  return __int_as_float(__shfl_xor(__float_as_int(var), lane_mask, width));
}
static __device__ __forceinline__ int __shfl_down(int var, unsigned delta, int width = warpSize) {
  int self = __lane_id();
  int index = self + (int)delta;
  index = (int)((unsigned)(self & (width - 1)) + delta) >= width ? self : index;
  return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
static __device__ __forceinline__ float __shfl_down(float var, unsigned delta, int width = warpSize) {
  return __int_as_float(__shfl_down(__float_as_int(var), delta, width));
}

static __device__ __forceinline__ float atomicAdd(float* p, float v) {
  return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
static __device__ __forceinline__ int atomicAdd(int* p, int v) {
  return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
static __device__ __forceinline__ unsigned atomicAdd(unsigned* p, unsigned v) {
  return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// Math: the clang builtins lower to AMDGPU instructions; the rest come from ocml, which the
// device-library step links in.
extern "C" __device__ float __ocml_exp_f32(float);
extern "C" __device__ float __ocml_exp2_f32(float);
extern "C" __device__ float __ocml_log_f32(float);
extern "C" __device__ float __ocml_tanh_f32(float);
extern "C" __device__ float __ocml_rsqrt_f32(float);
static __device__ __forceinline__ float sqrtf(float x) { return __builtin_sqrtf(x); }
static __device__ __forceinline__ float fabsf(float x) { return __builtin_fabsf(x); }
static __device__ __forceinline__ float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
static __device__ __forceinline__ float fminf(float a, float b) { return __builtin_fminf(a, b); }
static __device__ __forceinline__ float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
static __device__ __forceinline__ float expf(float x) { return __ocml_exp_f32(x); }
static __device__ __forceinline__ float exp2f(float x) { return __ocml_exp2_f32(x); }
static __device__ __forceinline__ float logf(float x) { return __ocml_log_f32(x); }
static __device__ __forceinline__ float tanhf(float x) { return __ocml_tanh_f32(x); }
static __device__ __forceinline__ float rsqrtf(float x) { return __ocml_rsqrt_f32(x); }
static __device__ __forceinline__ int min(int a, int b) { return a < b ? a : b; }
static __device__ __forceinline__ int max(int a, int b) { return a > b ? a : b; }
static __device__ __forceinline__ unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static __device__ __forceinline__ unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
)GS";
  return text;
}

}  // namespace gs
