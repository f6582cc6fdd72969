# The main part of a standalone reproducer that `gpustack probe fla --emit-repro` writes for a
# failing step of the `triton` backend. The reproducer is one file: CASE (the step's shape, seed,
# num_stages and num_warps), then kernels/triton/gdn_ref.py, kernels/triton/gdn_chunk.py and
# probes/python/repro_check.py (the verdict) verbatim, then this; it uses their names directly
# and needs torch and triton, nothing of gpustack. The three kernels are launched one at a time with a synchronize after each, so the
# first one that faults is named (an asynchronous fault would otherwise surface at a later call).
# Exit 1: the failure reproduced (an exception, or a result that differs from the float64
# recurrence); 0: the step passed on this machine; 2: no GPU. --no-check stops after the launches
# (for a run under a sanitizer, where the float64 reference would take many minutes).
import sys

import torch


def _reproduce(c):
    if not torch.cuda.is_available():
        print("torch sees no GPU: nothing to reproduce here")
        return 2
    print("torch %s, triton %s, %s" % (torch.__version__, triton.__version__, torch.cuda.get_device_name(0)))
    print("case: %s" % CASE)
    dt = torch_dtype(torch, c["dtype"])
    q, k, v, g, beta = make_inputs(torch, c["B"], c["T"], c["H"], c["HV"], c["K"], c["V"], dt, "cuda", c["seed"])
    launch = Launch(q, k, v, g, beta, c["num_stages"], c["num_warps"], small_smem=c.get("small_smem", False))
    name = "?"
    try:
        for fn, grid, args, meta in launch._calls():
            name = fn.__name__
            fn[grid](*args, **meta, **launch.opts)
            torch.cuda.synchronize()
            print("ok      %s (num_stages=%d, num_warps=%d)" % (name, c["num_stages"], c["num_warps"]))
    except Exception as e:
        print("FAILED  %s (num_stages=%d, num_warps=%d): %s: %s"
              % (name, c["num_stages"], c["num_warps"], type(e).__name__, str(e).splitlines()[0]))
        return 1
    if "--no-check" in sys.argv:
        print("launched without a fault (--no-check: the result is not compared)")
        return 0
    o, state = launch.outputs()
    return forward_verdict(torch, o, state, q, k, v, g, beta, c["dtype"])


if __name__ == "__main__":
    sys.exit(_reproduce(CASE))
