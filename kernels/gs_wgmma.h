// gs_wgmma.h: Hopper's asynchronous matrix path for one warpgroup (4 consecutive warps, 128
// threads), the pieces kernels/gemm_mma.cu's sm_90a path is built from. Only for sm_90a
// (wgmma and setmaxnreg exist on the arch-specific target alone, PTX ISA 8.0+); the host
// emulation (tests/kernels/wgmma_emu.h) supplies the same functions as plain C++ when
// GS_WGMMA_EMULATE is defined. What each one is, from the PTX ISA (9.0):
//   mbarrier          "Parallel Synchronization and Communication Instructions: mbarrier": a
//                     64-bit shared-memory barrier with an arrival count and a transaction byte
//                     count; a phase completes when both reach zero, and try_wait.parity P
//                     returns once the phase of parity P has completed (the phase before the
//                     first counts as completed for parity 1, so a producer's first pass through
//                     an `empty` barrier does not wait).
//   TMA               "cp.async.bulk.tensor": one thread copies a box of a 2-D tensor described
//                     by a CUtensorMap (made on the host by cuTensorMapEncodeTiled) into shared
//                     memory, zero-filling what lies outside the tensor, swizzled as the map
//                     says, and counts the box's bytes against the mbarrier it names
//                     (complete_tx); the map is a __grid_constant__ kernel parameter.
//   wgmma             "Asynchronous Warpgroup Level Matrix Multiply-Accumulate" (wgmma.mma_async
//                     m64nNk16, .f32.bf16.bf16 / .f32.f16.f16; m64nNk32 .f32.e4m3.e4m3 for fp8,
//                     the same 32 bytes of each row per instruction): A (64 x 16) and B (16 x N) both
//                     read from shared memory through 64-bit matrix descriptors, D in registers
//                     of the 128 threads; fence / commit_group / wait_group order it with the
//                     registers around it.
//   descriptor        "Matrix Descriptor Format": bits 0-13 start address >> 4, 16-29 leading
//                     byte offset >> 4, 32-45 stride byte offset >> 4, 49-51 base offset, 62-63
//                     swizzle (1 = 128B). A K-major operand under the 128-byte swizzle is rows of
//                     128 B (64 16-bit k) in 8-row atoms of 1024 B: stride offset 1024 (atom to
//                     atom along M/N), the leading offset unused (a k16 step, 32 B, stays inside
//                     one 128-byte row), and the k16 steps of a 64-wide tile advance the start
//                     address by 32 B; the swizzle XORs address bits 4-6 with bits 7-9, the same
//                     function TMA's CU_TENSOR_MAP_SWIZZLE_128B applies when writing, so a
//                     1024-aligned tile reads back as it was loaded.
//   setmaxnreg        "setmaxnreg": a warpgroup gives registers back (.dec) or takes them (.inc),
//                     so a producer that only issues copies frees registers for the consumers'
//                     accumulators.
// The same structure as public Hopper GEMM write-ups (NVIDIA's CUTLASS "warp-specialized"
// kernels; P. Shankhdhar, "Outperforming cuBLAS on H100: a worklog", 2024): a producer warpgroup
// on TMA, consumer warpgroups on wgmma, a ring of stages guarded by full/empty mbarriers.
#pragma once
#include "gs_device.h"

/// A CUtensorMap as the kernel receives it (CUDA's cuda.h: 16 opaque 64-bit words, 64-byte
/// aligned); the host fills it through the runtime (runtime.h tensor_map_2d).
struct alignas(64) gs_tensor_map {
  gs_u64 opaque[16];
};

/// The shared-memory matrix descriptor of a K-major operand tile in the 128-byte swizzle
/// (rows of 128 B, 8-row atoms of 1024 B), from its shared-memory byte address.
#define GS_WGMMA_SWIZZLE_128B 1ull
#define GS_WGMMA_ATOM_BYTES 1024u
GS_HD gs_u64 gs_wgmma_desc(gs_u32 smem_addr) {
  return (gs_u64)((smem_addr & 0x3ffffu) >> 4) | (gs_u64)1 << 16 |  // leading offset: unused here
         (gs_u64)(GS_WGMMA_ATOM_BYTES >> 4) << 32 | GS_WGMMA_SWIZZLE_128B << 62;
}

#if !defined(GS_WGMMA_EMULATE)
#if !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "gs_wgmma.h needs the sm_90a target (NVRTC --gpu-architecture=sm_90a)"
#endif

