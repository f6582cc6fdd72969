# The Python side of gpustack's probe protocol (src/python/script_runner.h; docs/python-probes.md).
# gpustack writes this file beside a probe script in a private temp dir and runs
# `python -u script.py`; the script talks back on stdout, one line per message:
#   @gs phase <name>      @gs heartbeat      @gs result {"status": ..., "detail": ..., "data": {...}}
# Anything else a library prints is log. Pure standard library: it must import where nothing
# else does, since telling "torch is missing" apart from "torch is broken" is its first job.
import contextlib
import importlib
import json
import math
import os
import sys
import time
import traceback

_out = sys.__stdout__
_sent = False
_last_beat = 0.0
STATUSES = ("pass", "warn", "fail", "skip", "error")


def _emit(line):
    _out.write("\n@gs " + line + "\n")  # leading newline: never glued to a library's half line
    _out.flush()


def args():
    """The probe's arguments: GPUSTACK_ARGS as a dict ({} when absent or unreadable)."""
    try:
        a = json.loads(os.environ.get("GPUSTACK_ARGS") or "{}")
        return a if isinstance(a, dict) else {}
    except ValueError:
        return {}


def phase(name):
    """Enter a phase: import, load, compile, launch, sync, verify (gpustack's deadlines are per phase)."""
    _emit("phase " + name)


def heartbeat():
    """Still alive; at most one line per 100 ms reaches gpustack."""
    global _last_beat
    now = time.monotonic()
    if now - _last_beat >= 0.1:
        _last_beat = now
        _emit("heartbeat")


