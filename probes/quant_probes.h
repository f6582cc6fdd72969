// Probes quant.nf4, quant.fp4 and quant.int8: bitsandbytes' 4-bit and LLM.int8() arithmetic as
// kernels/quant4.cu and kernels/int8.cu compute it on this GPU, compared bit for bit with the
// CPU references in kernels/ref/ (which match bitsandbytes' CUDA kernels; `gpustack selftest`
// checks that against golden vectors). Seeded random inputs plus the special cases: all-zero
// blocks, exact threshold ties, NaN, infinities, odd lengths and every valid blocksize.
#pragma once
#include <memory>

#include "kernels/ref/quant4_ref.h"
#include "probes/probe.h"
#include "runtime/runtime.h"

namespace gs {

extern const probe_spec quant_nf4_probe;
extern const probe_spec quant_fp4_probe;
extern const probe_spec quant_int8_probe;

/// quant.nf4 / quant.fp4 on `rt` (tests pass open_cpu_runtime()); null `rt` opens ctx.device.
/// Options (--set): size (side of the timed square; default 8192 on a GPU, 0 = no timing, which
/// is the cpu default), iters (timed launches, default 50), blocksize (of the timed matrix, 64).
probe_result run_quant4_with(const probe_context& ctx, quant4_kind kind, std::unique_ptr<runtime> rt);

/// quant.int8 on `rt`; null `rt` opens ctx.device.
probe_result run_int8_with(const probe_context& ctx, std::unique_ptr<runtime> rt);

}  // namespace gs