__device__ __forceinline__ gs_u32 gs_smem_u32(const void* p) { return (gs_u32)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void gs_mbar_init(gs_u64* bar, unsigned arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(gs_smem_u32(bar)), "r"(arrivals) : "memory");
}
/// Makes the initialised barriers visible to the async proxy (TMA) before any thread uses them.
__device__ __forceinline__ void gs_mbar_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }
__device__ __forceinline__ void gs_mbar_arrive(gs_u64* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(gs_smem_u32(bar)) : "memory");
}
/// Arrive and announce `bytes` of copies that will complete_tx on this barrier.
__device__ __forceinline__ void gs_mbar_arrive_expect_tx(gs_u64* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(gs_smem_u32(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void gs_mbar_wait(gs_u64* bar, unsigned parity) {
  gs_u32 done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(gs_smem_u32(bar)), "r"(parity)
        : "memory");
  } while (!done);
}

/// The box of `map` whose first element is (x = inner coordinate, y = outer) into `dst`.
__device__ __forceinline__ void gs_tma_load_2d(void* dst, const gs_tensor_map* map, int x, int y, gs_u64* bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          gs_smem_u32(dst)),
      "l"(map), "r"(x), "r"(y), "r"(gs_smem_u32(bar))
      : "memory");
}

template <int N>
__device__ __forceinline__ void gs_setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N>
__device__ __forceinline__ void gs_setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}

__device__ __forceinline__ void gs_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void gs_wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void gs_wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
/// Keeps the compiler from moving reads or writes of an accumulator register across the
/// asynchronous wgmma that owns it (an empty asm that "changes" the value).
__device__ __forceinline__ void gs_wgmma_hold(float& r) { asm volatile("" : "+f"(r)::"memory"); }

#define GS_WGMMA_D8(i) \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define GS_WGMMA_D128                                                                                                    \
  GS_WGMMA_D8(0), GS_WGMMA_D8(8), GS_WGMMA_D8(16), GS_WGMMA_D8(24), GS_WGMMA_D8(32), GS_WGMMA_D8(40), GS_WGMMA_D8(48), \
      GS_WGMMA_D8(56), GS_WGMMA_D8(64), GS_WGMMA_D8(72), GS_WGMMA_D8(80), GS_WGMMA_D8(88), GS_WGMMA_D8(96),             \
      GS_WGMMA_D8(104), GS_WGMMA_D8(112), GS_WGMMA_D8(120)
#define GS_WGMMA_REGS128                                                                                   \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                                \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "                       \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "                        \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "                        \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "                        \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "                        \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "            \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}"

/// D (64 x 256, fp32, 128 registers a thread) = A (64 x 16) B (16 x 256) + (scale_d ? D : 0), A and
/// B K-major in shared memory (trans-a = trans-b = 0). Issued by the whole warpgroup. scale_d = 0
/// on the first product instead of zeroing D: ptxas serializes every wgmma of a loop whose
/// accumulators other instructions define (its C7515 "Potential Performance Loss" note), which
/// the zeroing movs before the loop did. Issued by the whole warpgroup.
template <class E>
__device__ __forceinline__ void gs_wgmma_m64n256k16(float* d, gs_u64 desc_a, gs_u64 desc_b, int scale_d) {
  if constexpr (E::f16) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 " GS_WGMMA_REGS128
                 ", %128, %129, p, 1, 1, 0, 0;\n}\n"
                 : GS_WGMMA_D128
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  } else {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 " GS_WGMMA_REGS128
                 ", %128, %129, p, 1, 1, 0, 0;\n}\n"
                 : GS_WGMMA_D128
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  }
}

/// The same with E4M3 inputs (OCP encoding, gs_fp8.h): D (64 x 256) = A (64 x 32) B (32 x 256) +
/// (scale_d ? D : 0), wgmma's .e4m3 form, which takes no transpose immediates (fp8 operands are
/// K-major only; PTX ISA "wgmma.mma_async": for .e4m3/.e5m2 the operands after scale-d are
/// imm-scale-a and imm-scale-b alone). A k32 slice of a K-major row is 32 bytes, as a bf16 k16
/// slice is, so the descriptors and their 32-byte steps are the 16-bit path's; the D fragment is
/// the m64nNk16 one. The accumulator is not a full fp32 chain (probes/gemm_inputs.h
/// gemm_fp8_error_bound: ~14 significant bits kept).
__device__ __forceinline__ void gs_wgmma_m64n256k32_e4m3(float* d, gs_u64 desc_a, gs_u64 desc_b, int scale_d) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 " GS_WGMMA_REGS128 ", %128, %129, p, 1, 1;\n}\n"
               : GS_WGMMA_D128
               : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}
#endif  // !GS_WGMMA_EMULATE
