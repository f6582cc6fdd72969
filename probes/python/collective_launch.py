# One step of `gpustack probe collective` (issue 20; docs/collective.md): one collective operation
# (all_reduce, all_gather, reduce_scatter, broadcast) over every size, one rank per GPU (or per
# process on the gloo backend), launched through torchrun: torch.distributed is the engine, this
# script only starts it, watches every rank and reports. Or, for op "p2p", the peer-access and copy
# bandwidth matrix between the GPUs, measured here without torchrun.
# Args (GPUSTACK_ARGS): op, backend (auto, nccl, gloo), nproc (0: one per GPU, 2 on gloo), sizes
# (bytes), op_timeout_s, init_timeout_s, fault ({"kind": "hang"|"crash", "rank": R, "op": OP},
# the self-test's).
#
# The watch: each rank appends its state to its own file (collective_worker.py). A step whose
# ranks write nothing new for op_timeout_s (init_timeout_s before every rank is ready) is a hang:
# the ranks waiting inside the operation and those that never reached it are named, every rank
# and torchrun are killed by pid (a rank need not share our process group, so a group kill alone
# could miss it) and each pid is checked gone. torchrun's exit with ranks
# unfinished is a crash: torchrun's own "Root Cause" block names the rank and its exit code.
# Both come back as a "fail" result whose data.outcome says hang or crash: the gpustack side turns
# them into those statuses (a script never claims them on its own).
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import gs_protocol as gs

OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast")
# torchrun's teardown after every rank finished (c10d store shutdown, worker reaping): seconds, more when loaded.
TEARDOWN_S = 30.0


def read_states(run_dir, n, seen):
    """New status lines of every rank since the last call; seen[r] is rank r's list of states."""
    new = False
    for r in range(n):
        path = os.path.join(run_dir, "rank%d.jsonl" % r)
        try:
            with open(path) as f:
                lines = f.read().splitlines()
        except OSError:
            continue
        for line in lines[len(seen[r]):]:
            try:
                seen[r].append(json.loads(line))
                new = True
            except ValueError:
                break  # a line still being written: read it next time
    return new


def describe(state):
    if state is None:
        return "never started"
    s = state["state"]
    if s in ("enter", "done"):
        return "%s %s of %s" % ("inside" if s == "enter" else "finished", state.get("op"), human(state.get("bytes", 0)))
    return {"init": "importing torch", "ready": "ready (process group up)", "finished": "finished"}.get(s, s)


def human(nbytes):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if nbytes >= 1 << shift and nbytes % (1 << shift) == 0:
            return "%d %s" % (nbytes >> shift, unit)
    return "%d B" % nbytes


def free_port():
    """A TCP port nothing listens on now (the kernel's pick for port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def last_error_line(log_text):
    """torchrun's own last words when no rank said anything: its final exception line."""
    for line in reversed(log_text.strip().split("\n")):
        if re.search(r"(Error|Exception)\b.*:", line):
            return line.strip()[:500]
    return None


