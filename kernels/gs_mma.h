// gs_mma.h: one wave multiplies 16x16 bf16 or fp16 tiles on the GPU's matrix unit, fp32 accumulate:
// D (16x16) += A (16x16) B (16x16). One spelling for every kernel, four lowerings:
//   CUDA sm_80+      two mma.sync.m16n8k16 (bf16 tensor cores; wgmma would need a warpgroup
//                    of 128 threads and descriptors in shared memory, for tiles this small
//                    mma.sync is what Triton emits too on sm_80 and for its non-wgmma dots)
//   gfx90a, gfx94x   v_mfma_f32_16x16x16bf16_1k (CDNA matrix cores, wave64)
//   gfx11            v_wmma_f32_16x16x16_bf16 (RDNA3, wave32; A and B rows replicated in both halves)
//   gfx12            v_wmma_f32_16x16x16_bf16 (RDNA4, wave32; the halves hold different k)
//   anything else    the same products on the ALUs, one accumulator element at a time
// Operands are given as functors a(row, k) and b(k, col) returning bf16 bit patterns, so a
// caller can read them from shared memory, global memory, transposed, or split from fp32
// (gs_bf16_hi / gs_bf16_lo) without copies; each lowering reads only the elements its lane
// holds. The accumulator layout differs per lowering: gs_acc_row / gs_acc_col say which
// (row, col) element i of a lane is, so results are written the same way everywhere.
// bf16 x bf16 products are exact in fp32 (8 + 8 significant bits), so the only rounding is the
// fp32 accumulation, as on the CPU reference. Layouts: PTX ISA "Matrix Fragments for
// mma.m16n8k16"; AMD matrix instruction calculator (16x16x16 bf16_1k; WMMA gfx11 and gfx12).
#pragma once
#include "gs_device.h"
#include "gs_fp8.h"

#if defined(GS_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GS_MMA_PTX 1
#elif defined(GS_MMA_EMULATE_PTX)
// The host emulation of the unit tests (tests/kernels/mma_emu.h): the PTX path's indexing runs
// as plain C++, with gs_mma_m16n8k16 and gs_ldmatrix_x4 supplied by the emulator.
#define GS_MMA_PTX 1
#elif defined(GS_HIP) && (defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || \
                          defined(__gfx942__) || defined(__gfx950__))
#define GS_MMA_MFMA 1
#elif defined(GS_HIP) && (defined(__gfx1100__) || defined(__gfx1101__) || defined(__gfx1102__) || \
                          defined(__gfx1103__) || defined(__gfx1150__) || defined(__gfx1151__) ||  \
                          defined(__gfx1152__) || defined(__gfx1153__))
#define GS_MMA_WMMA11 1
#elif defined(GS_HIP) && (defined(__gfx1200__) || defined(__gfx1201__))
#define GS_MMA_WMMA12 1
#else
#define GS_MMA_SCALAR 1
#endif

