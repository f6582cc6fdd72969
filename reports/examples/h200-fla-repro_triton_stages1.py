#!/usr/bin/env python3
# Standalone reproducer of `gpustack probe fla` step fla.triton.stages1 (fail at phase run), written by gpustack 0.1.0.
# Backend triton: gpustack's gated-delta-rule Triton kernels at one num_stages.
# GPU arch sm_90; fla 0.5.0, python 3.12.3, torch 2.11.0+cu130, torch_cuda 13.0, triton 3.6.0
# What gpustack saw:
#   AcceleratorError: CUDA error: an illegal memory access was encountered
#   Search for `cudaErrorIllegalAddress' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.
#   CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
#   For debugging consider passing CUDA_LAUNCH_BLOCKING=1
#   Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.
# Run: python3 repro_fla_triton_stages1.py   (exit 1: reproduced; 0: passed here; 2: no GPU)
# Under NVIDIA's sanitizer: compute-sanitizer --tool memcheck python3 repro_fla_triton_stages1.py
# Exit 3: torch, triton is missing here.
import json
import sys

try:
    import torch  # noqa: F401
    import triton  # noqa: F401
except ImportError as e:
    print("cannot run: %s" % e)
    sys.exit(3)

CASE = json.loads(r'''{"B":2,"H":16,"HV":16,"K":128,"T":4096,"V":128,"dtype":"bf16","num_stages":1,"num_warps":4,"seed":20261202,"small_smem":false}''')


# ---- kernels/triton/gdn_ref.py (gpustack) ----
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


# ---- kernels/triton/gdn_chunk.py (gpustack) ----
# The gated delta rule (GatedDeltaNet) chunked forward as three Triton kernels, written from the
# recurrence in research/kernel-specs.md 3.1 and the chunk (WY/UT) algebra of 3.5, for
# `gpustack probe fla` (the `triton` backend, probes/python/fla_triton.py). Every launch takes
# `num_stages` and `num_warps` from the caller, so the probe can sweep the software-pipeline depth
# that Triton 3.6.0's AMD pipeliner breaks (kernel-specs 4.2) on a kernel whose loops look like
# flash-linear-attention's: several loads per iteration feeding tl.dot plus exp() gating.
#
# Per value head hv (qk head hv // (HV // H)), chunk c of BT = 64 tokens, state S [K, V] in fp32:
#   qn, kn   = q, k / sqrt(sum(x^2) + 1e-6)            (l2norm, eps inside the sqrt); qn *= K^-0.5
#   G        = cumsum of g inside the chunk              (g <= 0, natural-log space)
#   A[i, j]  = beta_i (kn_i . kn_j) exp(G_i - G_j), i > j; Tm = (I + A)^-1   (forward substitution)
#   w        = Tm (beta exp(G) kn)      u = Tm (beta v)
#   v_new    = u - w S
#   o        = exp(G) (qn S) + tril_{i>=j}(qn kn^T exp(G_i - G_j)) v_new
#   S       <- exp(G_last) S + kn^T (exp(G_last - G) v_new)
# Kernels: gdn_prep (per chunk: norms, A, Tm, w, u), gdn_state (per head: the chunk-serial state
# loop; loads kn, w, u, G each iteration: this is the loop the pipeliner rewrites) and gdn_out
# (per chunk: a K-blocked qn S / qn kn^T loop, then the intra-chunk term). Intermediates qn, kn,
# w, chunk states and v_new are stored in the input dtype (bf16 like FLA's), u and G in fp32,
# the running state stays in fp32 registers and the final state is returned in fp32.
#
# Shared memory per pipeline stage of gdn_state at K = 128, BV = 32, bf16: kn and w tiles
# 2 x 64 x 128 x 2 B = 32 KiB, u 64 x 32 x 4 B = 8 KiB, so 4 stages stay under an H200's 227 KiB;
# on a 64 KiB-LDS RDNA GPU the launcher halves BV (a compile-time OutOfResources is reported as
# that, not as the pipeliner bug).
#
# spin_kernel never ends: it loops while a value it re-reads (volatile) from memory equals the
# value it read first. Nothing writes it, but the compiler cannot prove that, so the loop stays.
import triton
import triton.language as tl

