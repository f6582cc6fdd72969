// quant4.cu: bitsandbytes' 4-bit quantization (NF4 / FP4) on the GPU, bit-exact with the CPU
// references kernels/ref/quant4_ref.cpp, double_quant_ref.cpp and gemv4_ref.cpp (probes
// quant.nf4 / quant.fp4). `kind` is 0 for NF4, 1 for FP4. Kernels:
//   quant4_quantize_<in>_v1   in = f32 | bf16 | f16: one thread per quantization block (naive).
//   quant4_dequant_<out>_v1   out = f32 | bf16 | f16: one thread per packed byte (naive).
//   quant4_dequant_<out>_v2   one thread per 16 packed bytes: one 16-byte load, 32 outputs written
//                             with 16-byte stores, the block's absmax held in a register.
//   quant4_dequant_<out>_v3   as v2, but each store instruction of a warp covers one contiguous
//                             run (lane l writes unit j*W + l): fully coalesced 16-byte stores.
//   quant4_gemv_<t>_v1        out[N] = W[N x K] * A[K] with W packed; one warp per row (see
//                             gemv4_ref.h for the roundings and the summation order).
//   dq8_quantize_absmax_v1    double quantization: (absmax - offset) in 8-bit blocks.
//   dq8_absmax_dequant_v1     code2[q] * absmax2 + offset, the product rounded on its own.
// Division is IEEE (NVRTC's default -prec-div=true; HIP's default), as in the references;
// bitsandbytes' own CUDA build uses a fast-math reciprocal (docs/quant.md says what that changes).
#include "gs_device.h"

// NVRTC compiles for sm_80+ in practice; the packed bf16/fp16 instructions need sm_80 (cvt
// bf16x2, fma bf16x2) and sm_53 (fma f16x2). Everything else is portable C++ on gs_device.h.
#if defined(GS_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define Q4_PTX_SM80 1
#endif

// Codes per GEMV chunk: one 16-byte load of packed codes (and the dequantize v2 thread's share).
#define Q4_CHUNK 32

struct alignas(16) q4_u32x4 {
  gs_u32 x, y, z, w;
};

// NF4 values (csrc/kernels.cu nf4_dequantization_lut; each literal is exactly a float32) and
// the FP4 magnitudes (fp4_dequantization_lut, indexed by code & 7).
__constant__ float q4_nf4_table[16] = {
    -1.0f, -0.6961928009986877f, -0.5250730514526367f, -0.39491748809814453f, -0.28444138169288635f,
    -0.18477343022823334f, -0.09105003625154495f, 0.0f, 0.07958029955625534f, 0.16093020141124725f,
    0.24611230194568634f, 0.33791524171829224f, 0.44070982933044434f, 0.5626170039176941f,
    0.7229568362236023f, 1.0f};
__constant__ float q4_fp4_magnitude[8] = {0.0f, 0.005208333333f, 0.66666667f, 1.0f,
                                          0.33333333f, 0.5f, 0.16666667f, 0.25f};

__device__ __forceinline__ float q4_table(int kind, int code) {
  if (kind == 0) return q4_nf4_table[code];
  // lut[c & 7] * (1 - 2 * sign): code 8 is 0.0f * -1 = -0.0f.
  return q4_fp4_magnitude[code & 7] * (float)(1 - 2 * ((code & 8) >> 3));
}

// dQuantizeNF4: strict '>' at the midpoints of adjacent NF4 values; NaN gives 0.
__device__ __forceinline__ unsigned q4_nf4_code(float x) {
  if (x > 0.03979014977812767f) {
    if (x > 0.3893125355243683f) {
      if (x > 0.6427869200706482f) return x > 0.8614784181118011f ? 15u : 14u;
      return x > 0.5016634166240692f ? 13u : 12u;
    }
    if (x > 0.2035212516784668f) return x > 0.2920137718319893f ? 11u : 10u;
    return x > 0.1202552504837513f ? 9u : 8u;
  }
  if (x > -0.33967943489551544f) {
    if (x > -0.13791173323988914f) return x > -0.045525018125772476f ? 7u : 6u;
    return x > -0.23460740596055984f ? 5u : 4u;
  }
  if (x > -0.6106329262256622f) return x > -0.4599952697753906f ? 3u : 2u;
  return x > -0.8480964004993439f ? 1u : 0u;
}