// fp8 (E4M3) products on the matrix unit, one k32 step of gs_mma16 (below): MI300's MFMA reads the
// FNUZ encoding, RDNA4's WMMA and NVIDIA's mma.sync (sm_89, sm_120: mma.m16n8k32 .e4m3, PTX ISA
// "mma", sm_89+) the OCP one (gs_fp8.h says how they differ). gfx90a has no fp8 MFMA, RDNA3 no fp8 WMMA, sm_80/86
// no fp8 tensor cores, and gfx950's fp8 MFMA reads OCP codes: not built here (GS_MMA_FP8 off,
// gemm_mma.cu then has no fp8 entry and the probe says skip). Hopper's wgmma fp8 is gs_wgmma.h's.
// Builtins: clang's BuiltinsAMDGPU.def (llvm-project clang/include/clang/Basic/BuiltinsAMDGPU.def)
// __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8 ("V4fWiWiV4fIiIiIi", feature fp8-insts: gfx940+) and
// __builtin_amdgcn_wmma_f32_16x16x16_fp8_fp8_w32_gfx12 ("V8fV2iV2iV8f", gfx12-insts); both are in
// Debian's clang-19 (tests/runtime/clang_gfx_compile_test.cpp reads the instructions back).
#if defined(GS_MMA_MFMA) && !defined(__gfx90a__) && !defined(__gfx950__)
#define GS_MMA_FP8 1
#define GS_FP8_FNUZ 1
#elif defined(GS_MMA_WMMA12)
#define GS_MMA_FP8 1
#elif defined(GS_MMA_PTX) && (defined(GS_MMA_EMULATE_PTX) || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
// Ada and consumer Blackwell, whose fp8 tensor cores mma.sync drives. Not sm_90: there ptxas
// builds the same entry at 255 registers with spills (202 on sm_89: nvrtc_compile_test.cpp) and
// Hopper's fp8 rate is wgmma's (gs_wgmma.h); not sm_100-110, whose fp8 path is tcgen05.
#define GS_MMA_FP8 1
#endif
#if defined(GS_FP8_FNUZ)
#define GS_FP8_IS_FNUZ true
#else
#define GS_FP8_IS_FNUZ false
#endif

/// What the matrix unit is, for reports ("mma.sync bf16", "mfma", "wmma", "alu").
#if defined(GS_MMA_PTX)
#define GS_MMA_KIND "mma.sync.m16n8k16.bf16"
#elif defined(GS_MMA_MFMA)
#define GS_MMA_KIND "mfma_f32_16x16x16bf16_1k"
#elif defined(GS_MMA_WMMA11) || defined(GS_MMA_WMMA12)
#define GS_MMA_KIND "wmma_f32_16x16x16_bf16"
#else
#define GS_MMA_KIND "alu"
#endif

/// The input type of a product: bf16 (8 significant bits) or fp16 (11); both give exact products
/// in fp32 and the same fragment layouts, only the instruction differs.
struct gs_in_bf16 {
  static constexpr bool f16 = false, fp8 = false;
  static constexpr int bytes = 2;
  static __device__ __forceinline__ float widen(gs_u16 h) { return gs_bf16_to_f32(h); }
};
struct gs_in_f16 {
  static constexpr bool f16 = true, fp8 = false;
  static constexpr int bytes = 2;
  static __device__ __forceinline__ float widen(gs_u16 h) { return gs_f16_to_f32(h); }
};

/// E4M3 inputs in the encoding this arch's matrix unit reads (FNUZ on MI300, OCP elsewhere: Hopper,
/// RDNA4, the host). The callers still hand gs_mma16 16-bit words, each two consecutive k (low
/// byte first, as little-endian memory holds them), so the kernels' tile copies and swizzles are
/// the 16-bit ones and one gs_mma16 call covers k32: twice the k of a bf16 call for the same bytes.
struct gs_in_e4m3 {
  static constexpr bool f16 = false, fp8 = true;
  static constexpr int bytes = 1;
  static __device__ __forceinline__ float widen8(unsigned v) { return gs_fp8_e4m3_to_f32(v, GS_FP8_IS_FNUZ); }
};

/// 256 accumulator elements spread over the wave.
#define GS_ACC_N (256 / GS_WARP_SIZE)

struct gs_acc16 {
  float x[GS_ACC_N];
};

__device__ __forceinline__ void gs_acc_zero(gs_acc16& d) {
#pragma unroll
  for (int i = 0; i < GS_ACC_N; ++i) d.x[i] = 0.0f;
}

__device__ __forceinline__ int gs_lane() { return (int)(threadIdx.x % GS_WARP_SIZE); }

