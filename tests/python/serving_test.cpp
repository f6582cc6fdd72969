// serving.settings: settings from the environment and from files (key=value, JSON, malformed),
// each sanity rule firing on its case and quiet on the neighbour, and the probe's verdict.
#include <gtest/gtest.h>

#include <algorithm>

#include "probes/serving_probe.h"

namespace gs {
namespace {

bool fired(const std::vector<serving_issue>& is, const std::string& rule, status level) {
  return std::any_of(is.begin(), is.end(), [&](const serving_issue& i) { return i.rule == rule && i.level == level; });
}
bool any(const std::vector<serving_issue>& is, const std::string& rule) {
  return std::any_of(is.begin(), is.end(), [&](const serving_issue& i) { return i.rule == rule; });
}

serving_settings env(std::map<std::string, std::string> e) {
  serving_settings s;
  serving_from_env(e, s);
  return s;
}

machine_facts gpu_gib(uint64_t gib) {
  machine_facts f;
  gpu_info g;
  g.vendor = "amd";
  g.vram_bytes = gib << 30;
  f.gpus.push_back(g);
  return f;
}

TEST(Serving, ReadsLlamaAndVllmVariablesAndIgnoresTheRest) {
  serving_settings s = env({{"LLAMA_ARG_UBATCH", "1024"}, {"LLAMA_ARG_CACHE_TYPE_V", "q8_0"},
                            {"VLLM_ATTENTION_BACKEND", "TRITON_ATTN"}, {"LLAMA_ARG_UNKNOWN", "1"}, {"HOME", "/root"}});
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(s["ubatch_size"].value, "1024");
  EXPECT_EQ(s["ubatch_size"].source, "LLAMA_ARG_UBATCH");
  EXPECT_EQ(s["cache_type_v"].value, "q8_0");
  EXPECT_EQ(s["attention_backend"].value, "TRITON_ATTN");
}

TEST(Serving, ReadsKeyValueFilesWithFlagNamesAndComments) {
  serving_settings s;
  std::vector<std::string> errors;
  serving_from_text("# llama-server settings\n-c = 8192\nubatch-size: 512\n  np=4  # four users\nnonsense line\n"
                    "cache_type_v = \"q4_0\"\nunknown_key = 3\n",
                    "serving.conf", s, errors);
  EXPECT_EQ(s["ctx_size"].value, "8192");
  EXPECT_EQ(s["ctx_size"].source, "serving.conf:2");
  EXPECT_EQ(s["ubatch_size"].value, "512");
  EXPECT_EQ(s["parallel"].value, "4");
  EXPECT_EQ(s["cache_type_v"].value, "q4_0");
  EXPECT_FALSE(s.count("unknown_key"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "serving.conf:5: expected key=value");
}

TEST(Serving, ReadsJsonAndReportsBrokenJson) {
  serving_settings s;
  std::vector<std::string> errors;
  serving_from_text(R"({"max_model_len": 32768, "max_num_seqs": 16, "gpu_memory_utilization": 0.9,
                        "flash_attn": true, "num_hidden_layers": 28})",
                    "vllm.json", s, errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(s["max_model_len"].value, "32768");
  EXPECT_EQ(s["flash_attn"].value, "on");
  EXPECT_EQ(s["n_layer"].value, "28");
  serving_from_text("{\"c\": 4096", "bad.json", s, errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("bad.json: not valid JSON"), std::string::npos);
}

TEST(Serving, QuantizedVCacheWithoutFlashAttention) {
  EXPECT_TRUE(fired(check_serving(env({{"LLAMA_ARG_CACHE_TYPE_V", "q4_0"}, {"LLAMA_ARG_FLASH_ATTN", "off"}}), nullptr),
                    "quantized-v-without-fa", status::fail));
  EXPECT_TRUE(fired(check_serving(env({{"LLAMA_ARG_CACHE_TYPE_V", "q8_0"}}), nullptr), "quantized-v-without-fa", status::warn));
  EXPECT_FALSE(any(check_serving(env({{"LLAMA_ARG_CACHE_TYPE_V", "q8_0"}, {"LLAMA_ARG_FLASH_ATTN", "on"}}), nullptr),
                   "quantized-v-without-fa"));
  EXPECT_FALSE(any(check_serving(env({{"LLAMA_ARG_CACHE_TYPE_V", "f16"}, {"LLAMA_ARG_FLASH_ATTN", "off"}}), nullptr),
                   "quantized-v-without-fa"));
  // A quantized K cache alone works without flash attention.
  EXPECT_FALSE(any(check_serving(env({{"LLAMA_ARG_CACHE_TYPE_K", "q8_0"}, {"LLAMA_ARG_FLASH_ATTN", "off"}}), nullptr),
                   "quantized-v-without-fa"));
}

TEST(Serving, UbatchAboveBatch) {
  EXPECT_TRUE(fired(check_serving(env({{"LLAMA_ARG_UBATCH", "4096"}}), nullptr), "ubatch-above-batch", status::warn))
      << "above the default batch of 2048";
  EXPECT_TRUE(fired(check_serving(env({{"LLAMA_ARG_UBATCH", "1024"}, {"LLAMA_ARG_BATCH", "512"}}), nullptr),
                    "ubatch-above-batch", status::warn));
  EXPECT_FALSE(any(check_serving(env({{"LLAMA_ARG_UBATCH", "512"}, {"LLAMA_ARG_BATCH", "512"}}), nullptr),
                   "ubatch-above-batch"));
}

TEST(Serving, ContextSplitTooThinAcrossSlots) {
  std::vector<serving_issue> is = check_serving(env({{"LLAMA_ARG_CTX_SIZE", "8192"}, {"LLAMA_ARG_N_PARALLEL", "8"}}), nullptr);
  ASSERT_TRUE(fired(is, "thin-slots", status::warn));
  EXPECT_NE(is[0].message.find("1024 tokens each"), std::string::npos) << is[0].message;
  EXPECT_FALSE(any(check_serving(env({{"LLAMA_ARG_CTX_SIZE", "32768"}, {"LLAMA_ARG_N_PARALLEL", "4"}}), nullptr),
                   "thin-slots"));
}

TEST(Serving, KvCacheAgainstTheGpusMemory) {
  // 8 slots x 32768 tokens, 28 layers, 8 KV heads of 128, f16 K and V: 262144 tokens x 114688
  // bytes = 28 GiB. On a 32 GiB card with a 16 GiB model: too much; on 141 GiB: fine.
  auto s = [](const char* ctk, const char* ctv) {
    serving_settings x;
    std::vector<std::string> e;
    serving_from_text(std::string("max_model_len=32768\nmax_num_seqs=8\nn_layer=28\nn_head_kv=8\nhead_dim=128\n"
                                  "model_bytes=17179869184\ncache_type_k=") + ctk + "\ncache_type_v=" + ctv +
                          "\nflash_attn=on\n",
                      "f", x, e);
    return x;
  };
  machine_facts r9700 = gpu_gib(32), h200 = gpu_gib(141);
  std::vector<serving_issue> is = check_serving(s("f16", "f16"), &r9700);
  ASSERT_TRUE(fired(is, "kv-exceeds-vram", status::fail));
  EXPECT_NE(is.back().message.find("KV cache 28.0 GiB for 262144 tokens plus the 16.0 GiB model exceeds 32.0 GiB"),
            std::string::npos)
      << is.back().message;
  EXPECT_FALSE(any(check_serving(s("f16", "f16"), &h200), "kv-exceeds-vram"));
  // q4_0 K and V: 28 GiB x 18/64 = 7.9 GiB, plus 16: 23.9 of 32, under 90 %.
  std::vector<serving_issue> q = check_serving(s("q4_0", "q4_0"), &r9700);
  EXPECT_FALSE(any(q, "kv-exceeds-vram"));
  EXPECT_FALSE(any(q, "kv-near-vram"));
  // Without the model's geometry there is no estimate, and no complaint.
  EXPECT_TRUE(check_serving(env({{"LLAMA_ARG_CTX_SIZE", "131072"}}), &r9700).empty());
}

TEST(Serving, UnknownCacheTypesNonNumbersAndBadFractions) {
  EXPECT_TRUE(fired(check_serving(env({{"LLAMA_ARG_CACHE_TYPE_K", "q3_k"}}), nullptr), "unknown-cache-type", status::fail));
  EXPECT_TRUE(fired(check_serving(env({{"LLAMA_ARG_UBATCH", "lots"}}), nullptr), "not-a-number", status::fail));
  serving_settings s;
  std::vector<std::string> e;
  serving_from_text("gpu_memory_utilization = 1.5\n", "f", s, e);
  EXPECT_TRUE(fired(check_serving(s, nullptr), "bad-memory-fraction", status::fail));
}

TEST(Serving, ResultSkipsPassesWarnsAndFails) {
  EXPECT_EQ(serving_result({}, {}, {}).outcome, status::skip);
  serving_settings ok = env({{"LLAMA_ARG_CTX_SIZE", "32768"}, {"LLAMA_ARG_N_PARALLEL", "2"}});
  probe_result p = serving_result(ok, check_serving(ok, nullptr), {});
  EXPECT_EQ(p.outcome, status::pass) << p.detail;
  EXPECT_EQ(p.data["settings"]["ctx_size"]["source"], "LLAMA_ARG_CTX_SIZE");
  serving_settings w = env({{"LLAMA_ARG_UBATCH", "4096"}});
  EXPECT_EQ(serving_result(w, check_serving(w, nullptr), {}).outcome, status::warn);
  serving_settings f = env({{"LLAMA_ARG_CACHE_TYPE_V", "q4_0"}, {"LLAMA_ARG_FLASH_ATTN", "0"}, {"LLAMA_ARG_UBATCH", "4096"}});
  probe_result r = serving_result(f, check_serving(f, nullptr), {});
  EXPECT_EQ(r.outcome, status::fail);
  EXPECT_NE(r.detail.find("(+1 more)"), std::string::npos) << r.detail;
  EXPECT_EQ(serving_result({}, {}, {"x.conf: cannot be read"}).outcome, status::fail);
}

TEST(Serving, TheProbeReadsTheConfigFileItIsGiven) {
  probe_context ctx;
  ctx.options["serving_config"] = "/nonexistent/serving.conf";
  probe_result r = serving_settings_probe.run(ctx);
  EXPECT_EQ(r.outcome, status::fail);
  EXPECT_NE(r.detail.find("/nonexistent/serving.conf: cannot be read"), std::string::npos) << r.detail;
}

}  // namespace
}  // namespace gs