def _clean(v):
    # JSON has no NaN or Infinity; gpustack's parser would reject the whole result.
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    if isinstance(v, dict):
        return {str(k): _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    if v is None or isinstance(v, (bool, int, str)):
        return v
    return str(v)


def result(status, detail, data=None):
    """Send the one result; later calls are ignored."""
    global _sent
    if _sent:
        return
    if status not in STATUSES:
        raise ValueError("unknown status " + repr(status))
    _sent = True
    payload = {"status": status, "detail": str(detail), "data": _clean(data or {})}
    _emit("result " + json.dumps(payload, allow_nan=False, separators=(",", ":")))


def passed(detail, data=None):
    result("pass", detail, data)


def warn(detail, data=None):
    result("warn", detail, data)


def skip(reason, data=None):
    result("skip", reason, data)


def error_info(exc, limit=12):
    """type, message and the last `limit` lines of the traceback of an exception."""
    lines = traceback.format_exception(type(exc), exc, exc.__traceback__)
    flat = "".join(lines).rstrip("\n").split("\n")
    return {"type": type(exc).__name__, "message": str(exc)[:4000], "traceback": flat[-limit:]}


def fail(detail, data=None, exc=None):
    """A failing step; with `exc`, data.error holds its type, message and traceback tail."""
    data = dict(data or {})
    if exc is not None:
        data["error"] = error_info(exc)
    result("fail", detail, data)


class Skip(Exception):
    """Raise to end the step as `skip` with this reason."""


def require(module, dist=None, why=None):
    """Import `module`; if it (the top-level package itself) is not installed, the step is a
    clean skip saying so. Any other import failure (a broken native library, a missing
    dependency inside it) propagates and fails the step with its traceback."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        top = module.split(".")[0]
        if e.name in (module, top):
            raise Skip("%s is not installed in %s%s" % (dist or top, sys.executable,
                                                       (": " + why) if why else "")) from None
        raise


def import_early(*modules):
    """Import `modules` now, in phase `import`, when a script needs them at module level (Triton
    kernels are defined there): a list of the modules, or Nones and the exception, which main()
    hands to need() so that a missing package is a skip and a broken one a fail, as require()."""
    try:
        return [importlib.import_module(m) for m in modules], None
    except Exception as e:
        return [None] * len(modules), e


def need(error, top):
    """After import_early: nothing when it worked; Skip when `top` itself is not installed; else
    the import's own exception (a broken native library fails the step with its traceback)."""
    if error is None:
        return
    if isinstance(error, ModuleNotFoundError) and error.name == top:
        raise Skip("%s is not installed in %s" % (top, sys.executable))
    raise error


def dist_version(name):
    """The installed version of a distribution, or None."""
    try:
        from importlib import metadata
        return metadata.version(name)
    except Exception:
        return None


def torch_versions(torch):
    """The versions a torch step used: torch, its CUDA or HIP, cuDNN, the Python."""
    v = {"python": sys.version.split()[0], "torch": torch.__version__,
         "torch_cuda": getattr(torch.version, "cuda", None), "torch_hip": getattr(torch.version, "hip", None)}
    try:
        v["cudnn"] = torch.backends.cudnn.version()
    except Exception:
        v["cudnn"] = None
    return v


def device_name(torch, index):
    props = torch.cuda.get_device_properties(index)
    # CUDA builds have gcnArchName too (torch 2.11+cu130 on the H200 sets it to "NVIDIA H200"):
    # it is the arch only on a HIP build, where it reads "gfx1201:sramecc-:xnack-".
    if getattr(torch.version, "hip", None) and getattr(props, "gcnArchName", None):
        return props.name, props.gcnArchName.split(":")[0]
    return props.name, "sm_%d%d" % (props.major, props.minor)


# Cycles torch.cuda._sleep holds the stream for before the timed calls: ~4 ms at 2 GHz, so the
# host can queue 10-50 calls at 20-80 us of Python dispatch each before the GPU reaches them.
HOLD_CYCLES_PER_CALL = 200_000


def event_times_ms(torch, fn, iters, warmup=3, beat=True):
    """Milliseconds of each of `iters` calls of fn() after `warmup` untimed ones, each between its
    own pair of CUDA/HIP events, the GPU's time and not the host's; a heartbeat after the lot
    when `beat` (a script that does not speak the protocol, like scripts/torch_reference.py,
    passes beat=False).

    Why the hold: timing one call on an idle GPU measures Python's dispatch, since the start event
    fires at once and the kernel arrives 20-40 us later. A rank-8 LoRA GEMM is 3-10 us of work:
    the H100 run of 2026-12-05 timed every such GEMM at ~40 us (6-18 % of its roofline, a false
    "far below the band"). torch.cuda._sleep keeps the stream busy while every call is queued,
    so the events run back to back on the GPU. Without _sleep, each call is timed alone as before."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    pairs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(iters)]
    hold = getattr(torch.cuda, "_sleep", None)
    if hold is not None:
        hold(HOLD_CYCLES_PER_CALL * max(1, iters))
    for a, b in pairs:
        a.record()
        fn()
        b.record()
        if hold is None:
            b.synchronize()
    pairs[-1][1].synchronize()
    if beat:
        heartbeat()
    return [a.elapsed_time(b) for a, b in pairs]


def tiny_llama_config(layers):
    """The tiny Llama the transformers and peft steps build (vocabulary 256, width 128, 4 heads
    over 2 KV heads): built in a second, yet it takes the real model's code paths."""
    from transformers import LlamaConfig
    return LlamaConfig(vocab_size=256, hidden_size=128, intermediate_size=256, num_hidden_layers=layers,
                       num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128)


def bnb_on_gpu(data):
    """The opening of the bitsandbytes kernel steps: import torch and bitsandbytes (a clean skip
    when either is missing), record their versions, and skip when torch sees no GPU.
    Returns (torch, bitsandbytes, bitsandbytes.functional, device name, arch)."""
    phase("import")
    torch = require("torch")
    bnb = require("bitsandbytes")
    import bitsandbytes.functional as F
    data["versions"] = torch_versions(torch)
    data["versions"]["bitsandbytes"] = getattr(bnb, "__version__", None)
    if not torch.cuda.is_available():
        raise Skip("torch sees no GPU")
    name, arch = device_name(torch, 0)
    return torch, bnb, F, name, arch


def run(main, data=None):
    """Run a step's main(): a Skip ends it as skip, any other exception as fail with the
    traceback tail; a main() that returns without sending a result is an error."""
    data = data if data is not None else {}
    try:
        main(data)
    except Skip as s:
        skip(str(s), data)
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # SystemExit from a library too: the step did not finish
        fail("%s: %s" % (type(e).__name__, str(e).strip().split("\n")[0][:300]), data, exc=e)
    if not _sent:
        result("error", "the probe script ended without a result", data)


@contextlib.contextmanager
def captured_warnings():
    """Collect warnings.warn and logging records (bitsandbytes speaks through both)."""
    import logging
    import warnings
    records = []

    class _H(logging.Handler):
        def emit(self, rec):
            try:
                records.append("%s: %s" % (rec.name, rec.getMessage()))
            except Exception:
                pass

    h = _H(level=logging.WARNING)
    root = logging.getLogger()
    root.addHandler(h)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            yield records
        finally:
            root.removeHandler(h)
            records.extend("%s: %s" % (x.category.__name__, x.message) for x in w)