CHUNK = 64


@triton.jit
def gdn_prep_kernel(q, k, v, g, beta, qn, kn, w, u, gc,
                    T, H, HV, GROUP, scale,
                    K: tl.constexpr, V: tl.constexpr, KP: tl.constexpr, VP: tl.constexpr,
                    BT: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr):
    c = tl.program_id(0)
    bh = tl.program_id(1)  # b * HV + hv
    b = bh // HV
    hv = bh % HV
    h = hv // GROUP
    TP = tl.num_programs(0) * BT  # padded length of the intermediates
    rows = c * BT + tl.arange(0, BT)
    rmask = rows < T
    ar = tl.arange(0, BT)

    # Gates: in-chunk cumulative sum of g; padded rows carry g = 0, beta = 0 (no effect).
    gv = tl.load(g + (b * T + rows) * HV + hv, mask=rmask, other=0.0).to(tl.float32)
    bt = tl.load(beta + (b * T + rows) * HV + hv, mask=rmask, other=0.0).to(tl.float32)
    G = tl.cumsum(gv, axis=0)
    tl.store(gc + bh * TP + rows, G)

    # Pass 1: squared norms of q and k rows, K in BK-wide blocks.
    q_row = q + ((b * T + rows) * H + h) * K
    k_row = k + ((b * T + rows) * H + h) * K
    qss = tl.zeros([BT], dtype=tl.float32)
    kss = tl.zeros([BT], dtype=tl.float32)
    for k0 in tl.range(0, KP, BK):
        cols = k0 + tl.arange(0, BK)
        m = rmask[:, None] & (cols < K)[None, :]
        qb = tl.load(q_row[:, None] + cols[None, :], mask=m, other=0.0).to(tl.float32)
        kb = tl.load(k_row[:, None] + cols[None, :], mask=m, other=0.0).to(tl.float32)
        qss += tl.sum(qb * qb, axis=1)
        kss += tl.sum(kb * kb, axis=1)
    qr = scale / tl.sqrt(qss + 1e-6)
    kr = 1.0 / tl.sqrt(kss + 1e-6)

    # Pass 2: normalised rows stored (input dtype, padded to KP) and kn kn^T accumulated in fp32.
    kk = tl.zeros([BT, BT], dtype=tl.float32)
    for k0 in tl.range(0, KP, BK):
        cols = k0 + tl.arange(0, BK)
        m = rmask[:, None] & (cols < K)[None, :]
        qb = tl.load(q_row[:, None] + cols[None, :], mask=m, other=0.0).to(tl.float32) * qr[:, None]
        kb = tl.load(k_row[:, None] + cols[None, :], mask=m, other=0.0).to(tl.float32) * kr[:, None]
        dst = bh * TP * KP + rows[:, None] * KP + cols[None, :]
        tl.store(qn + dst, qb.to(qn.dtype.element_ty))
        tl.store(kn + dst, kb.to(kn.dtype.element_ty))
        kk += tl.dot(kb, tl.trans(kb))

    # At[j, i] = A[i, j] = beta_i kk[i, j] exp(G_i - G_j) for i > j (kk is symmetric), so row i
    # of A is column i of At and every vector below keeps one layout (no shuffles per step).
    upper = ar[None, :] > ar[:, None]
    At = tl.where(upper, kk * bt[None, :] * tl.exp(tl.where(upper, G[None, :] - G[:, None], 0.0)), 0.0)
    # Tm = (I + A)^-1 row by row: Tm[i, :] = e_i - sum_{j<i} A[i, j] Tm[j, :]. Rows >= i are
    # still identity rows and meet A[i, j] = 0, so the full sum is the right one. 63 steps of
    # two 64 x 64 masked reductions: cheap next to the state loop, and exact in fp32.
    Tm = tl.where(ar[:, None] == ar[None, :], 1.0, 0.0)
    for i in range(1, BT):
        a_i = tl.sum(tl.where(ar[None, :] == i, At, 0.0), axis=1)
        t_i = tl.where(ar == i, 1.0, 0.0) - tl.sum(a_i[:, None] * Tm, axis=0)
        Tm = tl.where(ar[:, None] == i, t_i[None, :], Tm)

    # w = Tm (beta exp(G) kn), K in blocks (re-reading the kn just stored by this program).
    coef = bt * tl.exp(G)
    for k0 in tl.range(0, KP, BK):
        cols = k0 + tl.arange(0, BK)
        src = bh * TP * KP + rows[:, None] * KP + cols[None, :]
        kb = tl.load(kn + src).to(tl.float32) * coef[:, None]
        tl.store(w + src, tl.dot(Tm, kb).to(w.dtype.element_ty))
    # u = Tm (beta v), V in blocks, fp32.
    v_row = v + ((b * T + rows) * HV + hv) * V
    for v0 in tl.range(0, VP, BV):
        cols = v0 + tl.arange(0, BV)
        m = rmask[:, None] & (cols < V)[None, :]
        vb = tl.load(v_row[:, None] + cols[None, :], mask=m, other=0.0).to(tl.float32) * bt[:, None]
        tl.store(u + bh * TP * VP + rows[:, None] * VP + cols[None, :], tl.dot(Tm, vb))


