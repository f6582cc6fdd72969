#!/usr/bin/env python3
# Compile gpustack's gated-delta-rule Triton kernels (kernels/triton/gdn_chunk.py, the `triton`
# backend of `gpustack probe fla`) for GPUs this machine does not have, at each num_stages, and
# say which depths Triton's own compiler rejects: a table over several archs at once. The compile
# itself is kernels/triton/gdn_compile.py, which `gpustack probe fla --compile-only --target ARCH`
# runs too (one arch, each depth in a watched child, with a report and a verdict), and through it
# `gpustack bisect triton ... --compile-only`. So the compile-time half of the gfx12 FLA failure
# (triton#9815, "'tt.load' op operation destroyed but still has uses", research kernel-specs 4.2)
# can be shown on any Linux box; the run-time deadlock still needs the card.
#
#   python3 -m pip install --target /tmp/triton-3.6 triton==3.6.0    # ~180 MB, no torch needed
#   PYTHONPATH=/tmp/triton-3.6 python3 scripts/triton-cross-compile.py [--archs gfx1201,90] [--stages 1..4]
# Exit 0 when every (arch, kernel, stage) compiled, 1 when some failed, 2 for bad arguments.
# The shapes are Qwen3.5's linear-attention layers (K = V = 128, chunk 64), the probe's defaults.
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "kernels", "triton"))


def stage_list(text):
    if ".." in text:
        a, b = text.split("..", 1)
        return list(range(int(a), int(b) + 1))
    return [int(x) for x in text.split(",")]


def main():
    ap = argparse.ArgumentParser(description="compile gpustack's Triton gated-delta-rule kernels for "
                                 "other GPUs at each num_stages, no GPU needed")
    ap.add_argument("--archs", default="gfx1201,gfx1100,gfx942,gfx90a,90",
                    help="comma-separated: gfxNNNN (HIP) or an sm number such as 90 (CUDA)")
    ap.add_argument("--stages", default="1..4", help="N, A..B or a list such as 1,3")
    ap.add_argument("--num-warps", type=int, default=0, help="default: the probe's (4 on wave32, 2 on wave64)")
    a = ap.parse_args()
    try:
        stages = stage_list(a.stages)
    except ValueError:
        ap.error("--stages: expected N, A..B or a list such as 1,3, got %r" % a.stages)
    try:
        import triton
        import gdn_compile
    except ImportError as e:
        print("triton is not importable (%s): pip install --target DIR triton==3.6.0, then PYTHONPATH=DIR" % e)
        return 2
    print("triton %s, kernels %s" % (triton.__version__, os.path.relpath(os.path.join(HERE, "..", "kernels",
                                                                                      "triton", "gdn_chunk.py"))))
    failures, cells = [], {}
    for arch in a.archs.split(","):
        for s in stages:
            results, linker = gdn_compile.compile_kernels(arch, s, a.num_warps)
            for r in results:
                cells.setdefault((arch, r["function"]), []).append(
                    ("ok %5.1fs" % (r["ms"] / 1e3)) if r["ok"] else ("LINKER " if r["link_tool"] else "FAIL   "))
                if not r["ok"]:
                    failures.append((arch, r["function"], s, r["stage"], r["error"]))
        if linker:
            print("%s: linked with %s (TRITON_HIP_LLD_PATH)" % (arch, linker))
    print("%-8s %-18s %s" % ("arch", "kernel", "  ".join("stage %d" % s for s in stages)))
    for (arch, name), row in cells.items():
        print("%-8s %-18s %s" % (arch, name, "  ".join(row)))
    for arch, name, s, where, why in failures:
        print("failed: %s %s num_stages=%d%s: %s" % (arch, name, s, " (in %s)" % where if where else "", why[:300]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
