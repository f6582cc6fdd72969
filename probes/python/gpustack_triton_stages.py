# gpustack-managed: triton-stages (written by `gpustack fix triton-stages`; removed by
# `gpustack fix triton-stages --remove`, which only deletes files carrying this first line).
#
# Caps the software-pipeline depth (num_stages) of every Triton kernel launch in this Python.
# Triton 3.6.0's AMD pipeliner destroys a tt.load that still has uses at num_stages >= 2 on
# gfx12 and at 4 elsewhere (triton#9815, vLLM#44973); flash-linear-attention autotunes over 2-5
# and hard-codes 3, so the first training step aborts or hangs. There is no Triton environment
# variable for num_stages, so the cap wraps triton.runtime.jit.JITFunction.run, the one call
# every launch goes through: kernel[grid](...), the autotuner's benchmarks and its chosen config,
# and warmup(). num_stages is part of the kernel cache key there, so capped and uncapped
# compilations never mix.
#
# How it is activated: gpustack_triton_stages.pth beside this file runs `activate(N)` at
# interpreter start. That only registers an import hook; Triton is patched when (and if) the
# program imports it, so a Python that never touches Triton pays for reading this file only.
# GPUSTACK_TRITON_STAGES_CAP=off turns it off for one run; =N uses N instead of the written cap.
# It lives outside Triton's files, so `pip install --force-reinstall triton` leaves it in force.
#
# probes/python/fla_fla.py uses the same code with mode="force" to run flash-linear-attention at
# one exact num_stages and records what each compiled kernel really used (seen()).
#
# The autotuner is told too: configs that differ only in num_stages become the same kernel once
# num_stages is forced or capped, so Autotuner.prune_configs keeps one of each (the first): FLA's
# kernels list num_stages 2, 3, 4 per (block, warps), and benchmarking the same kernel three times
# only costs time (about 0.1 s per config with Triton's default do_bench).
import os
import sys

MARKER = "# gpustack-managed: triton-stages"
_TARGET = "triton.runtime.jit"
_AUTOTUNER = "triton.runtime.autotuner"
_state = {"limit": None, "mode": "cap", "seen": {}, "patched": False, "default": None, "configs_dropped": 0}
MODES = ("cap", "force", "observe")


def _backend_default():
    """The num_stages Triton uses when a launch names none: 2 on HIP (HIPOptions), 3 on CUDA."""
    if _state["default"] is None:
        try:
            import triton
            backend = triton.runtime.driver.active.get_current_target().backend
        except Exception:
            backend = "cuda"
        _state["default"] = 2 if backend == "hip" else 3
    return _state["default"]


def new_stages(requested, limit, mode, default=None):
    """The num_stages a launch gets: `force` sets it to limit, `cap` lowers it to limit (a launch
    that names none gets the backend default first), `observe` leaves it alone."""
    if mode == "observe" or limit is None:
        return requested
    if mode == "force":
        return limit
    current = requested if requested is not None else (default if default is not None else _backend_default())
    return min(int(current), limit)


def _record(fn, kernel, asked):
    name = getattr(fn, "__name__", None) or getattr(getattr(fn, "fn", None), "__name__", "?")
    md = getattr(kernel, "metadata", None)
    used = getattr(md, "num_stages", None)
    if used is None and isinstance(md, dict):
        used = md.get("num_stages")
    used = used if used is not None else asked
    if used is not None:
        _state["seen"].setdefault(str(name), set()).add(int(used))


def unique_configs(configs, limit, mode):
    """The configs that stay different kernels once num_stages is set by `mode`: one per
    (kwargs, num_warps, num_ctas, maxnreg, pre_hook, num_stages as it will launch), the first of
    each, in order. With mode "observe" (or no limit) nothing collapses."""
    seen_keys, out = set(), []
    for c in configs:
        kwargs = getattr(c, "kwargs", None) or {}
        key = (tuple(sorted((str(k), repr(v)) for k, v in kwargs.items())), getattr(c, "num_warps", None),
               getattr(c, "num_ctas", None), getattr(c, "maxnreg", None), id(getattr(c, "pre_hook", None)),
               new_stages(getattr(c, "num_stages", None), limit, mode))
        if key in seen_keys:
            continue
        seen_keys.add(key)
        out.append(c)
    return out


