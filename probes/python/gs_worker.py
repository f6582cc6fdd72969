# The warm worker's Python side (issue 16; docs/watchdog.md "Warm workers"; the C++ side is
# src/python/python_worker.cpp). gpustack starts `python -u gs_worker.py` once per worker process
# with GPUSTACK_PRELOAD naming GPU-free modules (torch, transformers, triton): they are imported
# at once, while gpustack runs its native steps, and the steps' scripts then find them loaded.
# Requests arrive on stdin, one JSON line each:
#   {"seq": N, "script": PATH, "dir": DIR, "env": {...}, "fork": true|false}
# and each ends with one line on stdout after the script's own @gs lines:
#   @gs worker {"event": "done", "seq": N, "mode": "forked"|"inline", "exit": .., "signal": .., "health": ..}
# Two ways to run a script, chosen per request:
#   forked: in a child forked from this process, which has never initialised the GPU: the step
#     gets the preloaded modules for free and a process, a CUDA/HIP context and module state of
#     its own, exactly as with a fresh interpreter. A crash there is the child's alone.
#   inline: in this process, for steps whose imports initialise the GPU (bitsandbytes, and peft
#     through it): those imports stay warm for the next such step, at the cost of sharing the
#     process. Between steps the worker undoes what a step may leave behind (environment, working
#     directory, sys.path, gpustack's own helper modules, torch's global switches, Triton's
#     launch hook, cached and peak GPU memory) and checks that the GPU context still answers;
#     gpustack replaces the worker when it does not, or when an inline step failed.
# Pure standard library until a request imports more.
import gc
import importlib
import json
import os
import runpy
import sys
import time
import traceback
import warnings

_out = sys.__stdout__
_ran_inline = False
# fork() after torch's import warns on 3.12+ when threads exist; the children exec nothing and
# the parent holds no lock they need, which is the case the warning is about.
warnings.filterwarnings("ignore", category=DeprecationWarning, message=".*fork.*")


def emit(obj):
    _out.write("\n@gs worker " + json.dumps(obj, separators=(",", ":")) + "\n")
    _out.flush()


def gpu_initialised():
    torch = sys.modules.get("torch")
    try:
        return bool(torch is not None and torch.cuda.is_initialized())
    except Exception:
        return False


def preload(names):
    took, failed = {}, {}
    for name in names:
        t = time.monotonic()
        try:
            importlib.import_module(name)
        except BaseException as e:  # the step that needs it meets the same error in its own import
            failed[name] = "%s: %s" % (type(e).__name__, str(e).strip().split("\n")[0][:300])
        took[name] = round(time.monotonic() - t, 3)
    return took, failed


# torch's process-wide switches a step may set (torch_basic.py turns TF32 off, sdpa.py picks
# backends): (getter, setter) pairs, each read before an inline step and put back after it.
def _torch_switches(torch):
    m, c, b = torch.backends.cuda.matmul, torch.backends.cudnn, torch.backends.cuda

    def attr(obj, name):
        return (lambda: getattr(obj, name)), (lambda v: setattr(obj, name, v))

    candidates = [
        lambda: attr(m, "allow_tf32"),
        lambda: attr(m, "allow_fp16_reduced_precision_reduction"),
        lambda: attr(m, "allow_bf16_reduced_precision_reduction"),
        lambda: attr(c, "allow_tf32"),
        lambda: attr(c, "benchmark"),
        lambda: attr(c, "deterministic"),
        lambda: (torch.get_default_dtype, torch.set_default_dtype),
        lambda: (torch.is_grad_enabled, torch.set_grad_enabled),
        lambda: (torch.get_float32_matmul_precision, torch.set_float32_matmul_precision),
        lambda: (torch.are_deterministic_algorithms_enabled, torch.use_deterministic_algorithms),
        lambda: (b.flash_sdp_enabled, b.enable_flash_sdp),
        lambda: (b.mem_efficient_sdp_enabled, b.enable_mem_efficient_sdp),
        lambda: (b.math_sdp_enabled, b.enable_math_sdp),
        lambda: (b.cudnn_sdp_enabled, b.enable_cudnn_sdp),
    ]
    pairs = []
    for make in candidates:  # each on its own: an older torch lacks some (1.13 has no cudnn_sdp)
        try:
            get, put = make()
            get()
            pairs.append((get, put))
        except Exception:
            pass
    return pairs


