# `gpustack train-smoke` (issue 7): one mini QLoRA training run in the user's own Python stack.
# The model comes from gpustack's registry as an HF config (shrunk or full size, random weights,
# no download) or from a local checkpoint (`weights`); the base is NF4 (blocksize 64, double
# quant, bf16 compute) through bitsandbytes, LoRA (r 16, alpha 32) through PEFT on the
# registry's target modules, AdamW over a few steps on one fixed synthetic batch, so a working
# stack must make the loss fall. docs/train-smoke.md has the contract this follows.
#
# Phases (a hang names its step and phase): import, build, quantize, lora, then for each step
# stepN.forward, stepN.backward, stepN.optimizer. Arguments (GPUSTACK_ARGS, from the C++ side):
#   model, model_type, hf_config {...}, target_modules [...], seq, batch, steps, grad_ckpt,
#   lr, seed, weights (a dir or ""), device ("auto"; "cpu" runs on the CPU: tests only).
# After each step a `loss.<value>` phase line carries that step's loss to the live display.
import os
import resource
import sys
import time

import gs_protocol as gs

LORA_R, LORA_ALPHA = 16, 32


def _phase(data, name):
    data["last_phase"] = name  # said in a fail's data: which step and phase raised
    gs.phase(name)


def _host_rss_peak():
    """Peak resident set of this process: ru_maxrss (KiB on Linux) and /proc's VmHWM."""
    out = {"ru_maxrss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    out["vm_hwm_bytes"] = int(line.split()[1]) * 1024
    except OSError:
        pass
    return out


def _versions(torch, transformers, peft, bnb):
    v = gs.torch_versions(torch)
    v.update({"transformers": transformers.__version__, "peft": peft.__version__,
              "bitsandbytes": getattr(bnb, "__version__", None), "accelerate": gs.dist_version("accelerate"),
              "triton": gs.dist_version("triton") or gs.dist_version("pytorch-triton-rocm"),
              "flash-linear-attention": gs.dist_version("flash-linear-attention") or gs.dist_version("fla-core"),
              "causal-conv1d": gs.dist_version("causal-conv1d"), "kernels": gs.dist_version("kernels"),
              "safetensors": gs.dist_version("safetensors")})
    return v


# ---- which linear-attention path runs ---------------------------------------------------------
# transformers' Qwen3.5 modeling file wraps its torch fallbacks with
# use_kernel_func_from_hub_with_fallback(name, package): at import it tries the package (fla for
# chunk_gated_delta_rule, causal_conv1d for the conv) and keeps what it found in the wrapper's
# closure as `implementation`, else the torch function. Qwen3-Next's older file instead binds
# module globals (chunk_gated_delta_rule = None when FLA is absent). We read both, and count
# calls through the module globals the layer's forward looks up, so the report says what ran.
_LA_FUNCS = ("torch_chunk_gated_delta_rule", "chunk_gated_delta_rule", "causal_conv1d_fn",
             "torch_recurrent_gated_delta_rule", "fused_recurrent_gated_delta_rule")


def _closure_impl(fn, depth=0):
    code, cells = getattr(fn, "__code__", None), getattr(fn, "__closure__", None)
    if code is None or not cells or depth > 3:
        return None
    named = dict(zip(code.co_freevars, cells))
    if "implementation" in named:
        try:
            return named["implementation"].cell_contents
        except ValueError:
            return None
    for c in cells:  # a hub decorator may wrap the wrapper once more
        try:
            inner = c.cell_contents
        except ValueError:
            continue
        if callable(inner) and inner is not fn:
            got = _closure_impl(inner, depth + 1)
            if got is not None:
                return got
    return None


def _where(fn):
    return "%s.%s" % (getattr(fn, "__module__", "?"), getattr(fn, "__qualname__", getattr(fn, "__name__", "?")))


def install_path_probe(mod, counts):
    """Wraps the modeling module's linear-attention functions with call counters; returns what
    each resolves to (the implementation module) without changing which one runs."""
    resolved = {}
    for name in _LA_FUNCS:
        fn = getattr(mod, name, None)
        if not callable(fn):
            continue
        impl = _closure_impl(fn) or fn
        resolved[name] = _where(impl)

        def counted(*a, _fn=fn, _name=name, **k):
            counts[_name] = counts.get(_name, 0) + 1
            return _fn(*a, **k)

        setattr(mod, name, counted)
    return resolved


def fla_status():
    """Whether flash-linear-attention imports, and why not."""
    try:
        import fla  # noqa: F401
        return True, "flash-linear-attention %s imports" % (gs.dist_version("flash-linear-attention")
                                                             or gs.dist_version("fla-core") or "?")
    except ModuleNotFoundError as e:
        if e.name == "fla":
            return False, "flash-linear-attention is not installed"
        return False, "flash-linear-attention fails to import: %s" % e
    except Exception as e:  # a Triton or CUDA problem inside it: transformers falls back silently
        return False, "flash-linear-attention fails to import: %s: %s" % (type(e).__name__, str(e)[:300])


def linear_attention_report(mod, resolved, counts, layer_types):
    n_linear = sum(1 for t in layer_types if t == "linear_attention")
    if not n_linear:
        return {"path": "none", "why": "the model has no linear-attention layers"}
    ok, why = fla_status()
    chunk = resolved.get("torch_chunk_gated_delta_rule") or resolved.get("chunk_gated_delta_rule") or ""
    conv = resolved.get("causal_conv1d_fn", "")
    ran = counts.get("torch_chunk_gated_delta_rule", 0) + counts.get("chunk_gated_delta_rule", 0)
    path = "fla" if chunk.startswith("fla.") else "torch"
    rep = {"path": path, "delta_rule_impl": chunk or None, "conv_impl": conv or None,
           "delta_rule_calls": ran, "conv_calls": counts.get("causal_conv1d_fn", 0),
           "fla_importable": ok, "linear_attention_layers": n_linear}
    if path == "fla":
        rep["why"] = why + "; transformers picked its chunk_gated_delta_rule"
    elif ok:
        rep["why"] = why + ", but transformers kept its torch fallback (%s)" % (chunk or "no function found")
    else:
        rep["why"] = why + ": transformers runs its torch fallback (torch_chunk_gated_delta_rule)"
    rep["why"] += "; conv1d: %s" % ("causal-conv1d" if conv.startswith("causal_conv1d") else "torch F.conv1d")
    fast = getattr(mod, "is_fast_path_available", None)
    if fast is not None:
        rep["is_fast_path_available"] = bool(fast)
    return rep


# ---- build and quantize --------------------------------------------------------------------
def _from_config(transformers, torch, config):
    auto = transformers.AutoModelForCausalLM
    try:
        return auto.from_config(config, dtype=torch.bfloat16)
    except TypeError:  # transformers < 4.56 calls it torch_dtype
        return auto.from_config(config, torch_dtype=torch.bfloat16)


def decoder_layers(model):
    for path in ("model.layers", "model.language_model.layers", "transformer.h", "layers"):
        obj = model
        for part in path.split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                break
        if obj is not None:
            return obj
    raise RuntimeError("cannot find the decoder layers of %s" % type(model).__name__)


def quantize_decoder_linears(torch, bnb, model, device):
    """Every nn.Linear inside the decoder layers becomes a bnb Linear4bit (NF4, blocksize 64,
    double quant, bf16 compute) carrying the bf16 weights; bitsandbytes quantizes on the move to
    the device. Embeddings, lm_head, norms, conv1d, A_log and dt_bias stay bf16."""
    n = 0
    for layer in decoder_layers(model):
        for name, mod in list(layer.named_modules()):
            if type(mod) is not torch.nn.Linear:
                continue
            with torch.device("meta"):  # no throwaway fp32 weight of the layer's full size
                q = bnb.nn.Linear4bit(mod.in_features, mod.out_features, bias=mod.bias is not None,
                                      compute_dtype=torch.bfloat16, compress_statistics=True, quant_type="nf4")
            q.weight = bnb.nn.Params4bit(mod.weight.data, requires_grad=False, blocksize=64,
                                         compress_statistics=True, quant_type="nf4", module=q)
            if mod.bias is not None:
                q.bias = torch.nn.Parameter(mod.bias.data, requires_grad=False)
            q = q.to(device)  # Params4bit.to quantizes here (blockwise NF4, then the absmax nested)
            parent = layer.get_submodule(name.rsplit(".", 1)[0]) if "." in name else layer
            setattr(parent, name.rsplit(".", 1)[-1], q)
            del mod
            n += 1
            gs.heartbeat()
    return n


def count_params(torch, bnb, model):
    """Elements, each tensor once: a tied lm_head is the embedding's own Parameter (counting it
    under both modules would add vocab x hidden, 254 M for Qwen3.5, that is not there)."""
    total = trainable = 0
    seen = set()
    for m in model.modules():
        for p in m.parameters(recurse=False):
            if id(p) in seen:
                continue
            seen.add(id(p))
            if isinstance(m, bnb.nn.Linear4bit) and p is m.weight:
                count = m.in_features * m.out_features  # packed storage: count the real weights
            else:
                count = p.numel()
            total += count
            if p.requires_grad:
                trainable += count
    return total, trainable


def load_checkpoint(torch, transformers, a, device, data):
    from transformers import AutoConfig, AutoModelForCausalLM, BitsAndBytesConfig
    cfg = AutoConfig.from_pretrained(a["weights"])
    pre = getattr(cfg, "quantization_config", None)
    kw = {"device_map": {"": device if device == "cpu" else 0}}
    if pre:
        data["loaded_as"] = "pre-quantized checkpoint, its own quantization_config"
    else:
        kw["quantization_config"] = BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
            bnb_4bit_compute_dtype=torch.bfloat16)
        data["loaded_as"] = "bf16 checkpoint quantized by BitsAndBytesConfig(nf4, double quant, bf16)"
    try:
        return AutoModelForCausalLM.from_pretrained(a["weights"], dtype=torch.bfloat16, **kw)
    except TypeError:
        return AutoModelForCausalLM.from_pretrained(a["weights"], torch_dtype=torch.bfloat16, **kw)