// dQuantizeFP4: sign bit for x < 0, then a tree on |x| with the kernel's literals.
__device__ __forceinline__ unsigned q4_fp4_code(float x) {
  unsigned sign = x < 0.0f ? 8u : 0u;
  x = fabsf(x);
  unsigned m;
  if (x > 0.29166667f) {
    if (x > 0.583333f) m = x > 0.8333333f ? 3u : 2u;
    else m = x > 0.4166667f ? 5u : 4u;
  } else {
    if (x > 0.0859375f) m = x > 0.20833333f ? 7u : 6u;
    else m = x > 0.00260417f ? 1u : 0u;
  }
  return sign | m;
}

__device__ __forceinline__ unsigned q4_code(int kind, float xn) { return kind == 0 ? q4_nf4_code(xn) : q4_fp4_code(xn); }

// The 16 code values in shared memory, filled by the block's first 16 threads (every block here
// has at least 32). A table read costs one shared load where the constant bank would serialise
// the 16 different addresses a warp asks for.
__device__ __forceinline__ void q4_fill_lut(float* lut, int kind) {
  if (threadIdx.x < 16) lut[threadIdx.x] = q4_table(kind, (int)threadIdx.x);
  __syncthreads();
}

// A product that is never fused into a following add (bitsandbytes rounds it, then adds).
__device__ __forceinline__ float q4_mul_rn(float a, float b) {
#if defined(GS_CUDA)
  return __fmul_rn(a, b);
#elif defined(GS_HIP)
#pragma clang fp contract(off)
  return a * b;
#else
  volatile float p = a * b;  // host emulation of this file (tests): no FMA contraction either
  return p;
#endif
}

__device__ __forceinline__ int q4_log2(int v) {
  int s = 0;
  while ((1 << s) < v) ++s;
  return s;
}

// Input widening and output narrowing, one struct per type.
struct q4_f32 {
  typedef float t;
  static __device__ __forceinline__ float get(const float* p, gs_u64 i) { return p[i]; }
  static __device__ __forceinline__ float put(float v) { return v; }
};
struct q4_bf16 {
  typedef gs_u16 t;
  static __device__ __forceinline__ float get(const gs_u16* p, gs_u64 i) { return gs_bf16_to_f32(p[i]); }
  static __device__ __forceinline__ gs_u16 put(float v) { return gs_f32_to_bf16(v); }
};
struct q4_f16 {
  typedef gs_u16 t;
  static __device__ __forceinline__ float get(const gs_u16* p, gs_u64 i) { return gs_f16_to_f32(p[i]); }
  static __device__ __forceinline__ gs_u16 put(float v) { return gs_f32_to_f16(v); }
};

// ---- quantize, v1 ------------------------------------------------------------------------------
// One thread per block of `blocksize` elements: fmaxf(|x|) from -FLT_MAX, inv = 1/absmax, codes
// of x * inv. A block starts at an even index, so it owns whole bytes; the zero padding after the
// last element goes through the same arithmetic (code 7 = 0x7 for NF4 when absmax > 0).
template <class L>
__device__ __forceinline__ void q4_quantize(const typename L::t* __restrict__ x, unsigned char* __restrict__ packed,
                                            float* __restrict__ absmax, gs_u64 n, int blocksize, int kind) {
  const gs_u64 b = (gs_u64)blockIdx.x * blockDim.x + threadIdx.x;
  const gs_u64 begin = b * (gs_u64)blocksize;
  if (begin >= n) return;
  const gs_u64 end = begin + (gs_u64)blocksize < n ? begin + (gs_u64)blocksize : n;
  float m = -3.402823466e38f;  // -FLT_MAX
  for (gs_u64 i = begin; i < end; ++i) m = fmaxf(m, fabsf(L::get(x, i)));
  absmax[b] = m;
  const float inv = 1.0f / m;
  for (gs_u64 i = begin; i < end; i += 2) {
    const float v0 = L::get(x, i), v1 = i + 1 < n ? L::get(x, i + 1) : 0.0f;
    packed[i / 2] = (unsigned char)((q4_code(kind, v0 * inv) << 4) | q4_code(kind, v1 * inv));
  }
}

