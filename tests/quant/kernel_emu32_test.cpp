// kernels/quant4.cu and kernels/int8.cu run on the host emulation at wave size 32 (NVIDIA, RDNA)
// and compared bit for bit with the references; see kernel_emu.h and kernel_emu_cases.inc.
#define GS_WARP_SIZE 32
#include "quant/kernel_emu.h"

namespace emu32 {
#include "kernels/quant4.cu"
#include "kernels/int8.cu"
}  // namespace emu32

#define EMU emu32
#define EMU_SUITE QuantKernelEmu32
#include "quant/kernel_emu_cases.inc"
