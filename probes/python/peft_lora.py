# Step 7 (py.peft.lora): PEFT's LoraConfig + get_peft_model on a tiny random Llama on the GPU,
# one forward and backward with labels: the loss is finite, gradients reach the adapters (lora_B
# starts at zero, so its gradient is the one that must be non-zero on the first step), and the
# base weights stay frozen.
import gs_protocol as gs


def main(data):
    gs.phase("import")
    torch = gs.require("torch")
    transformers = gs.require("transformers")
    peft = gs.require("peft")
    data["versions"] = gs.torch_versions(torch)
    data["versions"].update({"transformers": transformers.__version__, "peft": peft.__version__,
                             "accelerate": gs.dist_version("accelerate")})
    if not torch.cuda.is_available():
        raise gs.Skip("torch sees no GPU")
    from peft import LoraConfig, get_peft_model
    from transformers import LlamaForCausalLM

    gs.phase("load")
    cfg = gs.tiny_llama_config(2)
    torch.manual_seed(11)
    model = LlamaForCausalLM(cfg).to("cuda", torch.bfloat16)
    lcfg = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0, target_modules=["q_proj", "v_proj"],
                      task_type="CAUSAL_LM")
    model = get_peft_model(model, lcfg)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total = sum(p.numel() for p in model.parameters())
    data["trainable_params"] = int(trainable)
    data["total_params"] = int(total)

    gs.phase("launch")
    ids = torch.randint(0, 256, (2, 64), generator=torch.Generator().manual_seed(12)).cuda()
    model.train()
    out = model(input_ids=ids, labels=ids)
    out.loss.backward()
    gs.phase("sync")
    torch.cuda.synchronize()

    gs.phase("verify")
    loss = out.loss.item()
    data["loss"] = loss
    lora_b = [(n, p) for n, p in model.named_parameters() if "lora_B" in n]
    lora_a = [(n, p) for n, p in model.named_parameters() if "lora_A" in n]
    frozen_with_grad = [n for n, p in model.named_parameters() if not p.requires_grad and p.grad is not None]
    b_norms = [p.grad.float().norm().item() if p.grad is not None else 0.0 for _, p in lora_b]
    data["adapters"] = len(lora_a) + len(lora_b)
    data["lora_B_grad_norm_min"] = min(b_norms) if b_norms else None
    finite = all(torch.isfinite(p.grad).all().item() for _, p in lora_a + lora_b if p.grad is not None)
    problems = []
    if not lora_b:
        problems.append("get_peft_model added no LoRA adapters")
    if not (loss == loss and abs(loss) != float("inf")):
        problems.append("loss is %r" % loss)
    if b_norms and not min(b_norms) > 0:
        problems.append("%d lora_B gradients are zero or missing" % sum(1 for x in b_norms if not x > 0))
    if not finite:
        problems.append("adapter gradients are not finite")
    if frozen_with_grad:
        problems.append("frozen base weights got gradients (%s)" % frozen_with_grad[0])
    if problems:
        gs.fail("LoRA backward: " + "; ".join(problems), data)
        return
    gs.passed("LoRA r=8 on q/v: %d adapters, %d trainable of %d params, loss %.3f, gradients reach every lora_B"
              % (len(lora_a) + len(lora_b), trainable, total, loss), data)


gs.run(main)
