// gs_device.h: the one device prelude every kernels/*.cu includes (research/aesthetics.md (b)1).
// Kernels use the CUDA spelling; the few names HIP spells differently are mapped here, each with
// its semantic difference written beside it. The JIT (src/runtime/) passes this file as an
// in-memory header and defines GS_CUDA=1 or GS_HIP=1 plus GS_WARP_SIZE (32 or 64: never assumed).
// With neither defined it is plain host C++: the unit tests include it to check the bf16/fp16
// conversions bit for bit, and the CPU references use the same helpers.
#pragma once

#if defined(GS_CUDA) && defined(GS_HIP)
#error "gs_device.h: define exactly one of GS_CUDA and GS_HIP"
#endif

#if defined(GS_CUDA) || defined(GS_HIP)
#define GS_DEVICE_COMPILE 1
#ifndef GS_WARP_SIZE
#error "gs_device.h: the JIT must pass -DGS_WARP_SIZE=32|64 (the wave size read from the device)"
#endif
#define GS_HD __host__ __device__ __forceinline__
#else
#define GS_HD inline  // host mode: plain C++, no CUDA qualifiers
#endif

// No <stdint.h>: NVRTC and comgr get no include paths, so the fixed-width types are spelled out.
// unsigned short / int / long long are 16 / 32 / 64 bits on every target we compile for.
typedef unsigned short gs_u16;
typedef unsigned int gs_u32;
typedef unsigned long long gs_u64;

#define GS_KERNEL extern "C" __global__

// A block-size bound for AMD only. Without one clang plans every kernel for 1024 threads and caps
// its VGPRs to match (gdn_v2_prep spilled 53 VGPRs on gfx1100 at the 192 cap, the gfx build check
// in CI found it); on CUDA the same bound changed NVRTC's register allocation of a kernel whose
// speed was measured on the H200 (4 B of spills in gdn_v2_prep), so there it is left out.
#if defined(GS_HIP)
#define GS_AMD_LAUNCH_BOUNDS(n) __launch_bounds__(n)
#else
#define GS_AMD_LAUNCH_BOUNDS(n)
#endif

// Largest block any kernel here is launched with: 1024 threads is the limit on both vendors,
// so per-warp scratch sized 1024 / GS_WARP_SIZE fits every launch.
#define GS_MAX_BLOCK 1024

// ---- Vendor name mapping -----------------------------------------------------------------------
#if defined(GS_HIP)
// HIP's __shfl_xor has no participation mask: every active lane of the wave takes part. The
// mask is dropped, which is only equivalent when the whole wave is converged at the call; our
// kernels call it only there (full blocks, no divergent branch around the reduction).
#define __shfl_xor_sync(mask, var, lane_mask, width) __shfl_xor((var), (lane_mask), (width))
// A full-wave mask does not fit 32 bits on wave64; HIP ignores it anyway (see above).
#define GS_FULL_MASK 0xffffffffu
#elif defined(GS_CUDA)
#define GS_FULL_MASK 0xffffffffu
#endif

#if defined(GS_HIP)
// HIP before 6.2 has no __syncwarp. A wave runs in lockstep, so what a wave-level barrier must
// add is the ordering of its shared-memory writes before other lanes read them: a wavefront-scope
// release/acquire fence around the wave barrier.
__device__ __forceinline__ void gs_syncwarp() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
#elif defined(GS_CUDA)
__device__ __forceinline__ void gs_syncwarp() { __syncwarp(); }
#endif

// ---- Bit casts -------------------------------------------------------------------------------
GS_HD gs_u32 gs_f32_bits(float f) {
#if defined(GS_DEVICE_COMPILE)
  return __float_as_uint(f);
#else
  gs_u32 u;
  __builtin_memcpy(&u, &f, sizeof u);
  return u;
#endif
}

GS_HD float gs_bits_f32(gs_u32 u) {
#if defined(GS_DEVICE_COMPILE)
  return __uint_as_float(u);
#else
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
#endif
}