@triton.jit
def gdn_state_kernel(kn, w, u, gc, hs, vn, s_out, NT,
                     KP: tl.constexpr, VP: tl.constexpr, BT: tl.constexpr, BV: tl.constexpr):
    vb = tl.program_id(0)
    bh = tl.program_id(1)
    TP = NT * BT
    ar = tl.arange(0, BT)
    ck = tl.arange(0, KP)
    cv = vb * BV + tl.arange(0, BV)
    S = tl.zeros([KP, BV], dtype=tl.float32)
    for c in tl.range(0, NT):
        rows = c * BT + ar
        kc = tl.load(kn + bh * TP * KP + rows[:, None] * KP + ck[None, :])
        wc = tl.load(w + bh * TP * KP + rows[:, None] * KP + ck[None, :])
        uc = tl.load(u + bh * TP * VP + rows[:, None] * VP + cv[None, :])
        G = tl.load(gc + bh * TP + rows)
        # The state entering chunk c, for gdn_out (input dtype, like FLA's h).
        tl.store(hs + ((bh * NT + c) * KP + ck[:, None]) * VP + cv[None, :], S.to(hs.dtype.element_ty))
        v_new = uc - tl.dot(wc, S.to(wc.dtype))
        tl.store(vn + bh * TP * VP + rows[:, None] * VP + cv[None, :], v_new.to(vn.dtype.element_ty))
        g_last = tl.sum(tl.where(ar == BT - 1, G, 0.0), axis=0)
        decay = tl.exp(g_last - G)
        S = S * tl.exp(g_last) + tl.dot(tl.trans(kc), (v_new * decay[:, None]).to(kc.dtype))
    tl.store(s_out + (bh * KP + ck[:, None]) * VP + cv[None, :], S)