def enable_checkpointing(model):
    """Non-reentrant activation checkpointing through the current API: transformers 5.x renamed
    gradient_checkpointing_enable to activation_checkpointing_enable (the old name warns
    FutureWarning and goes in v6); 4.x has only the old name."""
    if hasattr(model, "activation_checkpointing_enable"):
        model.activation_checkpointing_enable(activation_checkpointing_kwargs={"use_reentrant": False})
    else:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})


# ---- the run ---------------------------------------------------------------------------------
def main(data):
    a = gs.args()
    data["shape"] = {k: a.get(k) for k in ("model", "model_type", "seq", "batch", "steps", "grad_ckpt", "lr")}
    _phase(data, "import")
    torch = gs.require("torch")
    data["versions"] = gs.torch_versions(torch)
    transformers = gs.require("transformers")
    peft = gs.require("peft")
    bnb = gs.require("bitsandbytes", why="train-smoke quantizes the base to NF4 with it")
    data["versions"] = _versions(torch, transformers, peft, bnb)
    device = "cpu" if a.get("device") == "cpu" else "cuda"
    if device == "cpu":
        data["device"] = "cpu"  # the matrix keeps no cell for a run that never touched the GPU
    if device == "cuda" and not torch.cuda.is_available():
        raise gs.Skip("torch sees no GPU")
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING
    model_type = a.get("model_type") or ""
    weights = a.get("weights") or ""
    if not weights and model_type not in CONFIG_MAPPING:
        raise gs.Skip("transformers %s has no model type '%s' (a newer transformers has it)"
                      % (transformers.__version__, model_type))
    if device == "cuda":
        data["gpu"] = dict(zip(("name", "arch"), gs.device_name(torch, 0)))
        torch.cuda.reset_peak_memory_stats()
    seq, batch, steps = int(a.get("seq", 512)), int(a.get("batch", 1)), int(a.get("steps", 5))
    lr = float(a.get("lr", 1e-3))

    _phase(data, "build")
    t0 = time.monotonic()
    torch.manual_seed(int(a.get("seed", 0)))
    if weights:
        model = load_checkpoint(torch, transformers, a, device, data)
        n_quant = sum(1 for m in model.modules() if isinstance(m, bnb.nn.Linear4bit))
        data["build_s"] = time.monotonic() - t0
    else:
        config = transformers.AutoConfig.for_model(model_type, **(a.get("hf_config") or {}))
        with torch.device(device):  # random init on the GPU: seconds, and no bf16 copy in host RAM
            model = _from_config(transformers, torch, config)
        data["build_s"] = time.monotonic() - t0
        _phase(data, "quantize")
        t1 = time.monotonic()
        n_quant = quantize_decoder_linears(torch, bnb, model, device)
        # What transformers' bnb quantizer sets; PEFT reads it to wrap Linear4bit layers with its
        # QLoRA layer (peft.tuners.lora.bnb.Linear4bit) rather than the plain LoRA Linear.
        model.is_loaded_in_4bit = True
        data["quantize_s"] = time.monotonic() - t1
        if device == "cuda":
            torch.cuda.empty_cache()
    layer_types = list(getattr(model.config, "layer_types", None) or
                       getattr(getattr(model.config, "text_config", None), "layer_types", None) or [])
    data["layer_types"] = {t: layer_types.count(t) for t in sorted(set(layer_types))}
    mod = sys.modules[type(model).__module__]
    counts = {}
    resolved = install_path_probe(mod, counts)

    _phase(data, "lora")
    from peft import LoraConfig, get_peft_model
    targets = list(a.get("target_modules") or [])
    if a.get("grad_ckpt", True):
        enable_checkpointing(model)
        model.enable_input_require_grads()
    model.config.use_cache = False
    lcfg = LoraConfig(r=LORA_R, lora_alpha=LORA_ALPHA, lora_dropout=0.0, target_modules=targets,
                      task_type="CAUSAL_LM")
    model = get_peft_model(model, lcfg)
    total, trainable = count_params(torch, bnb, model)
    wrapped = [m for n, m in model.named_modules() if n.endswith(tuple("." + t for t in targets))
               and hasattr(m, "lora_A")]
    data["lora_layer_class"] = sorted({"%s.%s" % (type(m).__module__, type(m).__name__) for m in wrapped})
    data["params"] = {"total": total, "trainable": trainable, "quantized_linears": n_quant,
                      "lora_modules": sum(1 for n, _ in model.named_modules() if n.endswith(".lora_A"))}
    if device == "cuda":
        torch.cuda.synchronize()
        data["after_load_alloc_bytes"] = torch.cuda.memory_allocated()
        data["load_peak_alloc_bytes"] = torch.cuda.max_memory_allocated()
        torch.cuda.reset_peak_memory_stats()  # from here on: the training steps' peak
    data["after_load_rss"] = _host_rss_peak()

    vocab = model.get_input_embeddings().weight.shape[0]
    g = torch.Generator().manual_seed(int(a.get("seed", 0)) + 1)
    ids = torch.randint(0, vocab, (batch, seq), generator=g).to(device)  # the same batch every step
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr)
    model.train()
    losses, step_ms = [], []
    # Which path is known from the import already: said now, so a step that fails (FLA refusing
    # its backward on Hopper, a Triton fault) still reports the path it failed on.
    data["linear_attention_path"] = linear_attention_report(mod, resolved, counts, layer_types)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    for s in range(steps):
        sync()
        t = time.monotonic()
        _phase(data, "step%d.forward" % s)
        out = model(input_ids=ids, labels=ids, use_cache=False)
        loss = out.loss
        data["linear_attention_path"] = linear_attention_report(mod, resolved, counts, layer_types)
        _phase(data, "step%d.backward" % s)
        loss.backward()
        _phase(data, "step%d.optimizer" % s)
        opt.step()
        opt.zero_grad(set_to_none=True)
        sync()
        step_ms.append((time.monotonic() - t) * 1000.0)
        losses.append(float(loss.detach().float().item()))
        data["loss"], data["step_ms"] = losses, step_ms
        gs.phase("loss.%.4f" % losses[-1])  # gpustack shows it live; not a phase of its own
        del out, loss

    _phase(data, "verify")
    if device == "cuda":
        data["peak_alloc_bytes"] = torch.cuda.max_memory_allocated()
        data["peak_reserved_bytes"] = torch.cuda.max_memory_reserved()
    rss = _host_rss_peak()
    data["peak_rss_bytes"] = max(rss.values())
    data["peak_rss"] = rss
    data["linear_attention_path"] = linear_attention_report(mod, resolved, counts, layer_types)
    data.pop("last_phase", None)
    finite = all(x == x and abs(x) != float("inf") for x in losses)
    la = data["linear_attention_path"]
    tail = "; linear attention: %s" % la["path"] if la["path"] != "none" else ""
    # On the GPU the figure that matters is the allocator's peak; on the CPU (tests) it is RSS.
    peak = ("%.2f GiB GPU" % (data["peak_alloc_bytes"] / 2.0 ** 30) if "peak_alloc_bytes" in data
            else "%.2f GiB host RSS" % (data["peak_rss_bytes"] / 2.0 ** 30))
    if not losses:
        gs.fail("no training step ran (steps=%d)" % steps, data)
    elif not finite:
        bad = next(i for i, x in enumerate(losses) if not (x == x and abs(x) != float("inf")))
        gs.fail("loss is %s at step %d (losses %s)" % (losses[bad], bad, _fmt(losses)), data)
    elif len(losses) > 1 and not losses[-1] < losses[0]:
        gs.fail("loss did not fall over %d steps on a fixed batch (%s): the adapters are not learning"
                % (len(losses), _fmt(losses)), data)
    else:
        gs.passed("%d steps, loss %s, %.0f ms/step, peak %s%s"
                  % (len(losses), _fmt(losses), sorted(step_ms)[len(step_ms) // 2], peak, tail), data)


def _fmt(losses):
    return " ".join("%.3f" % x if x == x else "nan" for x in losses[:3]) + \
        (" ... %.3f" % losses[-1] if len(losses) > 3 else "")


if __name__ == "__main__":
    gs.run(main)
