# Compile gpustack's gated-delta-rule Triton kernels (gdn_chunk.py) for a GPU this machine need
# not have: triton.compile(ASTSource, target=GPUTarget(...)) runs Triton's whole pipeline, the AMD
# software pipeliner included, down to a code object, with no GPU and no torch. One home for
# `gpustack probe fla --compile-only` (probes/python/fla_triton_compile.py) and
# scripts/triton-cross-compile.py. It speaks every Triton 3.x compile API: 3.0-3.2 take
# `constants=` (and no constexpr entries in the signature), 3.3 and later `constexprs=` with the
# constexpr parameters typed "constexpr" in the signature. A compile that fails is classified by
# the pipeline stage it failed in (ttir, ttgir, llir, amdgcn/ptx, hsaco/cubin), so a link step
# that the machine's own linker refuses is not mistaken for the compiler's verdict.
import glob
import inspect
import os
import re
import subprocess
import tempfile
import time
import traceback

KERNELS = ("prep", "state", "out")  # gdn_prep_kernel, gdn_state_kernel, gdn_out_kernel


def target_of(arch):
    """GPUTarget of "gfx1201" (HIP, wave32 on gfx1x, wave64 on gfx9) or "90"/"sm_90" (CUDA)."""
    from triton.backends.compiler import GPUTarget
    if arch.startswith("gfx"):
        return GPUTarget("hip", arch, 32 if arch.startswith("gfx1") else 64)
    return GPUTarget("cuda", int(arch.removeprefix("sm_")), 32)


def warp_size_of(arch):
    return 64 if arch.startswith("gfx") and not arch.startswith("gfx1") else 32


def kernel_specs(gdn, arch, K=128, V=128):
    """[(short name, JIT function, {param: type or "constexpr"}, {constexpr: value})] for the
    three kernels at the probe's block sizes. RDNA (gfx1x) has 64 KiB of LDS: the probe's
    launcher halves BV there (gdn_chunk.block_sizes), and so does this."""
    KP, VP, BK, BV = gdn.block_sizes(K, V, small_smem=arch.startswith("gfx1"))
    ptr = {"b": "*bf16", "f": "*fp32"}

    def sig(spec, consts):
        d = {}
        for item in spec.split():
            name, kind = item.split(":")
            d[name] = ptr.get(kind, kind)
        d.update({k: "constexpr" for k in consts})
        return d
    prep_c = dict(K=K, V=V, KP=KP, VP=VP, BT=gdn.CHUNK, BK=BK, BV=BV)
    state_c = dict(KP=KP, VP=VP, BT=gdn.CHUNK, BV=BV)
    out_c = dict(V=V, KP=KP, VP=VP, BT=gdn.CHUNK, BK=BK, BV=BV)
    return [
        ("prep", gdn.gdn_prep_kernel,
         sig("q:b k:b v:b g:b beta:b qn:b kn:b w:b u:f gc:f T:i32 H:i32 HV:i32 GROUP:i32 scale:fp32", prep_c), prep_c),
        ("state", gdn.gdn_state_kernel, sig("kn:b w:b u:f gc:f hs:b vn:b s_out:f NT:i32", state_c), state_c),
        ("out", gdn.gdn_out_kernel, sig("qn:b kn:b hs:b vn:b gc:f o:b T:i32 HV:i32 NT:i32", out_c), out_c),
    ]


def ast_source(triton_compiler, fn, signature, consts):
    """An ASTSource in whichever form this Triton takes."""
    params = inspect.signature(triton_compiler.ASTSource.__init__).parameters
    if "constexprs" in params:
        return triton_compiler.ASTSource(fn=fn, signature=signature, constexprs=consts)
    plain = {k: v for k, v in signature.items() if v != "constexpr"}
    return triton_compiler.ASTSource(fn=fn, signature=plain, constants=consts)


def lld_version(path):
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10).stdout
    except Exception:
        return 0
    m = re.search(r"LLD (\d+)", out)
    return int(m.group(1)) if m else 0


