# Step 8 (py.trl.config): TRL's SFTConfig builds with the settings a QLoRA SFT run uses (bf16,
# gradient checkpointing, packing off, no reporting). TRL pins transformers and accelerate
# tightly; a mismatch shows up here as an ImportError or a TypeError on a renamed argument,
# minutes before a training script would reach it.
import os

import gs_protocol as gs


def main(data):
    gs.phase("import")
    torch = gs.require("torch")
    trl = gs.require("trl")
    data["versions"] = gs.torch_versions(torch)
    data["versions"].update({"trl": trl.__version__, "transformers": gs.dist_version("transformers"),
                             "accelerate": gs.dist_version("accelerate"), "datasets": gs.dist_version("datasets"),
                             "peft": gs.dist_version("peft")})
    from trl import SFTConfig

    gs.phase("load")
    bf16 = bool(torch.cuda.is_available() and torch.cuda.is_bf16_supported())
    cfg = SFTConfig(output_dir=os.path.join(os.getcwd(), "sft-out"), max_steps=1, per_device_train_batch_size=1,
                    gradient_accumulation_steps=1, learning_rate=2e-4, bf16=bf16, gradient_checkpointing=True,
                    packing=False, report_to=[], logging_steps=1, save_strategy="no")
    data["config"] = {"bf16": bool(cfg.bf16), "gradient_checkpointing": bool(cfg.gradient_checkpointing),
                      "packing": bool(getattr(cfg, "packing", False)),
                      "max_length": getattr(cfg, "max_length", getattr(cfg, "max_seq_length", None)),
                      "optim": str(cfg.optim)}
    gs.passed("trl %s SFTConfig builds (bf16 %s, gradient checkpointing, transformers %s)"
              % (trl.__version__, "on" if bf16 else "off", data["versions"]["transformers"]), data)


gs.run(main)
