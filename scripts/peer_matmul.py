"""torch.matmul beside gpustack's matrix-core GEMM on the same card in the same run (issue 17):
y = x @ w.T at S^3 in bf16 and fp16, nn.Linear's layout as gemm.mma.* uses it, timed with CUDA
events after a warm-up; prints one JSON line per dtype with TFLOP/s and the BLAS backend torch
reports. Usage: python3 scripts/peer_matmul.py [S] [ITERS]"""
import json
import sys

import torch

S = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
ITERS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
dev = torch.device("cuda")
for dtype in (torch.bfloat16, torch.float16):
    x = torch.empty(S, S, device=dev, dtype=dtype).uniform_(-1, 1)
    w = torch.empty(S, S, device=dev, dtype=dtype).uniform_(-1, 1)
    for _ in range(3):
        y = x @ w.T
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(ITERS):
        y = x @ w.T
    end.record()
    torch.cuda.synchronize()
    ms = start.elapsed_time(end) / ITERS
    backend = getattr(torch.backends.cuda, "preferred_blas_library", lambda: None)()
    print(json.dumps({"peer": "torch.matmul", "dtype": str(dtype).replace("torch.", ""), "size": S, "iters": ITERS,
                      "ms": ms, "tflops": 2 * S ** 3 / (ms * 1e9), "torch": torch.__version__,
                      "blas": str(backend), "device": torch.cuda.get_device_name()}), flush=True)
