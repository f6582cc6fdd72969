# Step 3 (py.bnb.load): bitsandbytes imports and its native library loaded for this GPU, not
# the CPU fallback. "Importable is not usable" since bitsandbytes 0.46: a failed load leaves a
# mock library that raises only when a kernel is called, so importing proves nothing. We look
# at what cextension actually loaded, check that the 4-bit and int8 entry points are real
# symbols, and run one tiny blockwise quantisation through the native op.
import ctypes

import gs_protocol as gs

# Symbols the NF4 and int8 paths call (csrc/pythonInterface.cpp); present in CUDA and ROCm builds.
SYMBOLS = ("cquantize_blockwise_bf16_nf4", "cdequantize_blockwise_bf16_nf4", "cint8_vector_quant")


def main(data):
    gs.phase("import")
    torch = gs.require("torch")
    data["versions"] = gs.torch_versions(torch)
    with gs.captured_warnings() as said:
        bnb = gs.require("bitsandbytes")
        from bitsandbytes import cextension
    data["versions"]["bitsandbytes"] = getattr(bnb, "__version__", None)
    data["import_messages"] = said[-10:]

    gs.phase("load")
    lib = getattr(cextension, "lib", None)
    backend = getattr(cextension, "BNB_BACKEND", None)
    data["backend"] = backend
    # Look in the instance dict, never through getattr: >= 0.46's library wrappers answer every
    # unknown attribute with a stand-in function (their __getattr__), so getattr(lib, "error_msg")
    # is truthy on a healthy library too.
    own = vars(lib) if lib is not None and hasattr(lib, "__dict__") else {}
    mock_cls = getattr(cextension, "ErrorHandlerMockBNBNativeLibrary", None)
    is_mock = mock_cls is not None and isinstance(lib, mock_cls)
    mock_error = own.get("error_msg") if is_mock else None
    if isinstance(lib, ctypes.CDLL):  # <= 0.43: cextension.lib is the CDLL itself
        handle, compiled = lib, bool(getattr(cextension, "COMPILED_WITH_CUDA", False))
    else:
        handle, compiled = own.get("_lib"), bool(getattr(type(lib), "compiled_with_cuda", False))
    path = getattr(handle, "_name", None) if handle is not None else None
    data["library"] = path
    data["compiled_with_gpu"] = compiled
    cpu_lib = bool(path) and "libbitsandbytes_cpu" in str(path)
    missing = []
    if handle is not None:
        for s in SYMBOLS:
            try:
                getattr(handle, s)
            except AttributeError:
                missing.append(s)
    data["missing_symbols"] = missing
    text = "\n".join(said)
    if lib is None or is_mock or cpu_lib or not compiled:
        why = mock_error or text or "no GPU library loaded"
        gs.result("fail", "bitsandbytes %s fell back to the CPU (backend %s, library %s): %s"
                  % (data["versions"]["bitsandbytes"], backend, path, why.strip().split("\n")[0][:300]),
                  dict(data, error={"type": "bitsandbytes", "message": why[:4000], "traceback": said[-10:]}))
        return
    if missing:
        gs.fail("bitsandbytes' %s lacks %s" % (path, ", ".join(missing)), data)
        return

    gs.phase("launch")
    if not torch.cuda.is_available():
        raise gs.Skip("torch sees no GPU")
    import bitsandbytes.functional as F
    x = torch.randn(64, 64, generator=torch.Generator().manual_seed(3)).to("cuda", torch.bfloat16)
    packed, state = F.quantize_4bit(x, blocksize=64, quant_type="nf4")
    back = F.dequantize_4bit(packed, state)
    gs.phase("sync")
    torch.cuda.synchronize()
    gs.phase("verify")
    err = (back.float() - x.float()).abs().mean().item()
    data["nf4_roundtrip_mean_abs_err"] = err
    # bnb's own test: NF4 blocksize 64 on randn has mean |err| 0.0728 (sigma tiny); 0.15 means garbage.
    if not (err < 0.15):
        gs.fail("a 64x64 NF4 round trip through %s is wrong (mean |err| %.3f, expected ~0.073)"
                % (path, err), data)
        return
    lib_name = path.rsplit("/", 1)[-1] if path else "?"
    gs.passed("bitsandbytes %s loaded %s (%s); NF4 round trip mean |err| %.3f"
              % (data["versions"]["bitsandbytes"], lib_name, backend, err), data)


gs.run(main)
