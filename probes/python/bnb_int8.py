# Step 4 (py.bnb.int8): bitsandbytes LLM.int8() on this GPU. The int8 pieces (row quantisation
# with outlier columns at threshold 6.0, the int32 matmul, the fp16 dequant) and a Linear8bitLt
# forward go back to gpustack in the golden-vector format, where the C++ side recomputes them
# with gpustack's own reference on the same inputs. Here we check what needs no reference:
# Linear8bitLt agrees with the fp32 product to int8 accuracy, and the int32 matmul of the
# quantised rows is exact (it is an integer product).
# Args: m, k, n (default 8 x 64 times 32 x 64, the shape of research/golden), seed.
import gs_protocol as gs

LAYOUT = "int8 A/W/out are float16 values widened to float; CA/CW row-major int8; acc_i32 row-major"


def main(data):
    a = gs.args()
    M, K, N = int(a.get("m", 8)), int(a.get("k", 64)), int(a.get("n", 32))
    seed = int(a.get("seed", 20261203))
    torch, bnb, F, name, arch = gs.bnb_on_gpu(data)

    gs.phase("launch")
    gen = torch.Generator().manual_seed(seed)
    A = (torch.randn(M, K, generator=gen) * 1.5).half()
    A[:, 3] *= 6   # two outlier columns: |x| >= 6 sends them to the fp16 side
    A[:, min(17, K - 1)] *= 6
    W = (torch.randn(N, K, generator=gen) * 0.5).half()
    CA, SCA, outl = F.int8_vectorwise_quant(A.cuda(), threshold=6.0)
    CW, SCW, _ = F.int8_vectorwise_quant(W.cuda())
    acc = F.int8_linear_matmul(CA, CW)
    out = F.int8_mm_dequant(acc, SCA, SCW)
    layer = bnb.nn.Linear8bitLt(K, N, bias=False, has_fp16_weights=False, threshold=6.0)
    layer.weight = bnb.nn.Int8Params(W.clone(), requires_grad=False, has_fp16_weights=False)
    layer = layer.cuda()
    with torch.no_grad():
        y = layer(A.cuda())
    gs.phase("sync")
    torch.cuda.synchronize()

    gs.phase("verify")
    ca, cw, acc_c = CA.cpu(), CW.cpu(), acc.cpu()
    # Integers: |sum| <= 127*127*K ~ 1e6, exact in float64, so any difference is a wrong product.
    exact = bool(torch.equal(acc_c.double(), ca.double() @ cw.double().t()))
    ref = A.float() @ W.float().t()
    rel = (y.float().cpu() - ref).abs().max().item() / ref.abs().max().item()
    data["int32_matmul_exact"] = exact
    data["linear8bitlt_max_rel_err"] = rel
    # Row-wise int8 of both operands: each factor is off by up to 1/254 of its row's absmax, so
    # ~1 % of the largest output; 0.05 still catches a wrong scale or a dropped outlier column.
    data["linear8bitlt_tolerance"] = 0.05
    outl_list = [] if outl is None else sorted(int(c) for c in outl.cpu().flatten().tolist())
    case = {"kind": "int8", "threshold": 6.0, "shape_A": [M, K], "shape_W": [N, K],
            "A": A.float().flatten().tolist(), "W": W.float().flatten().tolist(),
            "CA": ca.flatten().tolist(), "SCA": SCA.float().cpu().flatten().tolist(), "outlier_cols": outl_list,
            "CW": cw.flatten().tolist(), "SCW": SCW.float().cpu().flatten().tolist(),
            "acc_i32": acc_c.flatten().tolist(), "out": out.float().cpu().flatten().tolist(),
            "linear8bitlt_out": y.float().cpu().flatten().tolist()}
    data["golden"] = {"meta": {"source": "bitsandbytes %s under torch %s on %s (%s), by gpustack py.bnb.int8"
                               % (data["versions"]["bitsandbytes"], torch.__version__, name, arch),
                               "layout": LAYOUT}, "cases": [case]}
    if not exact:
        gs.fail("the int8 matmul of the quantised rows is not the exact integer product", data)
        return
    if not rel < 0.05:
        gs.fail("Linear8bitLt forward max rel err %.3g against the fp32 product (tolerance 0.05)" % rel, data)
        return
    gs.passed("LLM.int8 on %s: int32 matmul exact, Linear8bitLt max rel err %.1e, outlier cols %s"
              % (arch, rel, outl_list), data)


gs.run(main)
