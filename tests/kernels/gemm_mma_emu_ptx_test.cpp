// kernels/gemm_mma.cu's CUDA sm_80+ path (ldmatrix + mma.sync, emulated) against the reference.
#define GS_WARP_SIZE 32
#define GS_MMA_EMULATE_PTX 1
#include "kernels/mma_emu.h"

namespace emu_mma_ptx {
alignas(16) static unsigned char gs_smem[4 * 24576];  // GS_MMA_STAGES x stage bytes
#include "kernels/gemm_mma.cu"
}  // namespace emu_mma_ptx

#define EMU emu_mma_ptx
#define GEMM_MMA_EMU_SUITE GemmMmaEmuPtx
#include "kernels/gemm_mma_emu_case.inc"
