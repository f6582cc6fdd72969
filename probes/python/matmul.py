# Step py.matmul (issue 17): the GEMMs of one QLoRA step of a registry model (gpustack computes
# the list in src/models/qlora_gemms.h and hands it over as args["shapes"]) through the user's
# torch, in bf16 and fp16, once under each BLAS backend torch can be told to prefer. Nothing is
# judged here: per (shape, dtype, backend) this sends sampled elements of C, how many elements of
# C are NaN (C is filled with NaN first, so an element the BLAS never wrote counts too) or Inf, and
# the median time; gpustack recomputes the samples with its own reference (py_matmul_judge.cpp).
#
# Inputs: element i (storage order) of an operand seeded s is hash_ints(s, i) / 128, the same
# integer hash as gpustack's py_matmul_hash, run here on int64 tensors on the GPU. Values v / 128
# with |v| <= 128 are exact in bf16 and fp16, so both sides multiply the same numbers.
#
# Transposes as autograd and PEFT issue them (peft/tuners/lora/layer.py, Linear.forward:
# result + lora_B(lora_A(dropout(x))) * scaling; F.linear's backward): trans_b is F.linear's
# x W^T, trans_a the weight gradient dy^T x; torch.mm on transposed views passes the transpose to
# the BLAS as a flag, no copy.
#
# Backends: torch.backends.cuda.preferred_blas_library("cublaslt" | "cublas"), torch >= 2.3
# (pytorch/pytorch#122106). On ROCm "cublaslt" is hipBLASLt and "cublas" is hipBLAS over rocBLAS;
# the starting choice comes from TORCH_BLAS_PREFER_HIPBLASLT (ROCm) / TORCH_BLAS_PREFER_CUBLASLT,
# else ROCm builds prefer hipBLASLt on gfx90a/gfx942 (and gfx1200/gfx1201 from ROCm 6.3, gfx950
# from 6.5) (ROCm/pytorch#2053, aten/src/ATen/Context.h). Newer torch also has "default", a
# per-call heuristic: what the process started with is reported, then both libraries are forced.
#
# Accumulation: torch lets cuBLAS reduce split-K partial sums in bf16/fp16 by default
# (allow_{bf16,fp16}_reduced_precision_reduction); that error is not bounded by the fp32-accumulate
# bound gpustack judges with, so both are turned off for the run and their defaults reported.
# Args: shapes (from gpustack), iters (10), model, tokens (for the record).
import os

import gs_protocol as gs

M31 = 0x7FFFFFFF
DTYPES = ("bf16", "fp16")


def hash_ints(seed, idx):
    """py_matmul_hash of probes/py_matmul_judge.cpp on a Python int or an int64 tensor of storage
    indices (< 2^31): v in [-128, 127]. Every product stays below 2^62, so nothing wraps."""
    s = seed & M31
    h = (idx + s) & M31
    h = (h * 1103515245 + 12345) & M31
    h = h ^ (h >> 13) ^ s
    h = (h * 1664525 + 1013904223) & M31
    h = h ^ (h >> 16)
    return ((h >> 8) & 255) - 128


def operand(torch, seed, rows, cols, dtype):
    idx = torch.arange(rows * cols, dtype=torch.int64, device="cuda")
    return (hash_ints(seed, idx).to(torch.float32) / 128).to(dtype).view(rows, cols)


def blas_backends(torch, data):
    """The backends to force in turn ([None] when torch cannot choose), and what it started with."""
    hip = bool(getattr(torch.version, "hip", None))
    info = {"hip": hip, "env": {k: os.environ.get(k) for k in ("TORCH_BLAS_PREFER_HIPBLASLT", "TORCH_BLAS_PREFER_CUBLASLT")}}
    m = torch.backends.cuda.matmul
    info["reduced_precision_reduction_default"] = {
        "bf16": getattr(m, "allow_bf16_reduced_precision_reduction", None),
        "fp16": getattr(m, "allow_fp16_reduced_precision_reduction", None)}
    data["blas"] = info
    pref = getattr(torch.backends.cuda, "preferred_blas_library", None)
    if pref is None:
        info["why_one_backend"] = "torch %s has no preferred_blas_library (added in 2.3)" % torch.__version__
        return [None]
    start = pref()
    info["preferred_at_start"] = str(getattr(start, "name", start)).lower()
    return ["cublaslt", "cublas"]


