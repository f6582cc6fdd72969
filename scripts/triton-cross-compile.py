#!/usr/bin/env python3
# Compile gpustack's gated-delta-rule Triton kernels (kernels/triton/gdn_chunk.py, the `triton`
# backend of `gpustack probe fla`) for GPUs this machine does not have, at each num_stages, and
# say which depths Triton's own compiler rejects. Triton needs no GPU and no torch to compile:
# triton.compile(ASTSource, target=GPUTarget(...)) runs the whole pipeline, the AMD software
# pipeliner included, down to a code object. So the compile-time half of the gfx12 FLA failure
# (triton#9815, "'tt.load' op operation destroyed but still has uses", research kernel-specs 4.2)
# can be shown on any Linux box; the run-time deadlock still needs the card.
#
#   python3 -m pip install --target /tmp/triton-3.6 triton==3.6.0    # ~170 MB, no torch needed
#   PYTHONPATH=/tmp/triton-3.6 python3 scripts/triton-cross-compile.py [--archs gfx1201,90] [--stages 1..4]
# Exit 0 when every (arch, kernel, stage) compiled, 1 when some failed, 2 for bad arguments.
# The shapes are Qwen3.5's linear-attention layers (K = V = 128, chunk 64), the probe's defaults.
import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "kernels", "triton"))


def stage_list(text):
    if ".." in text:
        a, b = text.split("..", 1)
        return list(range(int(a), int(b) + 1))
    return [int(x) for x in text.split(",")]


def target_of(arch):
    from triton.backends.compiler import GPUTarget
    if arch.startswith("gfx"):
        return GPUTarget("hip", arch, 32 if arch.startswith("gfx1") else 64)
    return GPUTarget("cuda", int(arch.removeprefix("sm_")), 32)


def kernels(gdn, arch):
    # RDNA (gfx1x) has 64 KiB of LDS: the probe's launcher halves BV there (gdn_chunk.block_sizes).
    KP, VP, BK, BV = gdn.block_sizes(128, 128, small_smem=arch.startswith("gfx1"))
    ptr = {"b": "*bf16", "f": "*fp32"}
    def sig(spec, consts):
        d = {}
        for item in spec.split():
            name, kind = item.split(":")
            d[name] = ptr.get(kind, kind)
        d.update({k: "constexpr" for k in consts})
        return d
    prep_c = dict(K=128, V=128, KP=KP, VP=VP, BT=gdn.CHUNK, BK=BK, BV=BV)
    state_c = dict(KP=KP, VP=VP, BT=gdn.CHUNK, BV=BV)
    out_c = dict(V=128, KP=KP, VP=VP, BT=gdn.CHUNK, BK=BK, BV=BV)
    return [
        (gdn.gdn_prep_kernel, sig("q:b k:b v:b g:b beta:b qn:b kn:b w:b u:f gc:f T:i32 H:i32 HV:i32 GROUP:i32 scale:fp32", prep_c), prep_c),
        (gdn.gdn_state_kernel, sig("kn:b w:b u:f gc:f hs:b vn:b s_out:f NT:i32", state_c), state_c),
        (gdn.gdn_out_kernel, sig("qn:b kn:b hs:b vn:b gc:f o:b T:i32 HV:i32 NT:i32", out_c), out_c),
    ]


def first_error(text):
    for line in text.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    return text.strip().splitlines()[-1] if text.strip() else ""


def main():
    ap = argparse.ArgumentParser(description="compile gpustack's Triton gated-delta-rule kernels for "
                                 "other GPUs at each num_stages, no GPU needed")
    ap.add_argument("--archs", default="gfx1201,gfx1100,gfx942,gfx90a,90",
                    help="comma-separated: gfxNNNN (HIP) or an sm number such as 90 (CUDA)")
    ap.add_argument("--stages", default="1..4", help="N, A..B or a list such as 1,3")
    ap.add_argument("--num-warps", type=int, default=4)
    a = ap.parse_args()
    try:
        stages = stage_list(a.stages)
    except ValueError:
        ap.error("--stages: expected N, A..B or a list such as 1,3, got %r" % a.stages)
    try:
        import triton
        from triton.compiler import ASTSource
    except ImportError as e:
        print("triton is not importable (%s): pip install --target DIR triton==3.6.0, then PYTHONPATH=DIR" % e)
        return 2
    # A fresh kernel cache unless one is given, so every figure is a real compile.
    os.environ.setdefault("TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="gs-xc-cache-"))
    import gdn_chunk as gdn
    print("triton %s, kernels %s, num_warps %d" % (triton.__version__, os.path.relpath(gdn.__file__), a.num_warps))
    print("%-8s %-18s %s" % ("arch", "kernel", "  ".join("stage %d" % s for s in stages)))
    failures = []
    err_path = os.path.join(tempfile.mkdtemp(prefix="gs-xc-"), "compile.err")
    for arch in a.archs.split(","):
        target = target_of(arch)
        for fn, sig, consts in kernels(gdn, arch):
            cells = []
            for s in stages:
                # Compiler errors go to fd 2 from C++ (MLIR diagnostics): capture them per compile.
                saved = os.dup(2)
                with open(err_path, "w") as f:
                    os.dup2(f.fileno(), 2)
                t0 = time.monotonic()
                try:
                    triton.compile(ASTSource(fn=fn, signature=sig, constexprs=consts), target=target,
                                   options={"num_stages": s, "num_warps": a.num_warps})
                    ok, why = True, ""
                except Exception as e:
                    ok, why = False, str(e)
                finally:
                    os.dup2(saved, 2)
                    os.close(saved)
                took = time.monotonic() - t0
                with open(err_path) as f:
                    text = f.read()
                cells.append(("ok %5.1fs" % took) if ok else "FAIL   ")
                if not ok:
                    failures.append((arch, fn.__name__, s, first_error(text) or why))
            print("%-8s %-18s %s" % (arch, fn.__name__, "  ".join(cells)))
    for arch, name, s, why in failures:
        print("failed: %s %s num_stages=%d: %s" % (arch, name, s, why[:300]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
