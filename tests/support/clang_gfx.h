// Building a prepared kernel source for an AMD arch with Debian's clang-19 and reading back what
// the backend made: the AMDGPU metadata note (llvm-readelf-19 --notes) and the disassembly
// (llvm-objdump-19 -d). Debian's ROCm 5.2 comgr knows no gfx11/gfx12, so this is how CI sees the
// code a Radeon RX 9070 / R9700 (gfx1201) would run.
//
// The source reaches clang as the runtime hands it to comgr (runtime/kernel_source.h
// prepare_device_source: the kernel text, kernels/*.h as headers, the vendor and wave-size
// defines, -O3) with gpustack's HIP shim pre-included (runtime/hip_rtc_shim.cpp), as the comgr path
// does. Two steps differ, because Debian ships no lld for LLVM 19 and no gfx12 device libraries:
// clang stops at assembly (-S) and llvm-mc-19 assembles it into a relocatable object, whose
// metadata note and code are those of the final code object (linking only resolves symbols);
// and the few ocml math functions the shim declares are defined the way ROCm's device libraries
// define them (clang_gfx_math_prelude), so no kernel calls an external function, which would
// make the backend assume worst-case registers and a 16 KiB stack.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/kernel_source.h"
#include "support/amdgpu_limits.h"

namespace gs::test {

/// The LLVM 19 tools this needs that are not on PATH under their Debian names (clang-19,
/// llvm-mc-19, llvm-objdump-19, llvm-readelf-19), space-separated; empty when all are there.
std::string missing_clang_gfx_tools();

/// The definitions of the shim's __ocml_* declarations: exp, exp2, log as ocml's
/// BUILTIN_EXP_F32 / BUILTIN_EXP2_F32 / BUILTIN_LOG_F32 (ROCm-Device-Libs ocml/src/builtins.h:
/// __builtin_expf, __builtin_exp2f, __builtin_logf), rsqrt as BUILTIN_AMDGPU_RSQRT_F32
/// (__builtin_amdgcn_rsqf). tanh is left out: no kernel calls it, and ocml's is a longer series;
/// a kernel that starts to call it shows up as an external call (clang_gfx_build::calls).
const std::string& clang_gfx_math_prelude();

/// What one build produced.
struct clang_gfx_build {
  bool ok = false;
  std::string command;                                        ///< the shell line, for failure messages
  std::string log;                                            ///< the tools' output when !ok
  std::vector<amdgpu_kernel_resources> kernels;               ///< from the metadata note
  std::map<std::string, std::vector<std::string>> mnemonics;  ///< per function symbol, in order
  /// Instructions per symbol that call out (s_swappc_b64, s_setpc_b64 to a symbol): external
  /// functions the build could not see into.
  std::map<std::string, int> calls;
};

/// Writes `src` (with its headers, the shim and the math prelude) under `dir` and builds it for
/// `arch` with the wave size in src.wave_size (-mwavefrontsize64 on gfx10+ for wave64).
clang_gfx_build build_for_gfx(const device_source& src, const std::string& arch, const std::string& dir);

/// The kernels of an `llvm-readelf --notes` listing: the keys of each amdhsa.kernels entry
/// (indented four spaces; the .args entries below them are deeper and ignored).
std::vector<amdgpu_kernel_resources> parse_amdgpu_notes(std::string_view readelf_notes);
/// Adds the spill counts of clang's -Rpass-analysis=kernel-resource-usage remarks ("Function
/// Name: X", then "VGPRs Spill: N", "SGPRs Spill: N") to the kernels of that name.
void add_spill_remarks(std::string_view remarks, std::vector<amdgpu_kernel_resources>& kernels);
/// Mnemonics per function symbol of an `llvm-objdump -d` listing ("<name>:" headers, then one
/// tab-indented instruction per line).
std::map<std::string, std::vector<std::string>> parse_objdump_mnemonics(std::string_view objdump);

}  // namespace gs::test