# Monkey-patch points a step may wrap (gpustack_triton_stages.py wraps JITFunction.run and
# Autotuner.prune_configs).
_PATCH_POINTS = [("triton.runtime.jit", "JITFunction", "run"), ("triton.runtime.autotuner", "Autotuner", "run"),
                 ("triton.runtime.autotuner", "Autotuner", "prune_configs")]


def snapshot():
    s = {"env": dict(os.environ), "cwd": os.getcwd(), "path": list(sys.path), "argv": list(sys.argv),
         "patches": {}, "torch": []}
    for mod, cls, attr in _PATCH_POINTS:
        m = sys.modules.get(mod)
        if m is not None and hasattr(m, cls):
            s["patches"][(mod, cls, attr)] = getattr(m, cls).__dict__.get(attr)
    torch = sys.modules.get("torch")
    if torch is not None:
        for get, put in _torch_switches(torch):
            try:
                s["torch"].append((get(), put))
            except Exception:
                pass
    return s


def restore(s, work_dir):
    os.environ.clear()
    os.environ.update(s["env"])
    try:
        os.chdir(s["cwd"])
    except OSError:
        pass
    sys.path[:] = s["path"]
    sys.argv[:] = s["argv"]
    for (mod, cls, attr), original in s["patches"].items():
        m = sys.modules.get(mod)
        if m is not None and original is not None and getattr(m, cls).__dict__.get(attr) is not original:
            setattr(getattr(m, cls), attr, original)
    for value, put in s["torch"]:
        try:
            put(value)
        except Exception:
            pass
    # gpustack's helpers (gs_protocol, gpustack_triton_stages, kernels) live in the step's work
    # dir: the next step imports its own fresh copies, with their state (a sent result, the
    # num_stages seen) reset.
    prefix = os.path.join(work_dir, "")
    for name, m in list(sys.modules.items()):
        f = getattr(m, "__file__", None) or ""
        if f.startswith(prefix):
            del sys.modules[name]


def after_inline():
    """'ok', or why the GPU context cannot be trusted with the next step."""
    gc.collect()
    if not gpu_initialised():
        return "ok"
    torch = sys.modules["torch"]
    try:
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()  # train-smoke measures its own peak
        return "ok"
    except Exception as e:
        return "the GPU context reports an error after the step: %s" % str(e).strip().split("\n")[0][:300]


def run_script(req):
    os.environ.update(req.get("env") or {})
    os.chdir(req["dir"])
    sys.path.insert(0, req["dir"])
    sys.argv[:] = [req["script"]]
    try:
        runpy.run_path(req["script"], run_name="__main__")
        return 0
    except SystemExit as e:
        code = e.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except BaseException:
        traceback.print_exc()
        return 1


def serve(req):
    global _ran_inline
    seq = req.get("seq")
    want_fork = bool(req.get("fork")) and hasattr(os, "fork")
    # Once this process has touched the GPU, a forked child could not use it ("Cannot
    # re-initialize CUDA in forked subprocess"): such a step runs inline and says why.
    blocked = gpu_initialised() or _ran_inline
    t0 = time.monotonic()
    done = {"event": "done", "seq": seq, "exit": None, "signal": None, "health": "ok"}
    if want_fork and not blocked:
        _out.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                fd = os.open(os.devnull, os.O_RDONLY)  # the requests are the parent's
                os.dup2(fd, 0)
                code = run_script(req)
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                except Exception:
                    pass
                os._exit(code if isinstance(code, int) else 1)
        _, status = os.waitpid(pid, 0)
        done["mode"] = "forked"
        done["pid"] = pid
        if os.WIFSIGNALED(status):
            done["signal"] = os.WTERMSIG(status)
        else:
            done["exit"] = os.WEXITSTATUS(status)
    else:
        done["mode"] = "inline"
        done["pid"] = os.getpid()
        if want_fork:
            done["inline_because"] = "the worker had already initialised the GPU"
        _ran_inline = True
        before = snapshot()
        try:
            done["exit"] = run_script(req)
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            restore(before, req["dir"])
        done["health"] = after_inline()
    done["wall_s"] = round(time.monotonic() - t0, 3)
    emit(done)


def main():
    names = [n for n in os.environ.get("GPUSTACK_PRELOAD", "").split(",") if n]
    t0 = time.monotonic()
    took, failed = preload(names)
    emit({"event": "ready", "pid": os.getpid(), "python": sys.version.split()[0], "preload_s": took,
          "preload_failed": failed, "preload_total_s": round(time.monotonic() - t0, 3),
          "gpu_initialised": gpu_initialised()})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except ValueError:
            emit({"event": "done", "seq": None, "health": "unreadable request"})
            continue
        serve(req)


main()