/// Row and column of accumulator element i of lane `lane`.
__device__ __forceinline__ int gs_acc_row(int lane, int i) {
#if defined(GS_MMA_PTX)
  return (lane >> 2) + ((i & 2) ? 8 : 0);  // c0,c1: row g; c2,c3: row g + 8 (per n-half)
#elif defined(GS_MMA_MFMA)
  return 4 * (lane >> 4) + i;
#elif defined(GS_MMA_WMMA11)
  return 2 * i + (lane >> 4);
#elif defined(GS_MMA_WMMA12)
  return 8 * (lane >> 4) + i;
#else
  return (lane + GS_WARP_SIZE * i) >> 4;
#endif
}

__device__ __forceinline__ int gs_acc_col(int lane, int i) {
#if defined(GS_MMA_PTX)
  return ((i >> 2) << 3) + 2 * (lane & 3) + (i & 1);  // n-half i/4, column pair 2t, 2t+1
#elif defined(GS_MMA_MFMA) || defined(GS_MMA_WMMA11) || defined(GS_MMA_WMMA12)
  return lane & 15;
#else
  return (lane + GS_WARP_SIZE * i) & 15;
#endif
}

/// The bf16 nearest an fp32 value, and the bf16 nearest what it leaves: hi + lo carries ~16
/// significant bits (relative error ~2^-17), so an fp32 x fp32 product split as
/// hi*hi + hi*lo + lo*hi loses ~1e-5, where one bf16 product would lose ~4e-3.
/// On sm_80+ the conversion is one instruction (cvt.rn.bf16.f32, round to nearest even as
/// gs_f32_to_bf16, which takes ~8 integer ops); the split sits on the state kernel's critical
/// path, so that matters there.
__device__ __forceinline__ gs_u16 gs_bf16_hi(float x) {
#if defined(GS_MMA_PTX) && !defined(GS_MMA_EMULATE_PTX)
  gs_u16 h;
  asm("cvt.rn.bf16.f32 %0, %1;\n" : "=h"(h) : "f"(x));
  return h;
#else
  return gs_f32_to_bf16(x);
#endif
}
__device__ __forceinline__ gs_u16 gs_bf16_lo(float x) { return gs_bf16_hi(x - gs_bf16_to_f32(gs_bf16_hi(x))); }

#if defined(GS_MMA_PTX)
__device__ __forceinline__ gs_u32 gs_pack_bf16(gs_u16 lo, gs_u16 hi) { return (gs_u32)lo | ((gs_u32)hi << 16); }
#if !defined(GS_MMA_EMULATE_PTX)
/// c (one n-half's four fp32) += A (four registers of 16-bit pairs) x B (two), PTX fragment
/// order; bf16 or fp16 inputs (the same fragments, PTX ISA "mma.m16n8k16"). With gs_in_e4m3 the
/// same registers hold four fp8 each and the instruction is mma.m16n8k32 .e4m3 (sm_89+): its 8-bit
/// fragments (a0: row g, k 4t..4t+3; a2: k 16 + 4t..; b0: k 4t..4t+3 of column g; b1: k 16 + 4t..;
/// PTX ISA "Matrix Fragments for mma.m16n8k32") are byte for byte the 16-bit ones of m16n8k16
/// (a0: row g, k 2t, 2t+1; a2: k 2t + 8, ..), so ldmatrix and the callers' packing serve both.
template <class E = gs_in_bf16>
__device__ __forceinline__ void gs_mma_m16n8k16(float* c, gs_u32 ra0, gs_u32 ra1, gs_u32 ra2, gs_u32 ra3, gs_u32 rb0,
                                                gs_u32 rb1) {
  if constexpr (E::fp8) {
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(ra0), "r"(ra1), "r"(ra2), "r"(ra3), "r"(rb0), "r"(rb1));
  } else if constexpr (E::f16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(ra0), "r"(ra1), "r"(ra2), "r"(ra3), "r"(rb0), "r"(rb1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(ra0), "r"(ra1), "r"(ra2), "r"(ra3), "r"(rb0), "r"(rb1));
  }
}

