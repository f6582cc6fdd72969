# Step 5 (py.bnb.nf4): bitsandbytes 4-bit NF4 on this GPU. quantize_4bit's packed bytes and
# absmax go back to gpustack in the golden-vector format (GUIDE "Golden vectors"), where the C++
# side compares them bit for bit with gpustack's own NF4 reference. Here we check what needs no
# reference: the round trip error is NF4's, and Linear4bit's forward agrees with dequantize +
# matmul. bitsandbytes#2087 is exactly that last disagreement: on a ROCm 6.4 wheel NF4
# Linear4bit returned numbers unrelated to the reference (rel err ~1.0) while dequantize was right.
# Args: rows, cols (the quantised matrix, default 64 x 128), seed.
import gs_protocol as gs

LAYOUT = ("input/dequant are row-major float32 (dequant from a float32 input); packed_u8 is "
          "bitsandbytes' packed 4-bit storage flattened")


def linear_check(torch, bnb, F, K, N, M, gen):
    """Linear4bit(x) against x @ dequantize_4bit(W).T, both in fp32 from the same quant state."""
    w = torch.randn(N, K, generator=gen) * 0.05
    layer = bnb.nn.Linear4bit(K, N, bias=False, compute_dtype=torch.bfloat16, quant_type="nf4")
    layer.weight = bnb.nn.Params4bit(w.to(torch.bfloat16), requires_grad=False, quant_type="nf4")
    layer = layer.cuda()
    x = torch.randn(M, K, generator=gen).to("cuda", torch.bfloat16)
    with torch.no_grad():
        y = layer(x).float()
        w_deq = F.dequantize_4bit(layer.weight.data, layer.weight.quant_state).float()
        ref = x.float() @ w_deq.t()
    torch.cuda.synchronize()
    scale = ref.abs().max().item()
    rel = ((y - ref).abs().max().item() / scale) if scale > 0 else float("inf")
    return rel, bool(torch.isfinite(y).all().item())


def main(data):
    a = gs.args()
    rows, cols = int(a.get("rows", 64)), int(a.get("cols", 128))
    seed = int(a.get("seed", 20261202))
    torch, bnb, F, name, arch = gs.bnb_on_gpu(data)

    gs.phase("launch")
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, cols, generator=gen, dtype=torch.float32)
    x[0, :64] = 0.0        # an all-zero block: CUDA's 0*inf=NaN path, code 0 (kernel-specs 1.3)
    x[1, 5] = 40.0         # an outlier: the rest of its block quantises near zero
    packed, state = F.quantize_4bit(x.cuda(), blocksize=64, quant_type="nf4", compress_statistics=False)
    deq = F.dequantize_4bit(packed, state)
    gs.phase("sync")
    torch.cuda.synchronize()
    case = {"kind": "nf4", "blocksize": int(state.blocksize), "nested": False, "shape": [rows, cols],
            "input": x.flatten().tolist(),
            "packed_u8": packed.cpu().view(torch.uint8).flatten().tolist(),
            "absmax": state.absmax.float().cpu().flatten().tolist(),
            "dequant": deq.float().cpu().flatten().tolist()}
    gs.heartbeat()

    gs.phase("verify")
    # Blocks 0-2 hold the planted zero block and the 40.0 outlier (element 133); bnb's own
    # statistics are on plain randn, so the mean is taken from element 192 on.
    body = x.flatten()[192:]
    err = (deq.float().cpu().flatten()[192:] - body).abs().mean().item()
    data["roundtrip_mean_abs_err"] = err
    data["linear4bit"] = {}
    rel_bad = []
    for m in (1, 16):  # M=1 takes the gemv / fused 4-bit kernel, M=16 dequantize + GEMM
        rel, finite = linear_check(torch, bnb, F, 256, 192, m, gen)
        data["linear4bit"]["m%d_max_rel_err" % m] = rel
        if not finite or not rel < 0.03:
            rel_bad.append("M=%d rel err %.3g" % (m, rel))
    data["linear4bit"]["tolerance"] = 0.03  # bf16 output over K=256: ~2^-8 relative, 0.03 is 8x that
    data["golden"] = {"meta": {"source": "bitsandbytes %s under torch %s on %s (%s), by gpustack py.bnb.nf4"
                               % (data["versions"]["bitsandbytes"], torch.__version__, name, arch),
                               "layout": LAYOUT}, "cases": [case]}
    # NF4 blocksize 64 on randn: bnb's own test sees mean |err| 0.0728 with a tiny spread.
    if not 0.05 < err < 0.1:
        gs.fail("NF4 quantize/dequantize round trip mean |err| %.4f, expected ~0.073 (bitsandbytes' "
                "own figure for blocksize 64)" % err, data)
        return
    if rel_bad:
        gs.fail("Linear4bit forward disagrees with dequantize_4bit + matmul (%s): the bitsandbytes#2087 "
                "pattern" % "; ".join(rel_bad), data)
        return
    gs.passed("NF4 on %s: round trip mean |err| %.4f, Linear4bit M=1/16 max rel err %.1e/%.1e"
              % (arch, err, data["linear4bit"]["m1_max_rel_err"], data["linear4bit"]["m16_max_rel_err"]), data)


gs.run(main)
