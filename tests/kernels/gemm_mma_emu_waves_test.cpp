// kernels/gemm_mma.cu's portable path (waves of 16 x 16 tiles through gs_mma16; here on its
// ALU lowering, wave32: 8 waves as 2 x 4) against the reference.
#define GS_WARP_SIZE 32
#include "kernels/mma_emu.h"

namespace emu_mma_waves {
alignas(16) static unsigned char gs_smem[2 * 24576];  // GS_MMA_STAGES x stage bytes
#include "kernels/gemm_mma.cu"
}  // namespace emu_mma_waves

#define EMU emu_mma_waves
#define GEMM_MMA_EMU_SUITE GemmMmaEmuWaves
#include "kernels/gemm_mma_emu_case.inc"
