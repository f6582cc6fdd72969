# Step 2 (py.torch): torch imports, sees the GPU through its own build (CUDA or HIP), and a
# tensor op on the GPU matches the CPU. Everything torch-related in the suite depends on it, so
# its skip ("torch is not installed") is the one line a torch-less machine gets.
# Args: expect_gpu (bool: detection found a GPU), device ("auto" or an ordinal).
import gs_protocol as gs


def main(data):
    a = gs.args()
    if a.get("device") == "cpu":
        raise gs.Skip("--device cpu: the Python stack steps test the GPU")
    gs.phase("import")
    torch = gs.require("torch")
    data["versions"] = gs.torch_versions(torch)
    build = "HIP %s" % torch.version.hip if torch.version.hip else (
        "CUDA %s" % torch.version.cuda if torch.version.cuda else "CPU-only")
    data["build"] = build
    try:
        data["arch_list"] = torch.cuda.get_arch_list()
    except Exception:
        data["arch_list"] = []

    gs.phase("load")
    if not torch.cuda.is_available():
        why = None
        try:
            torch.cuda.init()  # raises with the runtime's own words ("Found no NVIDIA driver ...")
        except Exception as e:
            why = e
        msg = "torch %s (%s) sees no GPU" % (torch.__version__, build)
        if a.get("expect_gpu"):
            gs.fail(msg + (": " + str(why).split("\n")[0] if why else ""), data, exc=why)
        else:
            raise gs.Skip(msg + " and gpustack found none on this machine")
        return
    ordinal = int(a["device"]) if str(a.get("device", "")).isdigit() else 0
    count = torch.cuda.device_count()
    data["device_count"] = count
    if ordinal >= count:
        gs.fail("--device %d but torch sees %d GPU(s)" % (ordinal, count), data)
        return
    props = torch.cuda.get_device_properties(ordinal)
    name, arch = gs.device_name(torch, ordinal)
    data["device"] = {"ordinal": ordinal, "name": name, "arch": arch,
                      "total_memory": int(props.total_memory),
                      "multi_processor_count": int(props.multi_processor_count),
                      "warp_size": int(getattr(props, "warp_size", 0)) or None}
    # The wheel's own kernels: an arch missing here is "no kernel image" / hipErrorNoBinaryForGpu.
    listed = [x.split(":")[0] for x in data["arch_list"]]
    data["arch_in_wheel"] = arch in listed if listed else None

    gs.phase("launch")
    dev = torch.device("cuda", ordinal)
    g = torch.Generator().manual_seed(1234)
    x = torch.randn(1 << 20, generator=g)
    y = torch.randn(1 << 20, generator=g)
    a_m = torch.randn(512, 384, generator=g)
    b_m = torch.randn(384, 256, generator=g)
    torch.backends.cuda.matmul.allow_tf32 = False  # judge fp32 as fp32, not TF32's 10-bit mantissa
    s_gpu = (x.to(dev) + y.to(dev))
    m_gpu = a_m.to(dev) @ b_m.to(dev)
    gs.phase("sync")
    torch.cuda.synchronize(dev)

    gs.phase("verify")
    add_exact = bool(torch.equal(s_gpu.cpu(), x + y))  # one IEEE add: bit-exact anywhere
    ref = a_m.double() @ b_m.double()
    err = (m_gpu.cpu().double() - ref).abs().max().item()
    scale = ref.abs().max().item()
    # K=384 fp32 products: rounding error grows ~sqrt(K)*2^-24*|row|*|col|, about 1e-5 of the
    # largest output here; 1e-4 leaves room for any summation order and still catches garbage.
    rel = err / scale
    data["add_bit_exact"] = add_exact
    data["matmul_max_rel_err"] = rel
    data["matmul_tolerance"] = 1e-4
    if not add_exact or not (rel < 1e-4):
        gs.fail("%s on %s: GPU results differ from the CPU (add exact: %s, matmul rel err %.2e)"
                % (build, name, add_exact, rel), data)
        return
    gs.passed("torch %s (%s) on %s (%s): add bit-exact, fp32 matmul rel err %.1e"
              % (torch.__version__, build, name, arch, rel), data)


gs.run(main)
