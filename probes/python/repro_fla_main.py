# The main part of a standalone reproducer that `gpustack probe fla --emit-repro` writes for a
# failing step of the `fla` backend: flash-linear-attention's chunk_gated_delta_rule with every
# Triton launch's num_stages forced to one value. The reproducer is one file: CASE, then
# kernels/triton/gdn_ref.py and probes/python/gpustack_triton_stages.py verbatim (the wrapper of
# JITFunction.run that forces the depth, and records what each kernel was built with) and
# probes/python/repro_check.py (the verdict) verbatim, then this;
# it needs torch, triton and flash-linear-attention, nothing of gpustack.
# Exit 1: the failure reproduced; 0: the step passed on this machine; 2: no GPU. --no-check stops
# after the launch (for a run under a sanitizer, where the float64 reference would take many minutes).
import os
import sys

import torch


def _reproduce(c):
    if not torch.cuda.is_available():
        print("torch sees no GPU: nothing to reproduce here")
        return 2
    # Force before FLA is imported (its modules build configs at import); no autotune result
    # chosen at the forced depth may be cached on disk for later runs.
    os.environ["FLA_CACHE_RESULTS"] = "0"
    activate(c["num_stages"], mode="force")
    import triton
    from fla.ops.gated_delta_rule import chunk_gated_delta_rule
    import fla
    print("torch %s, triton %s, fla %s, %s" % (torch.__version__, triton.__version__,
                                               getattr(fla, "__version__", "?"), torch.cuda.get_device_name(0)))
    print("case: %s" % CASE)
    dt = torch_dtype(torch, c["dtype"])
    q, k, v, g, beta = make_inputs(torch, c["B"], c["T"], c["H"], c["HV"], c["K"], c["V"], dt, "cuda", c["seed"])
    qf, kf = q, k
    if c.get("repeat_qk"):  # FLA < 0.5.0 has no grouped value heads: repeat q/k as transformers does
        qf = q.repeat_interleave(c["HV"] // c["H"], dim=2)
        kf = k.repeat_interleave(c["HV"] // c["H"], dim=2)
    try:
        o, state = chunk_gated_delta_rule(qf, kf, v, g=g, beta=beta, use_qk_l2norm_in_kernel=True,
                                          output_final_state=True)
        torch.cuda.synchronize()
    except Exception as e:
        print("FAILED  chunk_gated_delta_rule at num_stages=%d: %s: %s"
              % (c["num_stages"], type(e).__name__, str(e).splitlines()[0]))
        print("kernels built so far (num_stages): %s" % seen())
        return 1
    print("kernels built (num_stages): %s" % seen())
    if "--no-check" in sys.argv:
        print("launched without a fault (--no-check: the result is not compared)")
        return 0
    return forward_verdict(torch, o, state, q, k, v, g, beta, c["dtype"])


if __name__ == "__main__":
    sys.exit(_reproduce(CASE))
