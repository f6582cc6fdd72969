// `gpustack estimate --model NAME [--seq N] [--batch N] [--grad-accum N] [--prequant] [--eval]
//  [--layers N] [--width-scale S] [--vram GIB] [--ram GIB] [--json|--markdown]`: the QLoRA memory
// model (src/estimate/) for a registry model on this machine or an asked-about card.
// Exit 0 fits or unknown (no GPU to judge against), 1 marginal or does not fit, 2 bad arguments (unknown model, bad shrink).
#include <algorithm>
#include <sys/statvfs.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "cli/cli.h"
#include "core/byte_size.h"
#include "core/status.h"
#include "detect/detect.h"
#include "estimate/fit_verdict.h"
#include "estimate/memory_model.h"

namespace gs {
namespace {

struct estimate_args {
  std::string model;
  run_shape shape;
  bool no_checkpointing = false;
  int layers = 0;
  double width_scale = 1.0;
  double vram_gb = 0, ram_gb = 0, disk_gb = 0;
  bool list_models = false;
  output_options out;  ///< the same --json/--markdown/-o as every command
};

// Where the HF cache would put the download: HF_HUB_CACHE, HF_HOME/hub, ~/.cache/huggingface/hub,
// walked up to the nearest directory that exists.
std::string hf_cache_dir() {
  std::string p;
  if (const char* c = std::getenv("HF_HUB_CACHE"); c && *c) p = c;
  else if (const char* h = std::getenv("HF_HOME"); h && *h) p = std::string(h) + "/hub";
  else if (const char* home = std::getenv("HOME"); home && *home) p = std::string(home) + "/.cache/huggingface/hub";
  else p = "/";
  struct statvfs s {};
  while (!p.empty() && statvfs(p.c_str(), &s) != 0) {
    size_t slash = p.find_last_of('/');
    p = slash == 0 || slash == std::string::npos ? "/" : p.substr(0, slash);
    if (p == "/") break;
  }
  return p;
}

machine_budget detect_budget(const estimate_args& a) {
  machine_budget mb;
  machine_facts f;
  sysroot sys = sysroot::live();
  detect_host(sys, f);
  if (a.vram_gb <= 0) {
    detect_amd(sys, f);
    detect_nvidia(sys, f);
  }
  if (a.vram_gb > 0) {
    mb.vram_bytes = uint64_t(a.vram_gb * double(1ull << 30));
    mb.gpu_name = fmt::format("--vram {} GiB", a.vram_gb);
  } else {
    for (const gpu_info& g : f.gpus)
      if (g.vram_bytes > mb.vram_bytes) {
        mb.vram_bytes = g.vram_bytes;
        mb.gpu_name = g.name.empty() ? g.arch : g.name;
      }
  }
  mb.ram_bytes = a.ram_gb > 0 ? uint64_t(a.ram_gb * double(1ull << 30)) : f.host.ram_total_bytes;
  if (a.disk_gb > 0) {
    mb.disk_free_bytes = uint64_t(a.disk_gb * double(1ull << 30));
    mb.disk_path = "--disk";
  } else {
    mb.disk_path = hf_cache_dir();
    struct statvfs s {};
    if (statvfs(mb.disk_path.c_str(), &s) == 0) mb.disk_free_bytes = uint64_t(s.f_bavail) * s.f_frsize;
  }
  return mb;
}

std::string shape_line(const model_spec& m, const run_shape& r) {
  return fmt::format("{} ({} layers: {}), seq {}, batch {} x {} accumulation, LoRA r={} alpha={}, checkpointing {}, eval {}{}, {}",
                     m.name, m.num_layers,
                     m.linear_attention.present()
                         ? fmt::format("{} linear + {} full", m.count(layer_kind::linear_attention), m.count(layer_kind::full_attention))
                         : fmt::format("{} sliding + {} full", m.count(layer_kind::sliding_attention), m.count(layer_kind::full_attention)),
                     r.seq, r.batch, r.grad_accum, r.lora_rank, r.lora_alpha, r.grad_checkpointing ? "on" : "off",
                     r.eval ? "on" : "off",
                     r.eval ? fmt::format(" (batch {} x {})", r.eval_batch, r.eval_seq > 0 ? r.eval_seq : r.seq) : "",
                     r.prequant ? "pre-quantized NF4 checkpoint" : "BF16 checkpoint + load_in_4bit");
}

std::string render_text(const model_spec& m, const memory_estimate& e, const fit_report& f, const machine_budget& mb,
                        bool md) {
  std::string o;
  // One label column for every table, as wide as its longest label (Gemma's soft-capped logits
  // row is 66 characters).
  size_t w = 0;
  for (const auto* terms : {&e.gpu_static, &e.gpu_transient, &e.cpu_terms, &e.disk_terms})
    for (const mem_term& t : *terms) w = std::max(w, t.label.size());
  w = std::max<size_t>(w, 58);
  auto row = [&](const mem_term& t) {
    if (md) o += fmt::format("| {} | {} | {} |\n", t.label, gib_text(double(t.bytes), 2), t.math);
    else o += fmt::format("  {:<{}} {:>10}  {}\n", t.label, w, gib_text(double(t.bytes), 2), t.math);
  };
  auto head = [&](const std::string& h) {
    if (md) o += "\n**" + h + "**\n\n| component | bytes | napkin math |\n|---|---:|---|\n";
    else o += h + "\n";
  };
  auto total = [&](const std::string& l, uint64_t b) {
    if (md) o += fmt::format("| **{}** | **{}** | |\n", l, gib_text(double(b), 2));
    else o += fmt::format("  {:<{}} {:>10}\n", l, w, gib_text(double(b), 2));
  };
  o += md ? "### gpustack estimate\n\n" + shape_line(m, e.shape) + "\n"
          : "gpustack estimate: " + shape_line(m, e.shape) + "\n\n";
  head("GPU, held for the run");
  for (const mem_term& t : e.gpu_static) row(t);
  total("static", e.gpu_static_bytes);
  head("GPU, transient at the peak");
  for (const mem_term& t : e.gpu_transient) row(t);
  total("peak while training (torch.cuda.max_memory_allocated)", e.gpu_peak_train);
  if (e.eval_spike) {
    total("eval: fp32 copy of the eval logits, on top", e.eval_spike);
    total("peak with eval", e.gpu_peak);
  }
  total("CUDA context (outside the allocator)", e.cuda_context);
  head("Host RAM while loading");
  for (const mem_term& t : e.cpu_terms) row(t);
  total("peak", e.cpu_peak_load);
  head("Download and disk");
  row({"download", "download", e.download_bytes, e.shape.prequant ? "NF4 Linears + 16-bit rest" : "all params x 2 B"});
  for (const mem_term& t : e.disk_terms) row(t);
  total("disk", e.disk_bytes);
  o += md ? "\n**Verdict: " + std::string(fit_name(f.overall)) + "**"
          : "\nverdict: " + std::string(fit_name(f.overall));
  o += fmt::format(" on {}, {} RAM\n", mb.gpu_name.empty() ? "no GPU" : mb.gpu_name, gib_text(double(mb.ram_bytes), 2));
  for (const fit_part& p : f.parts) {
    o += fmt::format("{}{:<5} {:<13} {}\n", md ? "- " : "  ", p.what, fit_name(p.verdict), p.reason);
    for (const std::string& x : p.fixes) o += fmt::format("{}        try: {}\n", md ? "  " : "  ", x);
  }
  return o;
}

int run_estimate(const estimate_args& a) {
  std::vector<std::string> near;
  const model_registry& reg = builtin_model_registry();
  if (a.list_models) {
    for (const std::string& n : reg.names()) {
      const model_spec* m = find_model(reg, n, nullptr);
      std::printf("%-16s %s\n", n.c_str(), m ? m->hf_repo.c_str() : "");
    }
    return exit_ok;
  }
  if (a.model.empty()) {
    std::fprintf(stderr, "gpustack estimate: --model NAME is required (--list-models shows them)\n");
    return exit_usage;
  }
  for (const model_error& err : reg.errors) std::fprintf(stderr, "gpustack estimate: %s\n", err.describe().c_str());
  const model_spec* base = find_model(reg, a.model, &near);
  if (!base) {
    std::string msg = "unknown model '" + a.model + "'";
    for (size_t i = 0; i < near.size(); ++i) msg += (i == 0 ? " (did you mean " : ", ") + near[i];
    if (!near.empty()) msg += "?)";
    msg += "; known: ";
    std::vector<std::string> names = reg.names();
    for (size_t i = 0; i < names.size(); ++i) msg += (i ? ", " : "") + names[i];
    std::fprintf(stderr, "gpustack estimate: %s\n", msg.c_str());
    return exit_usage;
  }
  std::string err;
  std::optional<model_spec> m = shrink(*base, a.layers, a.width_scale, &err);
  if (!m) {
    std::fprintf(stderr, "gpustack estimate: %s\n", err.c_str());
    return exit_usage;
  }
  run_shape r = a.shape;
  r.grad_checkpointing = !a.no_checkpointing;
  memory_estimate e = estimate_training(*m, r);
  machine_budget mb = detect_budget(a);
  fit_report f = judge_fit(*m, r, e, mb);
  nlohmann::json j = e.to_json();
  j["machine"] = {{"gpu", mb.gpu_name}, {"vram_bytes", mb.vram_bytes}, {"ram_bytes", mb.ram_bytes},
                  {"disk_free_bytes", mb.disk_free_bytes}, {"disk_path", mb.disk_path}};
  j["fit"] = f.to_json();
  j["hf_config"] = to_hf_config_json(*m);
  if (!emit_report(a.out, j.dump(2) + "\n", a.out.markdown ? render_text(*m, e, f, mb, true) : "",
                   a.out.json || a.out.markdown ? "" : render_text(*m, e, f, mb, false)))
    return exit_usage;
  return f.overall == fit::fits || f.overall == fit::unknown ? exit_ok : 1;  // unknown: nothing failed
}

}  // namespace

command_spec estimate_command() {
  return {"estimate", "predict GPU memory, host RAM, download and disk for a QLoRA run of a registry model",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<estimate_args>();
            CLI::Option* list = sub.add_flag("--list-models", a->list_models, "list the registry's models (matrix/models) and exit");
            sub.add_option("--model", a->model, "registry model (matrix/models; --list-models shows them)")->excludes(list);
            sub.add_option("--seq", a->shape.seq, "tokens per sequence")->check(CLI::Range(1, 1 << 22))->capture_default_str();
            sub.add_option("--batch", a->shape.batch, "sequences per micro-batch")->check(CLI::Range(1, 4096))->capture_default_str();
            sub.add_option("--grad-accum", a->shape.grad_accum, "micro-batches per optimizer step (does not change the peak)")
                ->check(CLI::Range(1, 1 << 20))->capture_default_str();
            sub.add_option("--lora-rank", a->shape.lora_rank, "LoRA rank r")->check(CLI::Range(1, 4096))->capture_default_str();
            sub.add_flag("--prequant", a->shape.prequant, "load a pre-quantized NF4 checkpoint (no BF16 staging in RAM)");
            sub.add_flag("--eval", a->shape.eval, "evaluation on: adds the fp32 copy of the eval logits");
            sub.add_option("--eval-batch", a->shape.eval_batch, "eval sequences per batch (HF default 8)")
                ->check(CLI::Range(1, 4096))->capture_default_str();
            sub.add_option("--eval-seq", a->shape.eval_seq, "eval tokens per sequence (default: --seq)")->check(CLI::Range(1, 1 << 22));
            sub.add_flag("--no-checkpointing", a->no_checkpointing, "gradient checkpointing off (every layer's activations kept)");
            sub.add_option("--layers", a->layers, "shrink to N decoder layers (a multiple of the layer-pattern period)")
                ->check(CLI::Range(1, 1 << 16));
            sub.add_option("--width-scale", a->width_scale, "shrink hidden/intermediate sizes and head counts by S in (0, 1]")
                ->check(CLI::Range(0.001, 1.0));
            sub.add_option("--vram", a->vram_gb, "ask about a card with GIB GiB of memory (as `check` shows it) instead of this machine's GPU")
                ->check(CLI::Range(0.1, 100000.0));
            sub.add_option("--ram", a->ram_gb, "ask about GIB GiB of host RAM instead of this machine's")->check(CLI::Range(0.1, 1e7));
            sub.add_option("--disk", a->disk_gb, "ask about GIB GiB of free disk instead of the HF cache's filesystem")
                ->check(CLI::Range(0.1, 1e9));
            add_output_options(sub, a->out);  // --json: the estimate, fit verdict and HF config
            return [a] { return run_estimate(*a); };
          }};
}

}  // namespace gs
