# Step 6 (py.transformers.bnb): transformers' BitsAndBytesConfig (NF4, double quant, bf16 compute)
# builds and quantizes a tiny model through the real from_pretrained path: a 1-layer Llama with
# random weights is saved to the probe's temp dir and loaded back with the config, so no network
# and no download. Checks: every targeted Linear became a Linear4bit with an NF4, nested quant
# state, and a forward pass gives finite logits close to the bf16 model's.
import os

import gs_protocol as gs


def main(data):
    gs.phase("import")
    torch = gs.require("torch")
    transformers = gs.require("transformers")
    bnb = gs.require("bitsandbytes")
    data["versions"] = gs.torch_versions(torch)
    data["versions"].update({"transformers": transformers.__version__,
                             "bitsandbytes": getattr(bnb, "__version__", None),
                             "accelerate": gs.dist_version("accelerate"),
                             "safetensors": gs.dist_version("safetensors")})
    if not torch.cuda.is_available():
        raise gs.Skip("torch sees no GPU")
    from transformers import BitsAndBytesConfig, LlamaForCausalLM

    gs.phase("load")
    cfg = gs.tiny_llama_config(1)
    torch.manual_seed(7)
    dense = LlamaForCausalLM(cfg).to(torch.bfloat16)
    path = os.path.join(os.getcwd(), "tiny-llama")
    dense.save_pretrained(path)
    qcfg = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_use_double_quant=True,
                              bnb_4bit_compute_dtype=torch.bfloat16)
    data["config"] = {"quant_type": "nf4", "double_quant": True, "compute_dtype": "bfloat16"}
    try:
        model = LlamaForCausalLM.from_pretrained(path, quantization_config=qcfg, device_map={"": 0},
                                                 dtype=torch.bfloat16)
    except TypeError:  # transformers < 4.56 calls it torch_dtype
        model = LlamaForCausalLM.from_pretrained(path, quantization_config=qcfg, device_map={"": 0},
                                                 torch_dtype=torch.bfloat16)
    gs.heartbeat()

    gs.phase("verify")
    linears = {n: m for n, m in model.named_modules() if isinstance(m, torch.nn.Linear) and "lm_head" not in n}
    four = {n: m for n, m in linears.items() if isinstance(m, bnb.nn.Linear4bit)}
    data["linear_layers"] = len(linears)
    data["linear4bit_layers"] = len(four)
    bad = []
    for n, m in four.items():
        qs = getattr(m.weight, "quant_state", None)
        if qs is None or qs.quant_type != "nf4" or not getattr(qs, "nested", False):
            bad.append(n)
    if not four or len(four) != len(linears) or bad:
        gs.fail("BitsAndBytesConfig quantized %d of %d Linear layers to NF4 with double quant (wrong: %s)"
                % (len(four) - len(bad), len(linears), ", ".join(bad[:4]) or "none converted"), data)
        return
    data["memory_footprint_bytes"] = int(model.get_memory_footprint())

    gs.phase("launch")
    ids = torch.randint(0, 256, (2, 32), generator=torch.Generator().manual_seed(8)).cuda()
    dense = dense.cuda()
    with torch.no_grad():
        got = model(ids).logits.float()
        want = dense(ids).logits.float()
    gs.phase("sync")
    torch.cuda.synchronize()
    finite = bool(torch.isfinite(got).all().item())
    cos = torch.nn.functional.cosine_similarity(got.flatten(), want.flatten(), dim=0).item()
    data["logits_cosine_vs_bf16"] = cos
    # 4-bit weights move random-init logits a little; an unrelated output (a broken kernel)
    # gives a cosine near 0. 0.9 separates the two with room on either side.
    if not finite or not cos > 0.9:
        gs.fail("the NF4-quantized tiny model's logits are %s (cosine %.3f against the bf16 model)"
                % ("not finite" if not finite else "far from the bf16 model's", cos), data)
        return
    gs.passed("BitsAndBytesConfig(nf4, double quant, bf16) quantized %d Linear layers; logits cosine %.3f "
              "against bf16" % (len(four), cos), data)


gs.run(main)