GS_KERNEL void quant4_quantize_f32_v1(const float* x, unsigned char* packed, float* absmax, gs_u64 n, int blocksize, int kind) {
  q4_quantize<q4_f32>(x, packed, absmax, n, blocksize, kind);
}
GS_KERNEL void quant4_quantize_bf16_v1(const gs_u16* x, unsigned char* packed, float* absmax, gs_u64 n, int blocksize, int kind) {
  q4_quantize<q4_bf16>(x, packed, absmax, n, blocksize, kind);
}
GS_KERNEL void quant4_quantize_f16_v1(const gs_u16* x, unsigned char* packed, float* absmax, gs_u64 n, int blocksize, int kind) {
  q4_quantize<q4_f16>(x, packed, absmax, n, blocksize, kind);
}

// ---- dequantize, v1 ----------------------------------------------------------------------------
// One thread per packed byte: out[2i] from the high nibble, out[2i+1] from the low one, each
// table[code] * absmax in float with one rounding to the output type.
template <class L>
__device__ __forceinline__ void q4_dequant_naive(const unsigned char* __restrict__ packed, const float* __restrict__ absmax,
                                                 typename L::t* __restrict__ out, gs_u64 n, int blocksize, int kind) {
  const gs_u64 i = (gs_u64)blockIdx.x * blockDim.x + threadIdx.x;
  const gs_u64 e = 2 * i;
  if (e >= n) return;
  const unsigned byte = packed[i];
  out[e] = L::put(q4_table(kind, (int)(byte >> 4)) * absmax[e / (gs_u64)blocksize]);
  if (e + 1 < n) out[e + 1] = L::put(q4_table(kind, (int)(byte & 15u)) * absmax[(e + 1) / (gs_u64)blocksize]);
}

GS_KERNEL void quant4_dequant_f32_v1(const unsigned char* packed, const float* absmax, float* out, gs_u64 n, int blocksize, int kind) {
  q4_dequant_naive<q4_f32>(packed, absmax, out, n, blocksize, kind);
}
GS_KERNEL void quant4_dequant_bf16_v1(const unsigned char* packed, const float* absmax, gs_u16* out, gs_u64 n, int blocksize, int kind) {
  q4_dequant_naive<q4_bf16>(packed, absmax, out, n, blocksize, kind);
}
GS_KERNEL void quant4_dequant_f16_v1(const unsigned char* packed, const float* absmax, gs_u16* out, gs_u64 n, int blocksize, int kind) {
  q4_dequant_naive<q4_f16>(packed, absmax, out, n, blocksize, kind);
}

// ---- dequantize, fast ----------------------------------------------------------------------------
// Napkin math (8192 x 8192, bf16 out): 32 MiB of codes + 4 MiB of absmax in, 128 MiB out: 164 MiB,
// 44 us at the H200's 3.9 TB/s device copy. So every byte moves once in 16-byte transactions and
// the arithmetic (a table read, a multiply and a conversion per element) hides under the memory.

// Eight outputs (four packed bytes) as four 32-bit words of two 16-bit values; the element with the
// lower index sits in the low half (little-endian memory order).
__device__ __forceinline__ gs_u32 q4_pack_bf16(float lo, float hi) {
#if defined(Q4_PTX_SM80)
  gs_u32 r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));  // a -> upper half, b -> lower
  return r;
#else
  return (gs_u32)gs_f32_to_bf16(lo) | ((gs_u32)gs_f32_to_bf16(hi) << 16);
#endif
}
__device__ __forceinline__ gs_u32 q4_pack_f16(float lo, float hi) {
#if defined(Q4_PTX_SM80)
  gs_u32 r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
#else
  return (gs_u32)gs_f32_to_f16(lo) | ((gs_u32)gs_f32_to_f16(hi) << 16);
#endif
}