def pid_gone(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(") ")[-1].startswith("Z")  # a zombie has stopped running
    except OSError:
        return True


def reap(proc, pids):
    """SIGKILL every rank and torchrun; True when every one of them is gone within 10 s."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    proc.kill()
    proc.wait()
    end = time.monotonic() + 10
    while time.monotonic() < end and not all(pid_gone(p) for p in pids):
        time.sleep(0.05)
    return all(pid_gone(p) for p in pids)


def rank_exits(log_text):
    """{rank: exit code} from every entry of torchrun's ChildFailedError summary (its "Root Cause"
    is only the first failure torchrun observed: a rank that raised because its peer died can be
    observed before the peer)."""
    block = log_text[log_text.rfind("ChildFailedError"):] if "ChildFailedError" in log_text else ""
    return {int(r): int(c) for r, c in re.findall(r"rank\s*:\s*(\d+).*?\n\s*exitcode\s*:\s*(-?\d+)", block)}


def crashed_rank(exits, last):
    """The rank that died first on its own: killed by a signal without raising (not torchrun's SIGTERM
    to the survivors), else any rank killed by a signal; (rank, code) or (None, None)."""
    by_signal = [(r, c) for r, c in sorted(exits.items()) if c < 0 and not (last.get(r) and last[r]["state"] == "fail")]
    own = [(r, c) for r, c in by_signal if c != -signal.SIGTERM]
    return (own or by_signal or [(None, None)])[0]


def signal_text(code):
    if code is not None and code < 0:
        try:
            return "signal %d (%s)" % (-code, signal.Signals(-code).name)
        except ValueError:
            return "signal %d" % -code
    return "exit code %s" % code


def p2p_matrix(torch, data):
    """Peer access and copy bandwidth between every pair of GPUs (256 MiB per copy)."""
    n = torch.cuda.device_count()
    data["gpus"] = n
    if n < 2:
        raise gs.Skip("%d GPU visible: no peer to test (the P2P matrix needs two or more)" % n)
    nbytes = 256 << 20
    access = [[i == j or torch.cuda.can_device_access_peer(i, j) for j in range(n)] for i in range(n)]
    gbps = [[None] * n for _ in range(n)]
    wrong = []
    for i in range(n):
        src = (torch.arange(nbytes // 4, dtype=torch.int32, device="cuda:%d" % i) % 65521)
        for j in range(n):
            if i == j:
                continue
            gs.heartbeat()
            dst = src.to("cuda:%d" % j)  # warm-up and the checked copy
            torch.cuda.synchronize(j)
            if not torch.equal(dst.cpu(), src.cpu()):
                wrong.append("%d->%d" % (i, j))
            t0 = time.perf_counter()
            for _ in range(5):
                dst.copy_(src)
            torch.cuda.synchronize(i)
            torch.cuda.synchronize(j)
            gbps[i][j] = nbytes * 5 / (time.perf_counter() - t0) / 1e9
    data.update(access=access, copy_gbps=gbps, bytes=nbytes)
    if wrong:
        gs.fail("GPU-to-GPU copies changed the data: %s" % ", ".join(wrong), data)
        return
    no_peer = ["%d-%d" % (i, j) for i in range(n) for j in range(i + 1, n) if not access[i][j]]
    if no_peer:
        gs.warn("no peer access between GPUs %s: copies and NCCL's P2P transport go through host memory "
                "(lowest copy %.1f GB/s)" % (", ".join(no_peer), min(g for row in gbps for g in row if g)), data)
        return
    gs.passed("peer access between all %d GPUs; copies %.1f-%.1f GB/s" % (
        n, min(g for row in gbps for g in row if g), max(g for row in gbps for g in row if g)), data)


def main(data):
    a = gs.args()
    op = a.get("op", "all_reduce")
    gs.phase("import")
    torch = gs.require("torch")
    data["versions"] = gs.torch_versions(torch)
    if op == "p2p":
        if not torch.cuda.is_available():
            raise gs.Skip("torch sees no GPU: the P2P matrix is between GPUs")
        gs.phase("run")
        p2p_matrix(torch, data)
        return
    if op not in OPS:
        raise ValueError("unknown operation %r" % op)
    import torch.distributed as dist
    if not dist.is_available():
        raise gs.Skip("this torch (%s) is built without torch.distributed" % torch.__version__)
    backend = a.get("backend", "auto")
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if backend == "auto":
        backend = "nccl" if gpus and dist.is_nccl_available() else "gloo"
    if backend == "nccl" and not dist.is_nccl_available():
        raise gs.Skip("this torch (%s) has no NCCL/RCCL backend" % torch.__version__)
    if backend == "nccl" and not gpus:
        raise gs.Skip("the nccl backend needs GPUs and torch sees none")
    if backend == "gloo" and not dist.is_gloo_available():
        raise gs.Skip("this torch (%s) has no gloo backend" % torch.__version__)
    n = int(a.get("nproc") or 0) or (gpus if backend == "nccl" else 2)
    if backend == "nccl" and n > gpus:
        raise gs.Skip("%d ranks asked, torch sees %d GPU(s): one rank per GPU on nccl" % (n, gpus))
    sizes = [int(s) for s in a.get("sizes", [4096])]
    op_timeout = float(a.get("op_timeout_s", 60))
    init_timeout = float(a.get("init_timeout_s", 120))
    data.update(op=op, backend=backend, world_size=n, sizes_asked=sizes)

    run_dir = tempfile.mkdtemp(prefix="gs-collective-")
    worker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "collective_worker.py")
    env = dict(os.environ)
    env["GS_COLLECTIVE"] = json.dumps({"op": op, "backend": backend, "sizes": sizes, "dir": run_dir,
                                       "fault": a.get("fault")})
    env.setdefault("OMP_NUM_THREADS", "1")
    if backend == "gloo":
        env.setdefault("GLOO_SOCKET_IFNAME", "lo")  # one node: the loopback, whatever the hostname resolves to
    # --redirects=1 --tee=2 (each rank's stdout to its own file under log_dir; its stderr there and to
    # torchrun's output, where tracebacks are read): the defaults ("0") break torchrun of torch <= 1.13
    # on Python 3.11, whose Flag enum iterates over single-bit members only, so Std.from_str("0") (and
    # "3") return None: "'NoneType' object has no attribute 'get'". That is Debian 12's python3-torch.
    # The rendezvous on a port of our own, not --standalone: torch <= 1.13's --standalone always
    # takes localhost:29400, so two runs at once (two users, or tests side by side) collide and
    # one fails with "RendezvousConnectionError: The connection to the C10d store has failed".
    port = free_port()
    cmd = [sys.executable, "-m", "torch.distributed.run", "--nnodes=1", "--rdzv_backend=c10d",
           "--rdzv_endpoint=127.0.0.1:%d" % port, "--rdzv_id=gpustack-%d" % os.getpid(),
           "--nproc_per_node=%d" % n, "--max_restarts=0", "--redirects=1", "--tee=2",
           "--log_dir=" + os.path.join(run_dir, "logs"), worker]
    data["command"] = ("torchrun --nnodes=1 --rdzv_backend=c10d --rdzv_endpoint=127.0.0.1:%d --nproc_per_node=%d "
                       "--max_restarts=0 collective_worker.py" % (port, n))
    gs.phase("launch")
    log_path = os.path.join(run_dir, "torchrun.log")
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    seen = {r: [] for r in range(n)}
    last_progress = time.monotonic()
    hang = None
    teardown_killed = False
    phase = "launch"
    while True:
        if read_states(run_dir, n, seen):
            last_progress = time.monotonic()
            gs.heartbeat()
        if phase == "launch" and all(any(s["state"] == "ready" for s in seen[r]) for r in range(n)):
            phase = "run"
            gs.phase("run")
        if proc.poll() is not None:
            read_states(run_dir, n, seen)
            break
        limit = init_timeout if phase == "launch" else op_timeout
        # Every rank done: what is left is torchrun's teardown (the rendezvous store, reaping its
        # workers), which takes seconds on a loaded machine and is no collective hang. It gets its
        # own allowance and, past it, is killed with the results kept.
        finished = all(seen[r] and seen[r][-1]["state"] == "finished" for r in range(n))
        if finished:
            limit = max(limit, TEARDOWN_S)
        if time.monotonic() - last_progress > limit:
            if finished:
                teardown_killed = True
                break
            hang = limit
            break
        time.sleep(0.05)
    with open(log_path, errors="replace") as f:
        log_text = f.read()
    shutil.rmtree(run_dir, ignore_errors=True)
    pids = sorted({s["pid"] for r in range(n) for s in seen[r]})
    last = {r: (seen[r][-1] if seen[r] else None) for r in range(n)}
    data["ranks"] = [{"rank": r, "pid": last[r]["pid"] if last[r] else None, "last": describe(last[r])} for r in range(n)]
    data["log_tail"] = log_text.strip().split("\n")[-12:]

    if hang is not None:
        reaped = reap(proc, pids)
        inside = [r for r in range(n) if last[r] and last[r]["state"] == "enter"]
        where = next((last[r] for r in inside), None)
        missing = [r for r in range(n) if r not in inside]
        what = ("%s of %s" % (where["op"], human(where["bytes"]))) if where else (
            "startup (torchrun's rendezvous and init_process_group)" if phase == "launch" else op)
        if inside and missing:
            who = "rank%s %s waited %.0f s inside it; rank%s %s never reached it (%s)" % (
                "s" if len(inside) > 1 else "", ", ".join(map(str, inside)), hang,
                "s" if len(missing) > 1 else "", ", ".join(map(str, missing)),
                "; ".join("rank %d %s" % (r, describe(last[r])) for r in missing))
        elif inside:
            who = "all %d ranks waited %.0f s inside it: the collective itself does not complete" % (n, hang)
        else:
            who = "no progress for %.0f s (%s)" % (hang, "; ".join("rank %d %s" % (r, describe(last[r])) for r in range(n)))
        data.update(outcome="hang", operation=where["op"] if where else op, bytes=where["bytes"] if where else None,
                    inside=inside, missing=missing, waited_s=hang, reaped=reaped, pids=pids)
        gs.fail("%s hung on %s over %d %s ranks: %s; %s" % (
            op, what, n, backend, who, "every rank and torchrun killed" if reaped else "some ranks did not go away"), data)
        return

    unsupported = [s for r in range(n) for s in seen[r] if s["state"] == "unsupported"]
    if unsupported:
        raise gs.Skip("%s backend: %s (%s)" % (backend, op, unsupported[0].get("error", "not supported")))
    unfinished = [r for r in range(n) if not (last[r] and last[r]["state"] == "finished")]
    if teardown_killed:
        data.update(torchrun_teardown="killed %.0f s after every rank finished" % TEARDOWN_S,
                    reaped=reap(proc, pids), pids=pids)
    elif proc.returncode != 0 or unfinished:
        exits = rank_exits(log_text)
        rank, code = crashed_rank(exits, last)
        reaped = reap(proc, pids)
        data.update(exit_codes={str(r): c for r, c in exits.items()}, reaped=reaped, pids=pids)
        if rank is not None:
            data.update(outcome="crash", rank=rank, exit_code=code)
            gs.fail("%s over %d %s ranks: rank %d died of %s (its last state: %s); torchrun stopped the others" % (
                op, n, backend, rank, signal_text(code), describe(last.get(rank))), data)
            return
        failed = [r for r in range(n) if last[r] and last[r]["state"] == "fail"]
        errors = sorted({last[r].get("error", "") for r in failed}) or [
            last_error_line(log_text) or "torchrun exited with %s" % proc.returncode]
        data["outcome"] = "error"
        gs.fail("%s over %d %s ranks failed%s: %s" % (
            op, n, backend, (" on rank%s %s" % ("s" if len(failed) > 1 else "", ", ".join(map(str, failed)))) if failed else "",
            " | ".join(errors)),
            dict(data, error={"type": "RuntimeError", "message": " | ".join(errors), "traceback": data["log_tail"]}))
        return

    gs.phase("verify")
    per_size = []
    for nbytes in sizes:
        rows = [next((s for s in seen[r] if s["state"] == "done" and s["bytes"] == nbytes), None) for r in range(n)]
        if any(x is None for x in rows):
            continue
        times = [x["time_us"] for x in rows]
        bad = next(((r, x["mismatch"]) for r, x in enumerate(rows) if not x["exact"]), None)
        per_size.append({"bytes": nbytes, "time_us": sum(times) / n, "time_us_max": max(times),
                         "iters": rows[0]["iters"], "exact": bad is None,
                         "mismatch": dict(bad[1], rank=bad[0]) if bad else None})
    data["sizes"] = per_size
    unreported = [human(b) for b in sizes if b not in {s["bytes"] for s in per_size}]
    if unreported:
        gs.result("error", "%s over %d %s ranks finished without every rank reporting %s" % (
            op, n, backend, ", ".join(unreported)), data)
        return
    wrong = [s for s in per_size if not s["exact"]]
    if wrong:
        m = wrong[0]["mismatch"]
        gs.fail("%s over %d %s ranks gave wrong results at %d of %d sizes; first at %s on rank %d: element %d is "
                "%g, expected %g (%d elements differ)" % (
                    op, n, backend, len(wrong), len(per_size), human(wrong[0]["bytes"]), m["rank"], m["index"],
                    m["got"], m["want"], m["count"]), data)
        return
    gs.passed("%s over %d %s ranks: exact at every size, %s to %s" % (
        op, n, backend, human(sizes[0]), human(sizes[-1])), data)


gs.run(main)
