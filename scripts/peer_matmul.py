"""torch.matmul beside gpustack's matrix-core GEMM on the same card in the same run (issue 17):
y = x @ w.T at S^3 in bf16 and fp16, nn.Linear's layout as gemm.mma.* uses it, timed with CUDA
events after a warm-up; then fp8 (E4M3) through torch._scaled_mm with unit scales beside
gemm.mma.fp8 (float8_e4m3fn; float8_e4m3fnuz on MI300), skipped with a line saying why where this
torch or GPU lacks it. Prints one JSON line per dtype with TFLOP/s and the BLAS backend torch
reports. Usage: python3 scripts/peer_matmul.py [S] [ITERS]"""
import json
import sys

import torch

S = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
ITERS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
dev = torch.device("cuda")


def timed_ms(fn):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(ITERS):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / ITERS


def report(peer, dtype, ms, **extra):
    backend = getattr(torch.backends.cuda, "preferred_blas_library", lambda: None)()
    print(json.dumps({"peer": peer, "dtype": dtype, "size": S, "iters": ITERS, "ms": ms,
                      "tflops": 2 * S ** 3 / (ms * 1e9), "torch": torch.__version__, "blas": str(backend),
                      "device": torch.cuda.get_device_name(), **extra}), flush=True)


for dtype in (torch.bfloat16, torch.float16):
    x = torch.empty(S, S, device=dev, dtype=dtype).uniform_(-1, 1)
    w = torch.empty(S, S, device=dev, dtype=dtype).uniform_(-1, 1)
    report("torch.matmul", str(dtype).replace("torch.", ""), timed_ms(lambda: x @ w.T))


def fp8_peer():
    """torch._scaled_mm(x, w.T) on E4M3 with scales 1.0: cuBLASLt's (hipBLASLt's) fp8 GEMM, the
    library rate gemm.mma.fp8 is read beside. _scaled_mm wants A row-major and B column-major,
    which w.T of a row-major w (N x K) is: nn.Linear's layout again."""
    skip = lambda why: print(json.dumps({"peer": "torch._scaled_mm", "dtype": "float8_e4m3", "skip": why,
                                         "torch": torch.__version__}), flush=True)
    if not hasattr(torch, "_scaled_mm") or not hasattr(torch, "float8_e4m3fn"):
        return skip("this torch has no torch._scaled_mm / float8_e4m3fn (torch 2.1+)")
    arch = getattr(torch.cuda.get_device_properties(dev), "gcnArchName", "")
    fnuz = bool(getattr(torch.version, "hip", None)) and arch.startswith(("gfx940", "gfx941", "gfx942"))
    if not torch.version.hip and torch.cuda.get_device_capability() < (8, 9):
        return skip("fp8 tensor cores need compute capability 8.9+")
    f8 = torch.float8_e4m3fnuz if fnuz else torch.float8_e4m3fn
    x = torch.empty(S, S, device=dev).uniform_(-1, 1).to(f8)
    w = torch.empty(S, S, device=dev).uniform_(-1, 1).to(f8)
    one = torch.ones((), device=dev, dtype=torch.float32)
    for out in (torch.float32, torch.bfloat16):
        try:
            call = lambda: torch._scaled_mm(x, w.T, scale_a=one, scale_b=one, out_dtype=out)
            call()  # older torch returns (out, amax); either way it ran
            return report("torch._scaled_mm", str(f8).replace("torch.", ""), timed_ms(call),
                          out_dtype=str(out).replace("torch.", ""))
        except (RuntimeError, TypeError) as e:
            err = str(e).splitlines()[0][:200]
    skip("torch._scaled_mm failed: " + err)


fp8_peer()