// Dequantize the 8 codes of one 32-bit word of packed bytes (byte 0 = lowest address) with one
// absmax, and store them at `dst` (8 outputs, 16- or 32-byte aligned).
struct q4_out_f32 {
  typedef float t;
  static __device__ __forceinline__ void store8(float* dst, const float* v) {
    q4_u32x4 a = {gs_f32_bits(v[0]), gs_f32_bits(v[1]), gs_f32_bits(v[2]), gs_f32_bits(v[3])};
    q4_u32x4 b = {gs_f32_bits(v[4]), gs_f32_bits(v[5]), gs_f32_bits(v[6]), gs_f32_bits(v[7])};
    reinterpret_cast<q4_u32x4*>(dst)[0] = a;
    reinterpret_cast<q4_u32x4*>(dst)[1] = b;
  }
  static __device__ __forceinline__ float put(float v) { return v; }
};
struct q4_out_bf16 {
  typedef gs_u16 t;
  static __device__ __forceinline__ void store8(gs_u16* dst, const float* v) {
    q4_u32x4 a = {q4_pack_bf16(v[0], v[1]), q4_pack_bf16(v[2], v[3]), q4_pack_bf16(v[4], v[5]), q4_pack_bf16(v[6], v[7])};
    *reinterpret_cast<q4_u32x4*>(dst) = a;
  }
  static __device__ __forceinline__ gs_u16 put(float v) { return gs_f32_to_bf16(v); }
};
struct q4_out_f16 {
  typedef gs_u16 t;
  static __device__ __forceinline__ void store8(gs_u16* dst, const float* v) {
    q4_u32x4 a = {q4_pack_f16(v[0], v[1]), q4_pack_f16(v[2], v[3]), q4_pack_f16(v[4], v[5]), q4_pack_f16(v[6], v[7])};
    *reinterpret_cast<q4_u32x4*>(dst) = a;
  }
  static __device__ __forceinline__ gs_u16 put(float v) { return gs_f32_to_f16(v); }
};

template <class O>
__device__ __forceinline__ void q4_unit8(const float* lut, gs_u32 word, float am, typename O::t* dst) {
  float v[8];
  for (int b = 0; b < 4; ++b) {
    const gs_u32 byte = (word >> (8 * b)) & 0xffu;
    v[2 * b] = lut[byte >> 4] * am;
    v[2 * b + 1] = lut[byte & 15u] * am;
  }
  O::store8(dst, v);
}

// Scalar path for the last, partial unit (and anything a vector path cannot cover).
template <class O>
__device__ __forceinline__ void q4_dequant_scalar(const float* lut, const unsigned char* __restrict__ packed,
                                                  const float* __restrict__ absmax, typename O::t* __restrict__ out,
                                                  gs_u64 begin, gs_u64 end, int shift) {
  for (gs_u64 e = begin; e < end; ++e) {
    const unsigned byte = packed[e / 2];
    const unsigned code = (e % 2 == 0) ? (byte >> 4) : (byte & 15u);
    out[e] = O::put(lut[code] * absmax[e >> shift]);
  }
}

// v2: thread t owns elements [32 t, 32 t + 32): one 16-byte load of codes, one absmax (32 divides
// every blocksize), 4 (16-bit out) or 8 (f32 out) 16-byte stores of its own 64 or 128 bytes.
template <class O>
__device__ __forceinline__ void q4_dequant_v2(const unsigned char* __restrict__ packed, const float* __restrict__ absmax,
                                              typename O::t* __restrict__ out, gs_u64 n, int blocksize, int kind) {
  __shared__ float lut[16];
  q4_fill_lut(lut, kind);
  const int shift = q4_log2(blocksize);
  const gs_u64 t = (gs_u64)blockIdx.x * blockDim.x + threadIdx.x;
  const gs_u64 e0 = t * 32;
  if (e0 >= n) return;
  if (e0 + 32 > n) {
    q4_dequant_scalar<O>(lut, packed, absmax, out, e0, n, shift);
    return;
  }
  const q4_u32x4 codes = reinterpret_cast<const q4_u32x4*>(packed)[t];
  const float am = absmax[e0 >> shift];
  q4_unit8<O>(lut, codes.x, am, out + e0);
  q4_unit8<O>(lut, codes.y, am, out + e0 + 8);
  q4_unit8<O>(lut, codes.z, am, out + e0 + 16);
  q4_unit8<O>(lut, codes.w, am, out + e0 + 24);
}

