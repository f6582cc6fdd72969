# Step 10 (py.triton): Triton compiles and runs two small kernels on this GPU: a vector add
# (bit-exact against torch) and a tiled matmul whose K loop runs with num_stages=2, so the
# software pipeliner that Triton 3.6.0 breaks on AMD (triton#9815: "'tt.load' op operation
# destroyed but still has uses") is exercised. Reports the target Triton compiles for
# (backend, arch, warp size) from triton.runtime.driver.active.get_current_target().
import time

import gs_protocol as gs

# @triton.jit needs its kernels at module level (it reads their source), so triton is imported
# here; whether its absence is a skip or its failure a fail is decided in main().
gs.phase("import")
(triton, tl), _import_error = gs.import_early("triton", "triton.language")

if triton is not None:
    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)

    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                      STAGES: tl.constexpr):
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rn = tl.program_id(1) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in tl.range(0, K, BK, num_stages=STAGES):
            a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
            b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
            acc += tl.dot(a, b)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def main(data):
    torch = gs.require("torch")
    gs.need(_import_error, "triton")
    data["versions"] = gs.torch_versions(torch)
    data["versions"]["triton"] = triton.__version__
    if not torch.cuda.is_available():
        raise gs.Skip("torch sees no GPU")
    tgt = triton.runtime.driver.active.get_current_target()
    data["target"] = {"backend": tgt.backend, "arch": str(tgt.arch), "warp_size": int(tgt.warp_size)}

    gs.phase("compile")  # the first launch JIT-compiles (or loads ~/.triton/cache)
    n = 4096 + 3
    gen = torch.Generator().manual_seed(5)
    x, y = torch.randn(n, generator=gen).cuda(), torch.randn(n, generator=gen).cuda()
    out = torch.empty_like(x)
    t0 = time.monotonic()
    add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    M = N = K = 128
    a = torch.randn(M, K, generator=gen).to("cuda", torch.float16)
    b = torch.randn(K, N, generator=gen).to("cuda", torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float32)
    matmul_kernel[(M // 64, N // 64)](a, b, c, M, N, K, BM=64, BN=64, BK=32, STAGES=2)
    gs.phase("sync")
    torch.cuda.synchronize()
    data["first_launch_s"] = round(time.monotonic() - t0, 3)

    gs.phase("verify")
    add_exact = bool(torch.equal(out, x + y))
    ref = a.float() @ b.float()
    rel = (c - ref).abs().max().item() / ref.abs().max().item()
    data["add_bit_exact"] = add_exact
    data["matmul_max_rel_err"] = rel
    # fp16 inputs are exact in fp32; only accumulation order differs: K=128 -> ~1e-6. 1e-3 allows
    # TF32-like internal paths and still catches a wrong tile.
    data["matmul_tolerance"] = 1e-3
    if not add_exact or not rel < 1e-3:
        gs.fail("Triton kernels ran but gave wrong results (add exact %s, matmul rel err %.2e)" % (add_exact, rel),
                data)
        return
    gs.passed("triton %s compiles for %s %s (warp %d): add bit-exact, pipelined matmul rel err %.1e"
              % (triton.__version__, tgt.backend, tgt.arch, tgt.warp_size, rel), data)


gs.run(main)
