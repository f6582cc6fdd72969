# gpustack probe fla, backend `triton`: the gated delta rule chunked forward as gpustack's own
# Triton kernels (kernels/triton/gdn_chunk.py, placed beside this script) at one num_stages,
# checked against the float64 token-by-token recurrence (kernels/triton/gdn_ref.py). One run per
# (backend, stage), each in its own watched child: a pipeliner abort takes only this child down,
# a hang is killed at the phase it happened in.
#
# GPUSTACK_ARGS: {"stage": N, "B", "T", "H", "HV", "K", "V", "chunk": 64, "dtype": "bf16",
#                 "seed": S, "backward": bool, "spin": bool, "num_warps": optional override,
#                 "iters": timed launches (default 20)}
# Phases: import, compile (JITFunction.warmup of the three kernels: build only, nothing runs),
# run (launch, synchronise, time), verify (the reference), backward (forward only here: skip).
# With "spin": true the compile phase also builds spin_kernel and the run phase launches it;
# it never ends, so the watchdog must classify the step `hang` in phase `run`.
import statistics
import time

import gs_protocol as gs

gs.phase("import")
(triton, gdn_chunk), _import_error = gs.import_early("triton", "gdn_chunk")
import fla_args
import gdn_ref


def versions(torch):
    v = gs.torch_versions(torch)
    v["triton"] = getattr(triton, "__version__", None)
    v["fla"] = gs.dist_version("flash-linear-attention") or gs.dist_version("fla-core")
    return v


def target_info(torch):
    """(arch, warp size, small shared memory) of device 0 as Triton sees it."""
    tgt = triton.runtime.driver.active.get_current_target()
    _, arch = gs.device_name(torch, 0)
    smem = None
    try:
        smem = int(triton.runtime.driver.active.utils.get_device_properties(0)["max_shared_mem"])
    except Exception:
        pass
    return tgt.backend, arch, int(getattr(tgt, "warp_size", 32) or 32), smem


def timed_runs(torch, fn, iters):
    """Median milliseconds of `iters` launches after 3 warm-ups, each timed by CUDA/HIP events."""
    return statistics.median(gs.event_times_ms(torch, fn, iters))


def main(data):
    c = fla_args.read(gs.args(), min_stage=1)
    data["num_stages"] = c["stage"]
    data["case"] = {k: c[k] for k in ("B", "T", "H", "HV", "K", "V", "chunk", "dtype", "seed")}
    torch = gs.require("torch")
    gs.need(_import_error, "triton")
    data["versions"] = versions(torch)
    if not torch.cuda.is_available():
        raise gs.Skip("torch sees no GPU (torch.cuda.is_available() is False)")
    backend, arch, warp, smem = target_info(torch)
    nw = int(c["num_warps"]) if c["num_warps"] else gdn_chunk.default_num_warps(warp)
    data.update(arch=arch, backend=backend, warp_size=warp, max_shared_mem=smem, num_warps=nw)
    small = smem is not None and smem < 100 * 1024
    dt = gdn_ref.torch_dtype(torch, c["dtype"])
    q, k, v, g, beta = gdn_ref.make_inputs(torch, c["B"], c["T"], c["H"], c["HV"], c["K"], c["V"], dt,
                                           "cuda", c["seed"])

    gs.phase("compile")
    t0 = time.monotonic()
    launch = gdn_chunk.Launch(q, k, v, g, beta, c["stage"], nw, small_smem=small)
    data["block"] = {"BT": gdn_chunk.CHUNK, "BK": launch.BK, "BV": launch.BV}
    per_kernel = launch.compile()
    flag = out = None
    if c["spin"]:
        flag = torch.zeros(1, dtype=torch.int32, device="cuda")
        out = torch.zeros(1, dtype=torch.int32, device="cuda")
        gdn_chunk.compile_spin(flag, out, c["stage"], nw)
        per_kernel["spin_kernel"] = c["stage"]
    data["compile_ms"] = round((time.monotonic() - t0) * 1e3, 1)
    data["num_stages_by_kernel"] = per_kernel
    data["num_stages_seen"] = sorted(set(int(s) for s in per_kernel.values()))

    gs.phase("run")
    if c["spin"]:
        gdn_chunk.spin(flag, out, c["stage"], nw)
        torch.cuda.synchronize()  # never returns: the watchdog ends this child in phase `run`
        gs.fail("spin_kernel returned (it must never end): the GPU or the compiler skipped the loop", data)
        return
    o, state = launch.run()
    torch.cuda.synchronize()
    data["run_ms"] = round(timed_runs(torch, launch.run, c["iters"]), 4)

    gs.phase("verify")
    err = gdn_ref.check_forward(torch, o, state, q, k, v, g, beta, c["dtype"], heartbeat=gs.heartbeat)
    data.update(err)
    rel, s_rel, tol = err["rel_err"], err["state_rel_err"], err["tolerance"]
    if c["backward"]:
        data["backward"] = {"status": "skip", "detail": "gpustack's Triton kernels are forward only"}
    if not (rel <= tol and s_rel <= tol):
        gs.fail("num_stages=%d: output differs from the float64 recurrence (rel err %.2e, state %.2e, "
                "tolerance %.0e)" % (c["stage"], rel, s_rel, tol), data)
        return
    gs.passed("num_stages=%d num_warps=%d on %s: %.3f ms, rel err %.1e (compile %.0f ms)"
              % (c["stage"], nw, arch, data["run_ms"], rel, data["compile_ms"]), data)


gs.run(main)