// v3: units of 8 elements (one 32-bit word of codes, one 16-byte store for 16-bit outputs). A warp
// owns 4 * W consecutive units; in step j lane l does unit j * W + l, so each load and store
// instruction of the warp covers one contiguous range. Each unit reads its absmax (cached: the
// W units of a step span at most W * 8 / 32 blocks).
template <class O>
__device__ __forceinline__ void q4_dequant_v3(const unsigned char* __restrict__ packed, const float* __restrict__ absmax,
                                              typename O::t* __restrict__ out, gs_u64 n, int blocksize, int kind) {
  __shared__ float lut[16];
  q4_fill_lut(lut, kind);
  const int shift = q4_log2(blocksize);
  const unsigned lane = threadIdx.x % GS_WARP_SIZE;
  const gs_u64 warp = ((gs_u64)blockIdx.x * blockDim.x + threadIdx.x) / GS_WARP_SIZE;
  const gs_u64 full_units = n / 8;
  const gs_u32* words = reinterpret_cast<const gs_u32*>(packed);
  const gs_u64 first = warp * 4 * GS_WARP_SIZE + lane;
  if (warp * 4 * GS_WARP_SIZE + 4 * GS_WARP_SIZE <= full_units) {
    // The common case, every unit of the warp full: all four loads in flight before any store.
    gs_u32 w[4];
    float am[4];
    for (int j = 0; j < 4; ++j) w[j] = words[first + (gs_u64)j * GS_WARP_SIZE];
    for (int j = 0; j < 4; ++j) am[j] = absmax[((first + (gs_u64)j * GS_WARP_SIZE) * 8) >> shift];
    for (int j = 0; j < 4; ++j) q4_unit8<O>(lut, w[j], am[j], out + (first + (gs_u64)j * GS_WARP_SIZE) * 8);
    return;
  }
  for (int j = 0; j < 4; ++j) {
    const gs_u64 u = first + (gs_u64)j * GS_WARP_SIZE;
    const gs_u64 e0 = u * 8;
    if (u < full_units) {
      q4_unit8<O>(lut, words[u], absmax[e0 >> shift], out + e0);
    } else if (e0 < n) {
      q4_dequant_scalar<O>(lut, packed, absmax, out, e0, n, shift);
    }
  }
}

// One entry point per (output type, version), written out so the kernel table can find them.
GS_KERNEL void quant4_dequant_f32_v2(const unsigned char* packed, const float* absmax, float* out, gs_u64 n, int blocksize, int kind) {
  q4_dequant_v2<q4_out_f32>(packed, absmax, out, n, blocksize, kind);
}
GS_KERNEL void quant4_dequant_bf16_v2(const unsigned char* packed, const float* absmax, gs_u16* out, gs_u64 n, int blocksize, int kind) {
  q4_dequant_v2<q4_out_bf16>(packed, absmax, out, n, blocksize, kind);
}
GS_KERNEL void quant4_dequant_f16_v2(const unsigned char* packed, const float* absmax, gs_u16* out, gs_u64 n, int blocksize, int kind) {
  q4_dequant_v2<q4_out_f16>(packed, absmax, out, n, blocksize, kind);
}
GS_KERNEL void quant4_dequant_f32_v3(const unsigned char* packed, const float* absmax, float* out, gs_u64 n, int blocksize, int kind) {
  q4_dequant_v3<q4_out_f32>(packed, absmax, out, n, blocksize, kind);
}
GS_KERNEL void quant4_dequant_bf16_v3(const unsigned char* packed, const float* absmax, gs_u16* out, gs_u64 n, int blocksize, int kind) {
  q4_dequant_v3<q4_out_bf16>(packed, absmax, out, n, blocksize, kind);
}
GS_KERNEL void quant4_dequant_f16_v3(const unsigned char* packed, const float* absmax, gs_u16* out, gs_u64 n, int blocksize, int kind) {
  q4_dequant_v3<q4_out_f16>(packed, absmax, out, n, blocksize, kind);
}

