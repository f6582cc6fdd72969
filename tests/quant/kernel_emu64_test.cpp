// kernels/quant4.cu and kernels/int8.cu on the host emulation at wave size 64 (CDNA): the GEMV's
// chunk stride and butterfly, v3's warp units and the row reduction all depend on it.
#define GS_WARP_SIZE 64
#include "quant/kernel_emu.h"

namespace emu64 {
#include "kernels/quant4.cu"
#include "kernels/int8.cu"
}  // namespace emu64

#define EMU emu64
#define EMU_SUITE QuantKernelEmu64
#include "quant/kernel_emu_cases.inc"