/// Four 8x8 16-bit matrices from shared memory (ldmatrix.x4): lanes 8i..8i+7 give the row
/// addresses of matrix i (16-byte aligned rows of 8 elements); register i receives matrix i's
/// fragment, lane l holding row l/4, elements 2(l%4) (low half) and 2(l%4)+1: the A and B
/// fragment layout of mma.m16n8k16 (PTX ISA "Warp-level matrix load instruction: ldmatrix").
__device__ __forceinline__ void gs_ldmatrix_x4(gs_u32* r, const gs_u16* p) {
  gs_u32 addr;
  asm volatile("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }\n" : "=r"(addr) : "l"(p));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
#endif  // !GS_MMA_EMULATE_PTX
#elif defined(GS_MMA_MFMA)
typedef short gs_v4i16 __attribute__((ext_vector_type(4)));
typedef _Float16 gs_v4f16 __attribute__((ext_vector_type(4)));
typedef float gs_v4f32 __attribute__((ext_vector_type(4)));
#elif defined(GS_MMA_WMMA11)
typedef short gs_v16i16 __attribute__((ext_vector_type(16)));
typedef _Float16 gs_v16f16 __attribute__((ext_vector_type(16)));
typedef float gs_v8f32 __attribute__((ext_vector_type(8)));
#elif defined(GS_MMA_WMMA12)
typedef short gs_v8i16 __attribute__((ext_vector_type(8)));
typedef _Float16 gs_v8f16 __attribute__((ext_vector_type(8)));
typedef float gs_v8f32 __attribute__((ext_vector_type(8)));
#endif

#if defined(GS_MMA_MFMA)
// One MFMA step's operands, the same for the 16-bit and the fp8 instructions: lane l holds row
// (column of B) l % 16 and four 16-bit words of k from 4 (l / 16) (two fp8 codes a word), and
// its four accumulators.
template <class FA, class FB>
__device__ __forceinline__ void gs_mfma_gather(int lane, const FA& a, const FB& b, const gs_acc16& d, gs_v4i16& va, gs_v4i16& vb,
                                               gs_v4f32& vc) {
  const int r = lane & 15, k0 = 4 * (lane >> 4);
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    va[j] = (short)a(r, k0 + j);
    vb[j] = (short)b(k0 + j, r);
    vc[j] = d.x[j];
  }
}
#endif

/// The fp8 half of gs_mma16 (gs_in_e4m3): d (16 x 16) += A (16 x 32) B (32 x 16), a(i, kk) and
/// b(kk, n) for kk < 16 giving the 16-bit word of k = 2kk (low byte) and 2kk + 1 (high byte).
/// On sm_89+ the 16-bit path with the m16n8k32 .e4m3 instruction (gs_mma_m16n8k16 says why the
/// fragments agree). Operand layouts on AMD (matrix instruction calculator, v_mfma_f32_16x16x32_fp8_fp8 and RDNA4
/// v_wmma_f32_16x16x16_fp8_fp8): MFMA lane l holds row (column of B) l % 16 and k 8(l / 16) ..
/// 8(l / 16) + 7, byte i of its 64-bit operand being k 8(l / 16) + i; gfx12 WMMA lane l holds
/// k 8(l / 16) .. +7 of each 16-k half, two calls per k32. The accumulators are the 16-bit
/// instructions' (gs_acc_row / gs_acc_col).
template <class E, class FA, class FB>
__device__ __forceinline__ void gs_mma16_16bit(gs_acc16& d, const FA& a, const FB& b);

