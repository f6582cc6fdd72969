// The smallest valid model file: a qwen3_5-shaped model (three linear-attention layers and one
// full one) whose parameter and memory terms can be worked out by hand. The registry tests break
// one thing at a time in it (they cite its line numbers: add lines at the end only); the
// memory-model tests compute each term from it.
#pragma once

namespace gs::test {

inline constexpr const char* kTinyModel = R"(name = "tiny"
hf_repo = "x/tiny"
family = "qwen3_5"
model_type = "qwen3_5_text"
source = "test"
vocab_size = 1000
hidden_size = 64
intermediate_size = 128
num_hidden_layers = 4
hidden_act = "silu"
tie_word_embeddings = true
max_position_embeddings = 4096
rms_norm_eps = 1e-6
[layer_pattern]
period = 4
other = "linear_attention"
[full_attention]
num_heads = 4
num_kv_heads = 2
head_dim = 16
output_gate = true
[linear_attention]
num_key_heads = 2
num_value_heads = 4
key_head_dim = 8
value_head_dim = 8
conv_kernel = 4
[lora]
target_modules = ["q_proj", "in_proj_qkv", "down_proj"]
[checkpoint]
extra_params = 1000
shard_bytes = 100000
)";

}  // namespace gs::test