@triton.jit
def gdn_out_kernel(qn, kn, hs, vn, gc, o, T, HV, NT,
                   V: tl.constexpr, KP: tl.constexpr, VP: tl.constexpr,
                   BT: tl.constexpr, BK: tl.constexpr, BV: tl.constexpr):
    vb = tl.program_id(0)
    c = tl.program_id(1)
    bh = tl.program_id(2)
    b = bh // HV
    hv = bh % HV
    TP = NT * BT
    ar = tl.arange(0, BT)
    rows = c * BT + ar
    cv = vb * BV + tl.arange(0, BV)
    inter = tl.zeros([BT, BV], dtype=tl.float32)
    att = tl.zeros([BT, BT], dtype=tl.float32)
    for k0 in tl.range(0, KP, BK):
        ck = k0 + tl.arange(0, BK)
        qc = tl.load(qn + bh * TP * KP + rows[:, None] * KP + ck[None, :])
        kc = tl.load(kn + bh * TP * KP + rows[:, None] * KP + ck[None, :])
        hc = tl.load(hs + ((bh * NT + c) * KP + ck[:, None]) * VP + cv[None, :])
        inter += tl.dot(qc, hc)
        att += tl.dot(qc, tl.trans(kc))
    G = tl.load(gc + bh * TP + rows)
    causal = ar[:, None] >= ar[None, :]
    att = tl.where(causal, att * tl.exp(tl.where(causal, G[:, None] - G[None, :], 0.0)), 0.0)
    vc = tl.load(vn + bh * TP * VP + rows[:, None] * VP + cv[None, :])
    out = inter * tl.exp(G)[:, None] + tl.dot(att.to(vc.dtype), vc)
    m = (rows < T)[:, None] & (cv < V)[None, :]
    tl.store(o + ((b * T + rows[:, None]) * HV + hv) * V + cv[None, :], out.to(o.dtype.element_ty), mask=m)


@triton.jit
def spin_kernel(flag, out):
    first = tl.load(flag)
    n = 0
    while tl.load(flag, volatile=True) == first:
        n += 1
    tl.store(out, n)


def _pow2(n):
    return max(16, triton.next_power_of_2(n))


def block_sizes(K, V, small_smem=False):
    """(KP, VP, BK, BV): padded widths, the K block of the prep/out loops and the V block."""
    KP, VP = _pow2(K), _pow2(V)
    BV = min(VP, 16 if small_smem else 32)
    return KP, VP, min(KP, 64), BV


