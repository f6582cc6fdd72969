"""Reference figures from the framework, measured beside gpustack's probes in the same hardware
run (docs/hardware-runs.md): device-to-device copy bandwidth and torch.matmul TFLOP/s in fp32,
bf16 and fp16. Medians of CUDA-event timings after warm-up, on random data. Prints one JSON line.
"""
import json
import os
import sys

# The probes' event timing (gs_protocol.event_times_ms), from the source tree this script sits in.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "probes", "python"))
import gs_protocol as gs  # noqa: E402  (pure standard library)

try:
    import torch
except Exception as e:  # no torch: nothing to compare against
    print(json.dumps({"skip": f"torch not importable: {e}"}))
    sys.exit(0)


def median_ms(fn, reps=20, warmup=3):
    times = sorted(gs.event_times_ms(torch, fn, reps, warmup, beat=False))
    return times[len(times) // 2]


def main():
    if not torch.cuda.is_available():
        print(json.dumps({"skip": "torch.cuda.is_available() is False"}))
        return
    out = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0)}
    # Copy: 2 GiB read + 2 GiB written per clone; counting both, as the probe does.
    src = torch.randn(512 * 1024 * 1024, device="cuda")  # 2 GiB of fp32
    dst = torch.empty_like(src)
    ms = median_ms(lambda: dst.copy_(src))
    out["copy_gbs"] = 2 * src.numel() * 4 / (ms * 1e-3) / 1e9
    del src, dst
    torch.backends.cuda.matmul.allow_tf32 = False
    for name, dtype, n in (("fp32", torch.float32, 8192), ("bf16", torch.bfloat16, 8192), ("fp16", torch.float16, 8192)):
        a = torch.randn(n, n, device="cuda", dtype=dtype)
        b = torch.randn(n, n, device="cuda", dtype=dtype)
        ms = median_ms(lambda: torch.matmul(a, b))
        out[f"matmul_{name}_tflops"] = 2 * n ** 3 / (ms * 1e-3) / 1e12
    print(json.dumps(out))


if __name__ == "__main__":
    main()