template <class E, class FA, class FB>
__device__ __forceinline__ void gs_mma16_fp8(gs_acc16& d, const FA& a, const FB& b) {
  const int lane = gs_lane();
#if defined(GS_MMA_FP8) && defined(GS_MMA_MFMA)
  gs_v4i16 va, vb;
  gs_v4f32 vc;
  gs_mfma_gather(lane, a, b, d, va, vb, vc);
  vc = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(__builtin_bit_cast(long, va), __builtin_bit_cast(long, vb), vc, 0, 0, 0);
#pragma unroll
  for (int j = 0; j < 4; ++j) d.x[j] = vc[j];
#elif defined(GS_MMA_FP8) && defined(GS_MMA_WMMA12)
  typedef short v4i16 __attribute__((ext_vector_type(4)));
  typedef int v2i32 __attribute__((ext_vector_type(2)));
  const int r = lane & 15, k0 = 4 * (lane >> 4);
  gs_v8f32 vc;
#pragma unroll
  for (int j = 0; j < 8; ++j) vc[j] = d.x[j];
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    v4i16 va, vb;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      va[j] = (short)a(r, 8 * half + k0 + j);
      vb[j] = (short)b(8 * half + k0 + j, r);
    }
    vc = __builtin_amdgcn_wmma_f32_16x16x16_fp8_fp8_w32_gfx12(__builtin_bit_cast(v2i32, va), __builtin_bit_cast(v2i32, vb), vc);
  }
#pragma unroll
  for (int j = 0; j < 8; ++j) d.x[j] = vc[j];
#elif defined(GS_MMA_FP8) && defined(GS_MMA_PTX)
  (void)lane;
  gs_mma16_16bit<E>(d, a, b);  // the 16-bit fragments are the m16n8k32 8-bit ones (gs_mma_m16n8k16)
#elif defined(GS_MMA_SCALAR)
#pragma unroll
  for (int i = 0; i < GS_ACC_N; ++i) {
    const int row = gs_acc_row(lane, i), col = gs_acc_col(lane, i);
    float s = d.x[i];
    for (int kk = 0; kk < 16; ++kk) {
      const unsigned av = a(row, kk), bv = b(kk, col);
      s += E::widen8(av & 0xffu) * E::widen8(bv & 0xffu);
      s += E::widen8(av >> 8) * E::widen8(bv >> 8);
    }
    d.x[i] = s;
  }
#else
  static_assert(sizeof(E) == 0, "no fp8 matrix instruction on this target (gs_mma.h GS_MMA_FP8)");
  (void)d, (void)a, (void)b, (void)lane;
#endif
}

/// gs_mma16 for 16-bit inputs.
template <class E, class FA, class FB>
__device__ __forceinline__ void gs_mma16_16bit(gs_acc16& d, const FA& a, const FB& b) {
  const int lane = gs_lane();
#if defined(GS_MMA_PTX)
  const int g = lane >> 2, t = lane & 3;
  gs_u32 ra0 = gs_pack_bf16(a(g, 2 * t), a(g, 2 * t + 1));
  gs_u32 ra1 = gs_pack_bf16(a(g + 8, 2 * t), a(g + 8, 2 * t + 1));
  gs_u32 ra2 = gs_pack_bf16(a(g, 2 * t + 8), a(g, 2 * t + 9));
  gs_u32 ra3 = gs_pack_bf16(a(g + 8, 2 * t + 8), a(g + 8, 2 * t + 9));
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int col = g + 8 * h;
    gs_u32 rb0 = gs_pack_bf16(b(2 * t, col), b(2 * t + 1, col));
    gs_u32 rb1 = gs_pack_bf16(b(2 * t + 8, col), b(2 * t + 9, col));
    gs_mma_m16n8k16<E>(d.x + 4 * h, ra0, ra1, ra2, ra3, rb0, rb1);
  }
#elif defined(GS_MMA_MFMA)
  gs_v4i16 va, vb;
  gs_v4f32 vc;
  gs_mfma_gather(lane, a, b, d, va, vb, vc);
  if constexpr (E::f16)
    vc = __builtin_amdgcn_mfma_f32_16x16x16f16(__builtin_bit_cast(gs_v4f16, va), __builtin_bit_cast(gs_v4f16, vb), vc, 0, 0, 0);
  else
    vc = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(va, vb, vc, 0, 0, 0);
#pragma unroll
  for (int j = 0; j < 4; ++j) d.x[j] = vc[j];