def run_case(torch, s, dtype, backend, A, B, iters):
    """One GEMM under one backend: samples, NaN/Inf counts and the median time, or the error."""
    m, n = s["m"], s["n"]
    a = A.t() if s["trans_a"] else A
    b = B.t() if s["trans_b"] else B
    out = {"shape": s["name"], "dtype": dtype, "backend": backend or "default"}
    try:
        if backend:
            torch.backends.cuda.preferred_blas_library(backend)
        C = torch.full((m, n), float("nan"), dtype=A.dtype, device="cuda")
        torch.mm(a, b, out=C)
        torch.cuda.synchronize()
        out["nan"] = int(torch.isnan(C).sum().item())
        out["inf"] = int(torch.isinf(C).sum().item())
        rows = torch.tensor(s["rows"], device="cuda")
        cols = torch.tensor(s["cols"], device="cuda")
        out["samples"] = C.index_select(0, rows).index_select(1, cols).float().flatten().cpu().tolist()
        times = sorted(gs.event_times_ms(torch, lambda: torch.mm(a, b, out=C), iters, warmup=2))
        out["ms"] = times[len(times) // 2]
    except RuntimeError as e:  # a BLAS that refuses a shape is a finding, not the end of the step
        out["error"] = "%s: %s" % (type(e).__name__, str(e).split("\n")[0][:300])
    return out


def main(data):
    a = gs.args()
    shapes = a.get("shapes") or []
    iters = int(a.get("iters", 10))
    gs.phase("import")
    torch = gs.require("torch")
    data["versions"] = gs.torch_versions(torch)
    if not shapes:
        raise gs.Skip("no shapes given: py.matmul runs the GEMM list gpustack computes from the model registry")
    if not torch.cuda.is_available():
        raise gs.Skip("torch sees no GPU")
    data["device"], data["arch"] = gs.device_name(torch, 0)
    backends = blas_backends(torch, data)
    m = torch.backends.cuda.matmul
    m.allow_bf16_reduced_precision_reduction = False
    m.allow_fp16_reduced_precision_reduction = False
    types = {"bf16": torch.bfloat16, "fp16": torch.float16}

    cases = []
    for s in shapes:
        # Each shape enters the phase anew: its 30 s deadline is per shape (gemma4-31b's largest,
        # 2048 x 21504 x 5376, is ~1 ms a call), not for the whole list.
        gs.phase("launch")
        # Stored shapes: A is k x m when trans_a else m x k; B is n x k when trans_b else k x n.
        a_dims = (s["k"], s["m"]) if s["trans_a"] else (s["m"], s["k"])
        b_dims = (s["n"], s["k"]) if s["trans_b"] else (s["k"], s["n"])
        for dt in DTYPES:
            A = operand(torch, s["seed_a"], a_dims[0], a_dims[1], types[dt])
            B = operand(torch, s["seed_b"], b_dims[0], b_dims[1], types[dt])
            for be in backends:
                cases.append(run_case(torch, s, dt, be, A, B, iters))
                gs.heartbeat()
            del A, B
    data["cases"] = cases
    errors = [c for c in cases if "error" in c]
    gs.phase("verify")
    # The verdict is gpustack's (it holds the reference); this only says what ran.
    gs.passed("%d GEMMs x %s x %s ran on %s (%d raised)" % (len(shapes), "/".join(DTYPES),
              "/".join(b or "default" for b in backends), data["arch"], len(errors)), data)


if __name__ == "__main__":
    gs.run(main)
