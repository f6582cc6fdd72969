# One rank of `gpustack probe collective` (issue 20), started by torchrun (torch.distributed.run) from
# collective_launch.py. It runs one collective operation over every size, checks each result for
# exact equality with what the operation must produce, and times it. It speaks to the launcher only
# through its own status file (GS_COLLECTIVE["dir"]/rank<R>.jsonl, one JSON object per line), never
# through stdout, which torchrun shares between ranks:
#   {"state": "init"|"ready"|"enter"|"done"|"unsupported"|"fail"|"finished", "rank", "pid", "t", ...}
# "enter" is written before a call and "done" after it, so a rank stuck inside a collective is one
# whose last line is "enter", and a rank that never reached it is one whose last line is older.
#
# Exactness: every value is a small integer in float32 (24-bit mantissa), so sums are exact and
# the comparison is equality. all_reduce: rank r holds (r+1)*b with b = 1 + i mod 251; the sum is
# b * n(n+1)/2, at most 251 * 36 = 9036 for 8 ranks. all_gather: rank r sends r*256 + i mod 251.
# reduce_scatter: rank r holds (r+1)*b; its output is the r-th chunk of b * n(n+1)/2. broadcast:
# rank 0 holds 7*b, the others zeros, and every rank must end with 7*b.
import ctypes
import json
import os
import signal
import sys
import time

CFG = json.loads(os.environ["GS_COLLECTIVE"])
RANK = int(os.environ["RANK"])
WORLD = int(os.environ["WORLD_SIZE"])
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", RANK))

# Die with torchrun's agent: a rank must not outlive the run that started it (PR_SET_PDEATHSIG = 1).
try:
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
except Exception:
    pass

_status = open(os.path.join(CFG["dir"], "rank%d.jsonl" % RANK), "a", buffering=1)


def say(state, **kv):
    kv.update(state=state, rank=RANK, pid=os.getpid(), t=time.time())
    _status.write(json.dumps(kv) + "\n")
    _status.flush()


def fault_here(op):
    """The self-test's injected fault for this rank and operation: "hang", "crash", "linger" or None."""
    f = CFG.get("fault") or {}
    if f.get("rank") == RANK and f.get("op") in (op, "any"):
        return f.get("kind")
    return None


def pattern(torch, n, device):
    return (torch.arange(n, dtype=torch.int64, device=device) % 251 + 1).to(torch.float32)


def first_mismatch(torch, got, want):
    bad = (got != want).nonzero()
    if bad.numel() == 0:
        return None
    i = int(bad[0].item())
    return {"index": i, "got": float(got.view(-1)[i].item()), "want": float(want.view(-1)[i].item()),
            "count": int(bad.numel())}