// ---- 4-bit GEMV ----------------------------------------------------------------------------------
// kgemm_4bit_inference_naive's arithmetic: the code value and absmax rounded to T, W = code * absmax
// in T, each product A * W in T, summed in float (bf16 / f16); fp32 uses fmaf. Lane l of the warp
// for row r owns 32-element chunks l, l + W, ... and sums in k order; a butterfly (offsets 1, 2, 4,
// ...) combines the lanes. K % 32 == 0, so a chunk is 16 aligned bytes inside one absmax block.

__device__ __forceinline__ float q4_warp_sum(float v) {
  for (int o = 1; o < GS_WARP_SIZE; o *= 2) v += __shfl_xor_sync(GS_FULL_MASK, v, o, GS_WARP_SIZE);
  return v;
}

// The packed products below written out one rounding at a time, for devices and hosts without
// the sm_80 bf16x2/f16x2 instructions: w = T(q * am), then T(a * w), each widened back to float.
template <class G>
__device__ __forceinline__ void q4_products_portable(gs_u32 a2, gs_u32 q2, gs_u32 am2, float& p0, float& p1) {
  const gs_u16 am = (gs_u16)(am2 & 0xffffu);
  const gs_u16 w0 = G::round(G::widen((gs_u16)(q2 & 0xffffu)) * G::widen(am));
  const gs_u16 w1 = G::round(G::widen((gs_u16)(q2 >> 16)) * G::widen(am));
  p0 = G::widen(G::round(G::widen((gs_u16)(a2 & 0xffffu)) * G::widen(w0)));
  p1 = G::widen(G::round(G::widen((gs_u16)(a2 >> 16)) * G::widen(w1)));
}

// Two products of one pair of consecutive elements: prod = T(a * T(q * am)), returned as floats.
// bf16 and fp16 values multiply exactly in float, so T(float(a) * float(b)) is the T product.
struct q4_gemv_bf16 {
  typedef gs_u16 t;
  static __device__ __forceinline__ gs_u16 round(float v) { return gs_f32_to_bf16(v); }
  static __device__ __forceinline__ float widen(gs_u16 h) { return gs_bf16_to_f32(h); }
  // a2: elements (k, k+1) in (low, high); q2: the T code values likewise; am2: absmax twice.
  static __device__ __forceinline__ void products(gs_u32 a2, gs_u32 q2, gs_u32 am2, float& p0, float& p1) {
#if defined(Q4_PTX_SM80)
    gs_u32 w2, pr;
    // fma with -0.0 is the correctly rounded product (x + -0 = x; +0 + -0 = +0).
    asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(w2) : "r"(q2), "r"(am2), "r"(0x80008000u));
    asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(pr) : "r"(a2), "r"(w2), "r"(0x80008000u));
    p0 = gs_bits_f32(pr << 16);
    p1 = gs_bits_f32(pr & 0xffff0000u);
#else
    q4_products_portable<q4_gemv_bf16>(a2, q2, am2, p0, p1);
#endif
  }
};
struct q4_gemv_f16 {
  typedef gs_u16 t;
  static __device__ __forceinline__ gs_u16 round(float v) { return gs_f32_to_f16(v); }
  static __device__ __forceinline__ float widen(gs_u16 h) { return gs_f16_to_f32(h); }
  static __device__ __forceinline__ void products(gs_u32 a2, gs_u32 q2, gs_u32 am2, float& p0, float& p1) {
#if defined(Q4_PTX_SM80)
    gs_u32 w2, pr;
    asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(w2) : "r"(q2), "r"(am2), "r"(0x80008000u));
    asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(pr) : "r"(a2), "r"(w2), "r"(0x80008000u));
    asm("{.reg .f16 lo, hi; mov.b32 {lo, hi}, %2; cvt.f32.f16 %0, lo; cvt.f32.f16 %1, hi;}"
        : "=f"(p0), "=f"(p1) : "r"(pr));
#else
    q4_products_portable<q4_gemv_f16>(a2, q2, am2, p0, p1);
#endif
  }
};

