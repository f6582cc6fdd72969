# The case both `gpustack probe fla` Python backends read from GPUSTACK_ARGS (fla_triton.py,
# fla_fla.py), with the defaults: B=2, T=4096, H=HV=16, K=V=128, chunk 64, bf16.
# A bad value is a ValueError, which gs.run turns into a `fail` naming the argument.
DTYPES = ("bf16", "fp16", "fp32")


def _int(a, key, default):
    v = a.get(key, default)
    if isinstance(v, bool):
        raise ValueError("argument %s=%r is not an integer" % (key, v))
    try:
        return int(v)
    except (TypeError, ValueError):
        raise ValueError("argument %s=%r is not an integer" % (key, v))


def flag(a, key, default=False):
    """A boolean argument; JSON true/false, or the strings 1/true/yes/on."""
    v = a.get(key, default)
    if isinstance(v, str):
        return v.strip().lower() in ("1", "true", "yes", "on")
    return bool(v)


def read(a, min_stage=1):
    """The case as a dict; `a` is gs.args(). min_stage 0 lets the fla backend run unforced."""
    c = {k: _int(a, k, d) for k, d in (("stage", 1), ("B", 2), ("T", 4096), ("H", 16), ("K", 128),
                                        ("V", 128), ("chunk", 64), ("seed", 0), ("iters", 20))}
    c["HV"] = _int(a, "HV", c["H"])
    c["dtype"] = str(a.get("dtype", "bf16"))
    c["backward"] = flag(a, "backward")
    c["spin"] = flag(a, "spin")
    c["num_warps"] = _int(a, "num_warps", 0) or None
    if c["dtype"] not in DTYPES:
        raise ValueError("dtype %r: use one of %s" % (c["dtype"], ", ".join(DTYPES)))
    if c["chunk"] != 64:
        raise ValueError("chunk %d: the probes use chunks of 64 (FLA's default)" % c["chunk"])
    if c["stage"] < min_stage or c["stage"] > 16:
        raise ValueError("argument stage=%d must be between %d and 16" % (c["stage"], min_stage))
    for k in ("B", "T", "H", "HV", "K", "V", "iters"):
        if c[k] < 1:
            raise ValueError("argument %s=%d must be >= 1" % (k, c[k]))
    if c["HV"] % c["H"]:
        raise ValueError("HV=%d is not a multiple of H=%d" % (c["HV"], c["H"]))
    if c["K"] > 256 or c["V"] > 256:
        raise ValueError("K and V must be <= 256 (FLA's limit; gpustack's state tile lives in registers)")
    return c