class Launch:
    """The three launches of one forward with fixed shapes and launch options. compile() builds
    every kernel without running it (JITFunction.warmup) and returns the num_stages each one
    was built with; run() launches them and returns (o, final_state)."""

    def __init__(self, q, k, v, g, beta, num_stages, num_warps, scale=None, small_smem=False):
        import torch
        B, T, H, K = q.shape
        HV, V = v.shape[2], v.shape[3]
        if HV % H:
            raise ValueError("HV (%d) must be a multiple of H (%d)" % (HV, H))
        self.args = (q, k, v, g, beta)
        self.shape = (B, T, H, HV, K, V)
        self.scale = float(K ** -0.5 if scale is None else scale)
        self.opts = {"num_stages": int(num_stages), "num_warps": int(num_warps)}
        self.KP, self.VP, self.BK, self.BV = block_sizes(K, V, small_smem)
        self.NT = triton.cdiv(T, CHUNK)
        TP = self.NT * CHUNK
        dev, dt = q.device, q.dtype
        f32 = torch.float32
        self.qn = torch.empty(B * HV, TP, self.KP, device=dev, dtype=dt)
        self.kn = torch.empty_like(self.qn)
        self.w = torch.empty_like(self.qn)
        self.u = torch.empty(B * HV, TP, self.VP, device=dev, dtype=f32)
        self.vn = torch.empty(B * HV, TP, self.VP, device=dev, dtype=dt)
        self.gc = torch.empty(B * HV, TP, device=dev, dtype=f32)
        self.hs = torch.empty(B * HV, self.NT, self.KP, self.VP, device=dev, dtype=dt)
        self.s = torch.empty(B * HV, self.KP, self.VP, device=dev, dtype=f32)
        self.o = torch.empty(B, T, HV, V, device=dev, dtype=dt)
        # The kernels index with 32-bit offsets: 2^31 elements per tensor at most.
        biggest = max(x.numel() for x in (q, v, self.qn, self.u, self.hs))
        if biggest >= 2 ** 31:
            raise ValueError("shape too large for 32-bit offsets (%d elements in one tensor)" % biggest)

    def _calls(self):
        B, T, H, HV, K, V = self.shape
        q, k, v, g, beta = self.args
        nv = self.VP // self.BV
        return [
            (gdn_prep_kernel, (self.NT, B * HV),
             (q, k, v, g, beta, self.qn, self.kn, self.w, self.u, self.gc, T, H, HV, HV // H, self.scale),
             dict(K=K, V=V, KP=self.KP, VP=self.VP, BT=CHUNK, BK=self.BK, BV=self.BV)),
            (gdn_state_kernel, (nv, B * HV),
             (self.kn, self.w, self.u, self.gc, self.hs, self.vn, self.s, self.NT),
             dict(KP=self.KP, VP=self.VP, BT=CHUNK, BV=self.BV)),
            (gdn_out_kernel, (nv, self.NT, B * HV),
             (self.qn, self.kn, self.hs, self.vn, self.gc, self.o, T, HV, self.NT),
             dict(V=V, KP=self.KP, VP=self.VP, BT=CHUNK, BK=self.BK, BV=self.BV)),
        ]

    def compile(self):
        seen = {}
        for fn, grid, args, meta in self._calls():
            ck = fn.warmup(*args, grid=grid, **meta, **self.opts)
            md = getattr(ck, "metadata", None)
            stages = getattr(md, "num_stages", None)
            if stages is None and isinstance(md, dict):
                stages = md.get("num_stages")
            seen[fn.__name__] = stages if stages is not None else self.opts["num_stages"]
        return seen

    def run(self):
        for fn, grid, args, meta in self._calls():
            fn[grid](*args, **meta, **self.opts)
        B, T, H, HV, K, V = self.shape
        return self.o, self.s.view(B, HV, self.KP, self.VP)[:, :, :K, :V]


def default_num_warps(warp_size):
    """4 warps (128 lanes) on wave32 (NVIDIA, RDNA); the tiles are sized for 128 lanes, so a
    wave64 CDNA GPU gets 2 warps: the same 128 lanes, the same registers per lane."""
    return max(1, 128 // max(1, int(warp_size or 32)))


def spin(flag, out, num_stages, num_warps):
    """Launch spin_kernel (flag: a 1-element int32 tensor nothing writes). Never completes."""
    spin_kernel[(1,)](flag, out, num_stages=num_stages, num_warps=num_warps)


def compile_spin(flag, out, num_stages, num_warps):
    spin_kernel.warmup(flag, out, grid=(1,), num_stages=num_stages, num_warps=num_warps)


# ---- probes/python/repro_triton_main.py (gpustack) ----
# The main part of a standalone reproducer that `gpustack probe fla --emit-repro` writes for a
# failing step of the `triton` backend. The reproducer is one file: CASE (the step's shape, seed,
# num_stages and num_warps), then kernels/triton/gdn_ref.py and kernels/triton/gdn_chunk.py
# verbatim, then this; it uses their names directly and needs torch and triton, nothing of
# gpustack. The three kernels are launched one at a time with a synchronize after each, so the
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
    B, T, H, HV, K, V = launch.shape
    o, state = launch.o, launch.s.view(B, HV, launch.KP, launch.VP)[:, :, :K, :V]
    ref_o, ref_s = recurrent_ref(torch, q, k, v, g, beta)
    _, rel = compare(torch, o, ref_o)
    _, s_rel = compare(torch, state, ref_s)
    tol = TOLERANCE[c["dtype"]]
    if not (rel <= tol and s_rel <= tol):
        print("FAILED  output differs from the float64 recurrence: rel err %.2e, state %.2e (tolerance %.0e)"
              % (rel, s_rel, tol))
        return 1
    print("PASSED  rel err %.1e, state %.1e (tolerance %.0e): the failure did not reproduce" % (rel, s_rel, tol))
    return 0


if __name__ == "__main__":
    sys.exit(_reproduce(CASE))