// One 32-element chunk c of a row: codes (16 bytes), its absmax; adds the 32 products to acc in k order.
template <class G>
__device__ __forceinline__ float q4_gemv16_chunk(const gs_u16* qmap, const q4_u32x4* __restrict__ a16, int c,
                                                 const q4_u32x4& codes, float absmax_f, float acc) {
  const gs_u32 am = G::round(absmax_f);
  const gs_u32 am2 = am | (am << 16);
  const gs_u32 cw[4] = {codes.x, codes.y, codes.z, codes.w};
  for (int q = 0; q < 4; ++q) {  // 8 codes per word, 8 A values per 16-byte load
    const q4_u32x4 av = a16[c * 4 + q];
    const gs_u32 aw[4] = {av.x, av.y, av.z, av.w};
    for (int b = 0; b < 4; ++b) {
      const gs_u32 byte = (cw[q] >> (8 * b)) & 0xffu;
      const gs_u32 q2 = (gs_u32)qmap[byte >> 4] | ((gs_u32)qmap[byte & 15u] << 16);
      float p0, p1;
      G::products(aw[b], q2, am2, p0, p1);
      acc += p0;
      acc += p1;
    }
  }
  return acc;
}

template <class G>
__device__ __forceinline__ void q4_gemv16(const gs_u16* __restrict__ A, const unsigned char* __restrict__ B,
                                          const float* __restrict__ absmax, gs_u16* __restrict__ out, int N, int K,
                                          int blocksize, int kind) {
  __shared__ gs_u16 qmap[16];  // the code values rounded to T, as bitsandbytes' quant_map[16] of T
  if (threadIdx.x < 16) qmap[threadIdx.x] = G::round(q4_table(kind, (int)threadIdx.x));
  __syncthreads();
  const int shift = q4_log2(blocksize);
  const unsigned lane = threadIdx.x % GS_WARP_SIZE;
  const int row = (int)(blockIdx.x * (blockDim.x / GS_WARP_SIZE) + threadIdx.x / GS_WARP_SIZE);
  if (row >= N) return;  // the whole warp leaves together: no shuffle waits for it
  const gs_u64 row_base = (gs_u64)row * (gs_u64)K;
  const q4_u32x4* brow = reinterpret_cast<const q4_u32x4*>(B + row_base / 2);
  const q4_u32x4* a16 = reinterpret_cast<const q4_u32x4*>(A);
  float acc = 0.0f;
  const int chunks = K / Q4_CHUNK;
  for (int c = (int)lane; c < chunks; c += 2 * GS_WARP_SIZE) {
    // Two chunks per step, both loads issued first; they are still summed one after the other.
    const bool second = c + GS_WARP_SIZE < chunks;
    const q4_u32x4 codes0 = brow[c];
    const q4_u32x4 codes1 = second ? brow[c + GS_WARP_SIZE] : codes0;
    const float am0 = absmax[(row_base + (gs_u64)c * Q4_CHUNK) >> shift];
    const float am1 = second ? absmax[(row_base + (gs_u64)(c + GS_WARP_SIZE) * Q4_CHUNK) >> shift] : am0;
    acc = q4_gemv16_chunk<G>(qmap, a16, c, codes0, am0, acc);
    if (second) acc = q4_gemv16_chunk<G>(qmap, a16, c + GS_WARP_SIZE, codes1, am1, acc);
  }
  acc = q4_warp_sum(acc);
  if (lane == 0) out[row] = G::round(acc);
}

GS_KERNEL void quant4_gemv_bf16_v1(const gs_u16* A, const unsigned char* B, const float* absmax, gs_u16* out, int N, int K,
                                   int blocksize, int kind) {
  q4_gemv16<q4_gemv_bf16>(A, B, absmax, out, N, K, blocksize, kind);
}
GS_KERNEL void quant4_gemv_f16_v1(const gs_u16* A, const unsigned char* B, const float* absmax, gs_u16* out, int N, int K,
                                  int blocksize, int kind) {
  q4_gemv16<q4_gemv_f16>(A, B, absmax, out, N, K, blocksize, kind);
}