#elif defined(GS_MMA_WMMA11)
  const int r = lane & 15;
  gs_v16i16 va, vb;
  gs_v8f32 vc;
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    va[j] = (short)a(r, j);
    vb[j] = (short)b(j, r);
  }
#pragma unroll
  for (int j = 0; j < 8; ++j) vc[j] = d.x[j];
  if constexpr (E::f16)
    vc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(__builtin_bit_cast(gs_v16f16, va), __builtin_bit_cast(gs_v16f16, vb), vc);
  else
    vc = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(va, vb, vc);
#pragma unroll
  for (int j = 0; j < 8; ++j) d.x[j] = vc[j];
#elif defined(GS_MMA_WMMA12)
  const int r = lane & 15, k0 = 8 * (lane >> 4);
  gs_v8i16 va, vb;
  gs_v8f32 vc;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    va[j] = (short)a(r, k0 + j);
    vb[j] = (short)b(k0 + j, r);
    vc[j] = d.x[j];
  }
  if constexpr (E::f16)
    vc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(__builtin_bit_cast(gs_v8f16, va), __builtin_bit_cast(gs_v8f16, vb), vc);
  else
    vc = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(va, vb, vc);
#pragma unroll
  for (int j = 0; j < 8; ++j) d.x[j] = vc[j];
#else
#pragma unroll
  for (int i = 0; i < GS_ACC_N; ++i) {
    const int row = gs_acc_row(lane, i), col = gs_acc_col(lane, i);
    float s = d.x[i];
    for (int kk = 0; kk < 16; ++kk) s += E::widen(a(row, kk)) * E::widen(b(kk, col));
    d.x[i] = s;
  }
#endif
}

/// d += A B for one wave; every lane of the wave must call it (no divergence around it).
/// E: gs_in_bf16 (default) or gs_in_f16, what the 16-bit patterns a() and b() return are; or
/// gs_in_e4m3, where each pattern is two fp8 and the step is k32 (gs_mma16_fp8).
template <class E = gs_in_bf16, class FA, class FB>
__device__ __forceinline__ void gs_mma16(gs_acc16& d, const FA& a, const FB& b) {
  if constexpr (E::fp8) gs_mma16_fp8<E>(d, a, b);
  else gs_mma16_16bit<E>(d, a, b);
}

/// d += A B with both operands in memory with k contiguous: A row-major (a[i * lda + k]) and B
/// given n-major (bt[n * ldb + k], i.e. B transposed), bf16, in shared or global memory. On
/// sm_80+ each lane then loads its pairs as 32-bit words (half the loads of the functor form);
/// elsewhere it is the functor form. lda and ldb even, pointers 4-byte aligned.
__device__ __forceinline__ void gs_mma16_kmajor(gs_acc16& d, const gs_u16* a, int lda, const gs_u16* bt, int ldb) {
#if defined(GS_MMA_PTX)
  const int lane = gs_lane(), g = lane >> 2, t = lane & 3;
  const gs_u32 ra0 = *(const gs_u32*)(a + g * lda + 2 * t), ra1 = *(const gs_u32*)(a + (g + 8) * lda + 2 * t);
  const gs_u32 ra2 = *(const gs_u32*)(a + g * lda + 2 * t + 8), ra3 = *(const gs_u32*)(a + (g + 8) * lda + 2 * t + 8);
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const gs_u16* col = bt + (g + 8 * h) * ldb;
    const gs_u32 rb0 = *(const gs_u32*)(col + 2 * t), rb1 = *(const gs_u32*)(col + 2 * t + 8);
    gs_mma_m16n8k16<gs_in_bf16>(d.x + 4 * h, ra0, ra1, ra2, ra3, rb0, rb1);
  }
#else
  gs_mma16(d, [&](int i, int kk) { return a[i * lda + kk]; }, [&](int kk, int n) { return bt[n * ldb + kk]; });
#endif
}
