# gpustack probe fla --compile-only --target ARCH: the triton backend's kernels (kernels/triton/
# gdn_chunk.py) compiled for ARCH at one num_stages by Triton's own compiler, with no GPU and no
# torch (kernels/triton/gdn_compile.py does the compile). Each depth runs in its own watched
# child, as on a GPU: a pipeliner abort takes only this child down, a compile that never ends is
# killed in phase `compile`.
#
# GPUSTACK_ARGS: {"stage": N, "target": "gfx1201" | "90", "kernels": ["prep", "state", "out"],
#                 "K": 128, "V": 128, "num_warps": optional override}
# Outcome: pass when every chosen kernel compiled; fail when Triton refused one (data.kernels says
# which, in which pipeline stage, with the compiler's first error line); error when the machine's
# linker, not Triton, refused the code object (no verdict on the kernel).
import gs_protocol as gs

gs.phase("import")
(triton, gdn_compile), _import_error = gs.import_early("triton", "gdn_compile")


def main(data):
    a = gs.args()
    stage, target = int(a.get("stage", 1)), str(a.get("target", ""))
    names = [str(k) for k in a.get("kernels", ["prep", "state", "out"])]
    data.update(num_stages=stage, target=target, compile_only=True, kernels_chosen=names)
    gs.need(_import_error, "triton")
    data["versions"] = {"triton": getattr(triton, "__version__", None)}
    if not target:
        raise ValueError("argument target is empty: give a gfx arch or an sm number")
    bad = [k for k in names if k not in gdn_compile.KERNELS]
    if bad or not names:
        raise ValueError("kernels %r: choose from %s" % (bad or names, ", ".join(gdn_compile.KERNELS)))

    gs.phase("compile")
    results, linker = gdn_compile.compile_kernels(target, stage, int(a.get("num_warps", 0) or 0), names,
                                                  int(a.get("K", 128)), int(a.get("V", 128)))
    data["kernels"] = results
    data["compile_ms"] = round(sum(r["ms"] for r in results), 1)
    if linker:
        data["linker"] = linker
    refused = [r for r in results if not r["ok"] and not r["link_tool"]]
    linker_only = [r for r in results if r["link_tool"]]
    if refused:
        r = refused[0]
        gs.fail("num_stages=%d for %s: Triton %s could not compile %s%s: %s"
                % (stage, target, triton.__version__, r["function"], " (in %s)" % r["stage"] if r["stage"] else "",
                   r["error"]), data)
        return
    if linker_only:
        r = linker_only[0]
        gs.result("error", "num_stages=%d for %s: the linker refused %s's code object (%s): not Triton's "
                  "verdict; name an LLD 17 or newer with TRITON_HIP_LLD_PATH (Debian: apt install lld-19)"
                  % (stage, target, r["function"], r["error"]), data)
        return
    gs.passed("num_stages=%d for %s: Triton %s compiled %s (%.1f s)"
              % (stage, target, triton.__version__, ", ".join(r["function"] for r in results),
                 data["compile_ms"] / 1e3), data)


gs.run(main)
