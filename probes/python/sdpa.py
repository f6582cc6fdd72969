# Step 9 (py.sdpa): torch's scaled_dot_product_attention on a training-shaped call (B=2, H=8,
# T=1024, D=128, bf16, causal, forward and backward). Each backend (flash, memory-efficient,
# cuDNN, math) is forced in turn with sdpa_kernel: is it available here, and do its output and
# gradients agree with the math backend run in fp32? Then which backend torch picks by itself,
# read off the aten op the profiler records. A silent fall back to math costs 5-10x on long
# sequences (research/anchors-tools.md 4), which is why the choice is reported.
# Args: b, h, t, d (shape), seed.
import gs_protocol as gs

# aten ops each backend runs as, in the profiler's CPU events (the same names on ROCm).
ATEN = {"flash": "aten::_scaled_dot_product_flash_attention",
        "efficient": "aten::_scaled_dot_product_efficient_attention",
        "cudnn": "aten::_scaled_dot_product_cudnn_attention",
        "math": "aten::_scaled_dot_product_attention_math"}
# bf16 keeps 8 bits of mantissa: a softmax-weighted sum over <=1024 keys lands within a few
# 2^-8 of the fp32 answer. 2e-2 of the largest |value| for outputs, 5e-2 for gradients (they
# accumulate over T twice).
TOL_OUT, TOL_GRAD = 2e-2, 5e-2


def rel_err(x, ref):
    scale = ref.abs().max().item()
    return (x.float() - ref).abs().max().item() / scale if scale > 0 else float("inf")


def main(data):
    a = gs.args()
    B, H, T, D = (int(a.get(k, v)) for k, v in (("b", 2), ("h", 8), ("t", 1024), ("d", 128)))
    gs.phase("import")
    torch = gs.require("torch")
    data["versions"] = gs.torch_versions(torch)
    if not torch.cuda.is_available():
        raise gs.Skip("torch sees no GPU")
    import torch.nn.functional as F
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        raise gs.Skip("torch %s has no torch.nn.attention.sdpa_kernel (added in 2.3)" % torch.__version__)
    name, arch = gs.device_name(torch, 0)
    data["shape"] = {"B": B, "H": H, "T": T, "D": D, "dtype": "bfloat16", "causal": True}

    gs.phase("launch")
    gen = torch.Generator().manual_seed(int(a.get("seed", 99)))
    q, k, v, g = (torch.randn(B, H, T, D, generator=gen).cuda() for _ in range(4))
    q32, k32, v32 = (x.clone().requires_grad_() for x in (q, k, v))
    with sdpa_kernel(SDPBackend.MATH):
        ref = F.scaled_dot_product_attention(q32, k32, v32, is_causal=True)
        ref.backward(g)
    ref = ref.detach()
    ref_grads = [x.grad for x in (q32, k32, v32)]

    backends = {"flash": SDPBackend.FLASH_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION,
                "math": SDPBackend.MATH}
    if hasattr(SDPBackend, "CUDNN_ATTENTION"):
        backends["cudnn"] = SDPBackend.CUDNN_ATTENTION
    results = {}
    wrong = []
    for bname, be in backends.items():
        gs.heartbeat()
        qb, kb, vb = (x.to(torch.bfloat16).requires_grad_() for x in (q, k, v))
        entry = {}
        try:
            with gs.captured_warnings() as said, sdpa_kernel(be):
                out = F.scaled_dot_product_attention(qb, kb, vb, is_causal=True)
                out.backward(g.to(torch.bfloat16))
                torch.cuda.synchronize()
        except RuntimeError as e:
            # "No available kernel. Aborting execution." plus the warnings saying why not.
            entry = {"available": False, "why": [w for w in said if "kernel not used" in w or "because" in w][:4]
                     or [str(e).split("\n")[0][:300]]}
            results[bname] = entry
            continue
        entry["available"] = True
        entry["out_rel_err"] = rel_err(out.detach(), ref)
        entry["grad_rel_err"] = max(rel_err(x.grad, r) for x, r in zip((qb, kb, vb), ref_grads))
        ok = entry["out_rel_err"] < TOL_OUT and entry["grad_rel_err"] < TOL_GRAD
        entry["matches_math_fp32"] = ok
        if not ok:
            wrong.append("%s (out %.2e, grad %.2e)" % (bname, entry["out_rel_err"], entry["grad_rel_err"]))
        results[bname] = entry
    data["backends"] = results
    data["tolerance"] = {"out": TOL_OUT, "grad": TOL_GRAD, "reference": "math backend in fp32"}

    gs.phase("verify")
    try:
        from torch.profiler import ProfilerActivity, profile
        qb, kb, vb = (x.to(torch.bfloat16).requires_grad_() for x in (q, k, v))
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            out = F.scaled_dot_product_attention(qb, kb, vb, is_causal=True)
            out.backward(g.to(torch.bfloat16))
            torch.cuda.synchronize()
        names = {e.name for e in prof.events()}
        chosen = [b for b, op in ATEN.items() if op in names]
        data["selected"] = chosen[0] if len(chosen) == 1 else (chosen or None)
    except Exception as e:  # the profiler is a means, not the subject: report, go on
        data["selected"] = None
        data["selected_error"] = "%s: %s" % (type(e).__name__, str(e)[:300])
    avail = [b for b, e in results.items() if e.get("available")]
    fast = [b for b in avail if b != "math"]
    if wrong:
        gs.fail("SDPA backends disagree with the math reference on %s: %s" % (arch, "; ".join(wrong)), data)
        return
    if data["selected"] == "math" or not fast:
        gs.warn("SDPA on %s (%s) runs the math backend for a bf16 causal %dx%dx%dx%d call: no fused kernel "
                "(available: %s); expect 5-10x slower attention" % (name, arch, B, H, T, D, ", ".join(avail)), data)
        return
    gs.passed("SDPA on %s: torch picks %s; available %s, all within tolerance of the fp32 math reference"
              % (arch, data["selected"], ", ".join(avail)), data)


gs.run(main)
