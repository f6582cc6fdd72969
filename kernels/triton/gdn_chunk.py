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
        return self.outputs()

    def outputs(self):
        """(o, final_state) of the last run: the state cut from its padded [KP, VP] tile."""
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