// ---- bf16 and fp16 on raw 16-bit patterns ----------------------------------------------------
// No cuda_bf16.h / hip_bf16.h: those need include paths the JIT does not have, and their
// conversions differ in NaN encoding between vendors. These are round-to-nearest-even, keep the
// sign of zeros, infinities and NaNs, and make every NaN quiet.

/// bf16 -> f32 is exact: bf16 is the top half of an f32.
GS_HD float gs_bf16_to_f32(gs_u16 h) { return gs_bits_f32((gs_u32)h << 16); }

/// f32 -> bf16, round to nearest, ties to even; NaN stays NaN (quiet bit set, sign kept).
GS_HD gs_u16 gs_f32_to_bf16(float f) {
  gs_u32 u = gs_f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (gs_u16)((u >> 16) | 0x0040u);
  // Adding 0x7fff plus the lowest kept bit rounds ties to even; a carry into the exponent is
  // correct (it can only turn the largest finite values into infinity, as RNE must).
  u += 0x7fffu + ((u >> 16) & 1u);
  return (gs_u16)(u >> 16);
}

/// fp16 -> f32 is exact (every fp16, subnormals included, is an f32).
GS_HD float gs_f16_to_f32(gs_u16 h) {
  gs_u32 sign = (gs_u32)(h & 0x8000u) << 16;
  gs_u32 e = (h >> 10) & 0x1fu;
  gs_u32 m = h & 0x3ffu;
  if (e == 0x1fu) return gs_bits_f32(sign | 0x7f800000u | (m << 13));  // Inf or NaN, payload kept
  if (e != 0) return gs_bits_f32(sign | ((e + 112u) << 23) | (m << 13));  // rebias 15 -> 127
  if (m == 0) return gs_bits_f32(sign);
  // Subnormal m * 2^-24: shift the leading 1 up to the implicit bit, lowering the exponent.
  e = 113u;
  while ((m & 0x400u) == 0) {
    m <<= 1;
    --e;
  }
  return gs_bits_f32(sign | (e << 23) | ((m & 0x3ffu) << 13));
}

/// f32 -> fp16, round to nearest, ties to even, with subnormals; overflow gives infinity.
GS_HD gs_u16 gs_f32_to_f16(float f) {
  gs_u32 x = gs_f32_bits(f);
  gs_u32 sign = (x >> 16) & 0x8000u;
  gs_u32 ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return (gs_u16)(sign | 0x7e00u | ((ax >> 13) & 0x1ffu));  // quiet NaN
  // 65520 (0x477ff000) is the tie between 65504, the largest fp16 (odd significand), and 65536;
  // ties go to even, i.e. to 65536, which is infinity.
  if (ax >= 0x477ff000u) return (gs_u16)(sign | 0x7c00u);
  if (ax >= 0x38800000u) {  // >= 2^-14: a normal fp16
    gs_u32 r = ax - 0x38000000u;  // rebias the exponent 127 -> 15 (112 << 23)
    r += 0xfffu + ((r >> 13) & 1u);
    return (gs_u16)(sign | (r >> 13));
  }
  gs_u32 e = ax >> 23;
  if (e < 102u) return (gs_u16)sign;  // below 2^-25: half the smallest subnormal or less, rounds to 0
  // Subnormal result m * 2^-24 with m = significand >> (126 - e); e in [102, 112] -> shift 14..24.
  gs_u32 mant = (ax & 0x7fffffu) | 0x800000u;
  gs_u32 shift = 126u - e;
  gs_u32 m = mant >> shift;
  gs_u32 rem = mant & ((1u << shift) - 1u);
  gs_u32 half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (m & 1u))) ++m;  // m may reach 1024: that is 2^-14, encoded right
  return (gs_u16)(sign | m);
}

// ---- Small vector type ---------------------------------------------------------------------------
/// 16 bytes moved as one load/store (copy_bandwidth v2); float4 would need the vendor headers.
struct alignas(16) gs_f32x4 {
  float x, y, z, w;
};