def pick_hip_linker(triton_dir):
    """Triton 3.0-3.4 link AMD code objects with an external ld.lld: TRITON_HIP_LLD_PATH, its own
    copy (wheels built for torch ship one), /opt/rocm/llvm, else /usr/bin/ld.lld, which on Debian 12
    is LLD 14 and refuses the code objects of Triton's LLVM ("unknown abi version"). When the user
    named none and Triton has none, the newest LLD 17 or later that the machine has is named
    instead (Debian: lld-19). Returns the path now in force, "" when Triton picks by itself."""
    if os.environ.get("TRITON_HIP_LLD_PATH"):
        return os.environ["TRITON_HIP_LLD_PATH"]
    if os.path.isfile(os.path.join(triton_dir, "backends", "amd", "llvm", "bin", "ld.lld")) or \
            os.path.isfile("/opt/rocm/llvm/bin/ld.lld"):
        return ""
    best, best_v = "", 16
    for path in glob.glob("/usr/lib/llvm-*/bin/ld.lld"):
        v = lld_version(path)
        if v > best_v:
            best, best_v = path, v
    if best:
        os.environ["TRITON_HIP_LLD_PATH"] = best
    return best


def failing_stage(exc):
    """The Triton pipeline stage a compile died in ("ttgir", "hsaco", ...), from the frame of the
    stage's lambda in the backend's add_stages, or "" when the traceback does not show one."""
    stage = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        m = re.search(r'stages\["(\w+)"\]', frame.line or "")
        if m:
            stage = m.group(1)
    return stage


def first_error(text):
    """The first "error:" line of the compiler's own diagnostics (MLIR prints them on fd 2)."""
    for line in text.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    return ""


def compile_one(fn, signature, consts, target, num_stages, num_warps, err_path):
    """Compile one kernel; {"ok", "ms", "stage" (where it failed), "error", "link_tool"}.
    link_tool is True when the failure is the external linker's (a machine problem, not Triton's
    verdict on the kernel)."""
    import triton
    import triton.compiler as tc
    saved = os.dup(2)  # compiler diagnostics come from C++ on fd 2: capture them per compile
    with open(err_path, "w") as f:
        os.dup2(f.fileno(), 2)
    t0 = time.monotonic()
    res = {"ok": True, "stage": "", "error": "", "link_tool": False}
    try:
        triton.compile(ast_source(tc, fn, signature, consts), target=target,
                       options={"num_stages": num_stages, "num_warps": num_warps})
    except Exception as e:
        res["ok"] = False
        res["stage"] = failing_stage(e)
        res["exc"] = e
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    res["ms"] = round((time.monotonic() - t0) * 1e3, 1)
    if not res["ok"]:
        with open(err_path) as f:
            diag = f.read()
        e = res.pop("exc")
        lines = str(e).strip().splitlines()
        res["error"] = (first_error(diag) or (lines[-1] if lines else type(e).__name__))[:400]
        res["link_tool"] = isinstance(e, subprocess.CalledProcessError) and "lld" in str(e.cmd)
        if res["link_tool"]:
            res["error"] = "%s: %s" % (os.path.basename(str(e.cmd[0])), first_error(diag) or "exit %d" % e.returncode)
    return res


def compile_kernels(arch, num_stages, num_warps=0, names=KERNELS, K=128, V=128):
    """Compile the chosen kernels for `arch` at one depth: (list of per-kernel dicts with "kernel",
    the full function name, and compile_one's fields, the linker named by pick_hip_linker)."""
    import triton
    import gdn_chunk as gdn
    os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="gs-xc-cache-"))
    linker = pick_hip_linker(os.path.dirname(triton.__file__)) if arch.startswith("gfx") else ""
    nw = num_warps or gdn.default_num_warps(warp_size_of(arch))
    target = target_of(arch)
    err_path = os.path.join(tempfile.mkdtemp(prefix="gs-xc-"), "compile.err")
    out = []
    for short, fn, sig, consts in kernel_specs(gdn, arch, K, V):
        if short not in names:
            continue
        r = compile_one(fn, sig, consts, target, num_stages, nw, err_path)
        r.update(kernel=short, function=fn.__name__, num_warps=nw)
        out.append(r)
    return out, linker