def run_once(torch, dist, op, nbytes, device):
    """One call of `op` on fresh inputs of `nbytes` (the operation's size as nccl-tests counts it:
    the reduced buffer, the gathered output, the scattered input, the broadcast buffer); returns the
    first mismatch with the expected result, or None."""
    n = max(WORLD, nbytes // 4)
    n -= n % WORLD  # the gathered and scattered buffers split evenly over the ranks
    tri = WORLD * (WORLD + 1) // 2
    if op == "all_reduce":
        x = pattern(torch, n, device) * (RANK + 1)
        dist.all_reduce(x)
        return first_mismatch(torch, x, pattern(torch, n, device) * tri)
    if op == "all_gather":
        part = n // WORLD
        mine = (torch.arange(part, dtype=torch.int64, device=device) % 251 + RANK * 256).to(torch.float32)
        outs = [torch.empty(part, dtype=torch.float32, device=device) for _ in range(WORLD)]
        dist.all_gather(outs, mine)
        for r, got in enumerate(outs):
            want = (torch.arange(part, dtype=torch.int64, device=device) % 251 + r * 256).to(torch.float32)
            m = first_mismatch(torch, got, want)
            if m:
                m["from_rank"] = r
                return m
        return None
    if op == "reduce_scatter":
        part = n // WORLD
        full = pattern(torch, n, device) * (RANK + 1)
        out = torch.empty(part, dtype=torch.float32, device=device)
        dist.reduce_scatter(out, list(full.chunk(WORLD)))
        return first_mismatch(torch, out, (pattern(torch, n, device) * tri).chunk(WORLD)[RANK])
    if op == "broadcast":
        x = pattern(torch, n, device) * 7 if RANK == 0 else torch.zeros(n, dtype=torch.float32, device=device)
        dist.broadcast(x, 0)
        return first_mismatch(torch, x, pattern(torch, n, device) * 7)
    raise ValueError("unknown operation " + op)


def iterations(nbytes):
    # About 64 MiB moved per size, between 2 and 20 calls: enough to average out the first call's
    # setup without making the 1 GiB size cost more than two calls.
    return max(2, min(20, (64 << 20) // max(nbytes, 1)))


def main():
    op = CFG["op"]
    say("init")
    import torch
    import torch.distributed as dist
    backend = CFG["backend"]
    device = "cpu"
    if backend == "nccl":
        torch.cuda.set_device(LOCAL_RANK)
        device = "cuda:%d" % LOCAL_RANK
    from datetime import timedelta
    # torch's own timeout stays far behind the launcher's, which names the rank and the operation.
    dist.init_process_group(backend, timeout=timedelta(seconds=3600))
    say("ready", backend=backend, device=device)
    sync = torch.cuda.synchronize if device != "cpu" else (lambda: None)
    for nbytes in CFG["sizes"]:
        kind = fault_here(op)
        if kind == "hang":
            while True:  # a rank that never arrives: the others wait inside the collective
                time.sleep(3600)
        if kind == "crash":
            os.kill(os.getpid(), signal.SIGSEGV)
        say("enter", op=op, bytes=nbytes)
        try:
            bad = run_once(torch, dist, op, nbytes, device)
        except RuntimeError as e:
            text = str(e)
            if "not supported" in text.lower() or "does not support" in text.lower():
                say("unsupported", op=op, bytes=nbytes, error=text.strip().split("\n")[0][:300])
                break
            raise
        sync()
        iters = iterations(nbytes)
        bufs = timing_buffers(torch, op, nbytes, device)  # the checked call above was the warm-up
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(iters):
            call_on(dist, op, bufs)
        sync()
        seconds = (time.perf_counter() - t0) / iters
        say("done", op=op, bytes=nbytes, exact=bad is None, mismatch=bad, time_us=seconds * 1e6, iters=iters)
    say("finished")
    if fault_here(op) == "linger":
        time.sleep(5)  # finished, then slow to go: teardown is not a hang
    dist.destroy_process_group()


def timing_buffers(torch, op, nbytes, device):
    """The timing loop's buffers, sized as run_once sizes them (their values do not matter there:
    only the checked call compares results)."""
    n = max(WORLD, nbytes // 4)
    n -= n % WORLD
    if op == "all_gather":
        return torch.zeros(n // WORLD, device=device), [torch.empty(n // WORLD, device=device) for _ in range(WORLD)]
    if op == "reduce_scatter":
        return torch.empty(n // WORLD, device=device), list(torch.zeros(n, device=device).chunk(WORLD))
    return torch.zeros(n, device=device), None


def call_on(dist, op, bufs):
    a, b = bufs
    if op == "all_reduce":
        dist.all_reduce(a)
    elif op == "all_gather":
        dist.all_gather(b, a)
    elif op == "reduce_scatter":
        dist.reduce_scatter(a, b)
    else:
        dist.broadcast(a, 0)


if __name__ == "__main__":
    try:
        main()
    except BaseException as e:
        say("fail", error="%s: %s" % (type(e).__name__, str(e).strip().split("\n")[0][:1000]))
        raise