def _patch_autotuner(module):
    cls = getattr(module, "Autotuner", None)
    prune = getattr(cls, "prune_configs", None)
    if prune is None or getattr(prune, "_gpustack_stages", False):
        return

    def prune_unique(self, *args, **kwargs):
        configs = prune(self, *args, **kwargs)
        limit, mode = _state["limit"], _state["mode"]
        if limit is None or mode == "observe":
            return configs
        kept = unique_configs(configs, limit, mode)
        _state["configs_dropped"] += len(configs) - len(kept)
        return kept

    prune_unique._gpustack_stages = True
    prune_unique.__wrapped__ = prune
    cls.prune_configs = prune_unique


def configs_dropped():
    """How many autotuner configs were not benchmarked because forcing or capping num_stages
    made them the same kernel as one that was."""
    return _state["configs_dropped"]


def _patch(jit_module):
    if _state["patched"]:
        return
    cls = getattr(jit_module, "JITFunction", None)
    run = getattr(cls, "run", None)
    if run is None or getattr(run, "_gpustack_stages", False):
        return
    orig = run

    def run_capped(self, *args, **kwargs):
        limit, mode = _state["limit"], _state["mode"]
        if limit is None and mode != "observe":  # switched off: Triton as shipped
            return orig(self, *args, **kwargs)
        stages = new_stages(kwargs.get("num_stages"), limit, mode)
        if stages is not None:
            kwargs["num_stages"] = stages
        kernel = orig(self, *args, **kwargs)
        if kernel is not None:
            try:
                _record(self, kernel, stages)
            except Exception:
                pass
        return kernel

    run_capped._gpustack_stages = True
    run_capped.__wrapped__ = orig
    cls.run = run_capped
    _state["patched"] = True


class _Loader:
    """Delegates to Triton's own loader, then patches the module it executed."""

    def __init__(self, inner):
        self._inner = inner

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        self._inner.exec_module(module)
        try:
            _patch(module) if module.__name__ == _TARGET else _patch_autotuner(module)
        except Exception as e:  # never break the user's import of triton
            sys.stderr.write("gpustack_triton_stages: could not cap num_stages: %r\n" % (e,))

    def __getattr__(self, name):
        return getattr(self._inner, name)


class _Finder:
    """A meta-path finder that answers only for triton.runtime.jit and triton.runtime.autotuner,
    through the other finders."""

    def find_spec(self, name, path=None, target=None):
        if name not in (_TARGET, _AUTOTUNER):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Loader(spec.loader)
                return spec
        return None

    def invalidate_caches(self):
        pass


def _limit_from_env(written):
    v = os.environ.get("GPUSTACK_TRITON_STAGES_CAP", "").strip().lower()
    if v in ("off", "0", "no", "false", "disable", "disabled"):
        return None
    if v.isdigit():
        return max(1, int(v))
    return written


def activate(limit, mode="cap"):
    """Cap (mode "cap"), set ("force") or only record ("observe", limit None) num_stages of every
    Triton launch from now on. The environment variable applies to the cap alone (a probe that
    forces a depth means it). Returns the limit in force (None when switched off)."""
    if mode not in MODES:
        raise ValueError("mode %r: use one of %s" % (mode, ", ".join(MODES)))
    if limit is not None:
        limit = max(1, int(limit))
    if mode == "cap":
        limit = _limit_from_env(limit)
    _state["limit"], _state["mode"] = limit, mode
    if limit is None and mode != "observe":
        return None
    if _AUTOTUNER in sys.modules:
        _patch_autotuner(sys.modules[_AUTOTUNER])
    if _TARGET in sys.modules:
        _patch(sys.modules[_TARGET])
    if (_TARGET not in sys.modules or _AUTOTUNER not in sys.modules) and not any(
            isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
    return limit


def seen(reset=False):
    """{kernel name: sorted num_stages it was compiled with} for the launches recorded so far;
    reset=True starts a new record."""
    out = {k: sorted(v) for k, v in sorted(_state["seen"].items())}
    if reset:
        _state["seen"] = {}
    return out


def limit():
    """(limit, mode) in force: (None, "cap") when nothing is capped."""
    return _state["limit"], _state["mode"]


def active():
    return _state["limit"] is not None and _state["patched"]
