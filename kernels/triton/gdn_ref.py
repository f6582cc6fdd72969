# Reference and inputs for the gated delta rule probes (probes/python/fla_triton.py, fla_fla.py):
# the token-by-token recurrence of research/kernel-specs.md 3.1 in plain torch, run on the GPU in
# float64, and the seeded inputs both backends get. Pure torch: no Triton, no FLA.
#
#   S' = exp(g_t) S;  u_t = beta_t (v_t - S'^T k_t);  S = S' + k_t u_t^T;  o_t = S^T (scale q_t)
#
# with q, k l2-normalised (x / sqrt(sum x^2 + 1e-6)) and value head hv reading qk head
# hv // (HV // H). Vectorised over batch and value heads: one step is ~10 small kernels on a
# [B, HV, K, V] state, so T = 4096 at B = 2, HV = 16, K = V = 128 takes ~40k launches (1-3 s on
# an H200 in float64); on the CPU it is for small shapes only.
#
# Tolerance (the metric is FLA's own, tests/ops/test_gdn.py: rel = ||o - ref||_2 / ||ref||_2 over
# all elements). The chunked kernels round the normalised q/k, w, the chunk states and v_new to
# bf16 (8 significant bits, unit roundoff 2^-9 = 2e-3) before their dots, as FLA does. FLA's test
# accepts 5e-3 for o against a reference fed the *same* bf16-normalised q/k; ours normalises the
# bf16 inputs in float64, so the kernels' own bf16 rounding of qn/kn counts as well. gpustack's
# kernels measured 3.7e-3 (o) and 2.3e-3 (state) at T=200 and T=1024 with the Triton interpreter
# (round-to-nearest-even bf16), flat in T because the gates forget (exp(g) < 0.74 per token); so
# bf16 gets 1e-2: twice FLA's figure, still far below what a miscompiled tile gives (O(1)).
# fp16 (11 significant bits) and float32 inputs (NVIDIA runs fp32 dots as TF32, 11 bits) get 2e-3.
TOLERANCE = {"bf16": 1e-2, "fp16": 2e-3, "fp32": 2e-3}


def torch_dtype(torch, name):
    return {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[name]


def make_inputs(torch, B, T, H, HV, K, V, dtype, device, seed):
    """q, k [B,T,H,K] and v [B,T,HV,V] in `dtype`; g (log-space decay, fp32) and beta [B,T,HV].
    Drawn on the CPU from one seeded generator, so every backend and every stage sees the same
    numbers. g = logsigmoid(U(0,1)) lies in (-0.69, -0.31) and beta = sigmoid(U(0,1)) in
    (0.5, 0.73), the ranges FLA's tests use."""
    gen = torch.Generator().manual_seed(int(seed))
    q = torch.randn(B, T, H, K, generator=gen)
    k = torch.randn(B, T, H, K, generator=gen)
    v = torch.randn(B, T, HV, V, generator=gen)
    g = torch.nn.functional.logsigmoid(torch.rand(B, T, HV, generator=gen))
    beta = torch.rand(B, T, HV, generator=gen).sigmoid()
    to = lambda x, dt: x.to(device=device, dtype=dt).contiguous()
    return to(q, dtype), to(k, dtype), to(v, dtype), to(g, torch.float32), to(beta, dtype)


def l2norm(x, eps=1e-6):
    return x / (x * x).sum(-1, keepdim=True).add(eps).sqrt()


def recurrent_ref(torch, q, k, v, g, beta, scale=None, dtype=None, heartbeat=None):
    """o [B,T,HV,V] and the final state [B,HV,K,V], both in `dtype` (default float64), from the
    inputs as given (already rounded to their own dtype). `heartbeat` is called every 256 steps."""
    dtype = dtype or torch.float64
    B, T, H, K = q.shape
    HV, V = v.shape[2], v.shape[3]
    group = HV // H
    scale = K ** -0.5 if scale is None else scale
    qf = l2norm(q.to(dtype)).repeat_interleave(group, dim=2) * scale
    kf = l2norm(k.to(dtype)).repeat_interleave(group, dim=2)
    vf, gf, bf = v.to(dtype), g.to(dtype), beta.to(dtype)
    S = torch.zeros(B, HV, K, V, dtype=dtype, device=q.device)
    o = torch.empty(B, T, HV, V, dtype=dtype, device=q.device)
    for t in range(T):
        S = S * gf[:, t].exp()[..., None, None]
        kt = kf[:, t]                                              # [B, HV, K]
        pred = torch.einsum("bhk,bhkv->bhv", kt, S)
        ut = bf[:, t][..., None] * (vf[:, t] - pred)               # [B, HV, V]
        S = S + kt[..., :, None] * ut[..., None, :]
        o[:, t] = torch.einsum("bhk,bhkv->bhv", qf[:, t], S)
        if heartbeat is not None and t % 256 == 0:
            heartbeat()
    return o, S


def compare(torch, out, ref):
    """(max_abs_err, rel_err): the largest element difference and FLA's relative 2-norm error.
    NaN/Inf anywhere in `out` makes both infinite."""
    d = out.to(ref.dtype) - ref
    if not bool(torch.isfinite(out).all()):
        return math.inf, math.inf
    max_abs = float(d.abs().max())
    denom = float(ref.norm())
    rel = float(d.norm()) / denom if denom > 0 else (0.0 if max_abs == 0 else math.inf)
    return max_abs, rel


def check_forward(torch, o, state, q, k, v, g, beta, dtype_name, heartbeat=None):
    """A backend's forward (output `o` and final `state`) against the float64 recurrence on the
    same inputs: {max_abs_err, rel_err, state_rel_err, state_max_abs_err, tolerance}, the figures
    every backend reports; it passes when both relative errors are within `tolerance`."""
    ref_o, ref_s = recurrent_ref(torch, q, k, v, g, beta, heartbeat=heartbeat)
    max_abs, rel = compare(torch, o, ref_o)
    s_abs, s_rel = compare(torch, state, ref_s)
    return dict(max_abs_err=max_abs, rel_err=rel, state_rel_err=s_rel, state_max_abs_err=s_abs,
                tolerance=TOLERANCE[dtype_name])