GS_KERNEL void quant4_gemv_f32_v1(const float* A, const unsigned char* B, const float* absmax, float* out, int N, int K,
                                  int blocksize, int kind) {
  __shared__ float lut[16];
  q4_fill_lut(lut, kind);
  const int shift = q4_log2(blocksize);
  const unsigned lane = threadIdx.x % GS_WARP_SIZE;
  const int row = (int)(blockIdx.x * (blockDim.x / GS_WARP_SIZE) + threadIdx.x / GS_WARP_SIZE);
  if (row >= N) return;
  const gs_u64 row_base = (gs_u64)row * (gs_u64)K;
  const q4_u32x4* brow = reinterpret_cast<const q4_u32x4*>(B + row_base / 2);
  float acc = 0.0f;
  for (int c = (int)lane; c < K / Q4_CHUNK; c += GS_WARP_SIZE) {
    const q4_u32x4 codes = brow[c];
    const float am = absmax[(row_base + (gs_u64)c * Q4_CHUNK) >> shift];
    const gs_u32 cw[4] = {codes.x, codes.y, codes.z, codes.w};
    for (int q = 0; q < 4; ++q)
      for (int b = 0; b < 4; ++b) {
        const gs_u32 byte = (cw[q] >> (8 * b)) & 0xffu;
        const int k = c * Q4_CHUNK + q * 8 + b * 2;
        acc = fmaf(A[k], lut[byte >> 4] * am, acc);
        acc = fmaf(A[k + 1], lut[byte & 15u] * am, acc);
      }
  }
  acc = q4_warp_sum(acc);
  if (lane == 0) out[row] = acc;
}

// ---- double quantization -------------------------------------------------------------------------
// dQuantize<0> against a sorted 256-entry map: 7 halving steps from pivot 127, then a midpoint test.
__device__ __forceinline__ unsigned dq8_code(const float* code, float x) {
  int pivot = 127, upper_pivot = 255, lower_pivot = 0;
  float lower = -1.0f, upper = 1.0f;
  float val = code[pivot];
  for (int i = 64; i > 0; i >>= 1) {
    if (x > val) {
      lower_pivot = pivot;
      lower = val;
      pivot += i;
    } else {
      upper_pivot = pivot;
      upper = val;
      pivot -= i;
    }
    val = code[pivot];
  }
  if (upper_pivot == 255) upper = code[upper_pivot];
  if (lower_pivot == 0) lower = code[lower_pivot];
  if (x > val) return x > (upper + val) * 0.5f ? (unsigned)upper_pivot : (unsigned)pivot;
  return x < (lower + val) * 0.5f ? (unsigned)lower_pivot : (unsigned)pivot;
}

// One thread per 8-bit block: y = absmax - offset (a float32 subtract, as torch does), absmax2 =
// fmaxf(|y|) from -FLT_MAX, codes of y * (1 / absmax2).
GS_KERNEL void dq8_quantize_absmax_v1(const float* absmax, float offset, const float* code, unsigned char* q,
                                      float* absmax2, gs_u64 n, int blocksize) {
  const gs_u64 b = (gs_u64)blockIdx.x * blockDim.x + threadIdx.x;
  const gs_u64 begin = b * (gs_u64)blocksize;
  if (begin >= n) return;
  const gs_u64 end = begin + (gs_u64)blocksize < n ? begin + (gs_u64)blocksize : n;
  float m = -3.402823466e38f;
  for (gs_u64 i = begin; i < end; ++i) m = fmaxf(m, fabsf(absmax[i] - offset));
  absmax2[b] = m;
  const float inv = 1.0f / m;
  for (gs_u64 i = begin; i < end; ++i) q[i] = (unsigned char)dq8_code(code, (absmax[i] - offset) * inv);
}

// One thread per element: fl32(fl32(code[q] * absmax2[i / blocksize]) + offset).
GS_KERNEL void dq8_absmax_dequant_v1(const unsigned char* q, const float* absmax2, const float* code, float offset,
                                     float* out, gs_u64 n, int blocksize) {
  const gs_u64 i = (gs_u64)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = q4_mul_rn(code[q[i]], absmax2[i / (gs_u64)blocksize]) + offset;
}
