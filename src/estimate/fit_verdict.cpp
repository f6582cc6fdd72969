// judge_fit(): the verdict rules (docs/estimate.md "verdict").
//   GPU  usable = VRAM - CUDA context. fits: peak <= 95 % of usable (the caching allocator's
//        fragmentation needs the rest); marginal: within usable; does not fit: above usable
//        (with the longest --seq that would fit, or eval off, as the fix); unknown: no GPU
//        found and no --vram.
//   RAM  the load peak against total RAM: fits <= 90 %, marginal <= 100 %.
// Sizes are GiB (2^30 bytes) everywhere, as `check` shows VRAM and RAM, and --vram/--ram/--disk take GiB.
//   disk the estimate against free space where the HF cache lives: same thresholds.
#include "estimate/fit_verdict.h"

#include <fmt/format.h>

#include "core/byte_size.h"

namespace gs {
namespace {

fit worst(fit a, fit b) { return int(a) > int(b) ? a : b; }

fit_part judge_gpu(const model_spec& m, const run_shape& r, const memory_estimate& e, const machine_budget& mb, int& max_seq) {
  fit_part p{"gpu", fit::fits, "", {}};
  if (mb.vram_bytes == 0) {
    p.verdict = fit::unknown;
    p.reason = "no GPU found: pass --vram GIB to ask about a card";
    return p;
  }
  const double usable = double(mb.vram_bytes) - double(e.cuda_context);
  const double limit = usable * mem_const::fit_headroom;
  auto peak_at = [&](int seq, bool eval) {
    run_shape s = r;
    s.seq = seq;
    s.eval = eval;
    return double(estimate_training(m, s).gpu_peak);
  };
  max_seq = 0;
  for (int seq = r.seq; seq >= 128; seq = seq > 128 && seq % 128 ? seq / 128 * 128 : seq - 128)
    if (peak_at(seq, r.eval) <= limit) {
      max_seq = seq;
      break;
    }
  const double peak = double(e.gpu_peak);
  std::string card = fmt::format("{} ({} usable after the {} CUDA context)", gib_text(double(mb.vram_bytes)), gib_text(usable),
                                 gib_text(double(e.cuda_context)));
  if (peak <= limit) {
    p.reason = fmt::format("peak {} of {}", gib_text(peak), card);
    return p;
  }
  if (peak <= usable) {
    p.verdict = fit::marginal;
    p.reason = fmt::format("peak {} is within 5 % of {}: allocator fragmentation may tip it over", gib_text(peak), card);
    if (max_seq > 0 && max_seq < r.seq) p.fixes.push_back(fmt::format("--seq {}", max_seq));
    return p;
  }
  if (r.eval && double(e.gpu_peak_train) <= limit) {
    p.verdict = fit::does_not_fit;
    p.reason = fmt::format("training peaks at {} but eval adds {} (fp32 copy of {} x {} x {} logits) on top: {} > {}",
                           gib_text(double(e.gpu_peak_train)), gib_text(double(e.eval_spike)), r.eval_batch,
                           r.eval_seq > 0 ? r.eval_seq : r.seq, m.vocab_size, gib_text(peak), card);
    p.fixes.push_back("turn eval off");
    run_shape one = r;
    one.eval_batch = 1;
    memory_estimate e1 = estimate_training(m, one);
    if (double(e1.gpu_peak) <= limit) p.fixes.push_back(fmt::format("--eval-batch 1 (peak {})", gib_text(double(e1.gpu_peak))));
    return p;
  }
  if (max_seq > 0) {
    p.verdict = fit::does_not_fit;
    p.reason = fmt::format("peak {} at --seq {} exceeds {}; it fits up to --seq {}", gib_text(peak), r.seq, card, max_seq);
    p.fixes.push_back(fmt::format("--seq {}", max_seq));
    if (r.eval) p.fixes.push_back("turn eval off");
    return p;
  }
  p.verdict = fit::does_not_fit;
  p.reason = fmt::format("peak {} exceeds {}; the static part alone (NF4 base, 16-bit embedding, LoRA state) is {}",
                         gib_text(peak), card, gib_text(double(e.gpu_static_bytes)));
  p.fixes.push_back("a card with more memory, or a smaller model");
  if (!r.grad_checkpointing) p.fixes.push_back("gradient checkpointing on");
  return p;
}

fit_part judge_host(const char* what, double need, double have, const std::string& have_what, fit_part p) {
  if (have <= 0) {
    p.verdict = fit::unknown;
    p.reason = std::string(what) + " size unknown";
    return p;
  }
  p.verdict = need <= 0.9 * have ? fit::fits : need <= have ? fit::marginal : fit::does_not_fit;
  p.reason = fmt::format("{} needed, {} {}", gib_text(need), gib_text(have), have_what);
  return p;
}

}  // namespace

std::string_view fit_name(fit f) {
  switch (f) {
    case fit::fits: return "fits";
    case fit::unknown: return "unknown";
    case fit::marginal: return "marginal";
    case fit::does_not_fit: return "does not fit";
  }
  return "?";
}

fit_report judge_fit(const model_spec& m, const run_shape& r, const memory_estimate& e, const machine_budget& mb) {
  fit_report rep;
  rep.parts.push_back(judge_gpu(m, r, e, mb, rep.max_seq_that_fits));
  run_shape alt = r;
  alt.prequant = !r.prequant;
  memory_estimate other = estimate_training(m, alt);

  fit_part ram = judge_host("RAM", double(e.cpu_peak_load), double(mb.ram_bytes), "of RAM", {"ram", fit::fits, "", {}});
  if (ram.verdict != fit::fits && !r.prequant)
    ram.fixes.push_back(fmt::format("--prequant: a pre-quantized checkpoint loads in {} instead of staging the BF16 model",
                                    gib_text(double(other.cpu_peak_load))));
  else if (ram.verdict != fit::fits)
    ram.fixes.push_back("more RAM or swap");
  rep.parts.push_back(ram);

  fit_part disk = judge_host("disk", double(e.disk_bytes), double(mb.disk_free_bytes),
                             "free at " + (mb.disk_path.empty() ? std::string("the HF cache") : mb.disk_path),
                             {"disk", fit::fits, "", {}});
  if (disk.verdict != fit::fits) {
    if (!r.prequant) disk.fixes.push_back(fmt::format("--prequant (needs {})", gib_text(double(other.disk_bytes))));
    disk.fixes.push_back("HF_XET_CHUNK_CACHE_SIZE_BYTES=0 (skips the xet chunk cache, 10 GB by default)");
  }
  rep.parts.push_back(disk);
  for (const fit_part& p : rep.parts) rep.overall = worst(rep.overall, p.verdict);
  return rep;
}

nlohmann::json fit_report::to_json() const {
  nlohmann::json parts_j = nlohmann::json::array();
  for (const fit_part& p : parts)
    parts_j.push_back({{"what", p.what}, {"verdict", fit_name(p.verdict)}, {"reason", p.reason}, {"fixes", p.fixes}});
  return {{"verdict", fit_name(overall)}, {"parts", parts_j}, {"max_seq_that_fits", max_seq_that_fits}};
}

}  // namespace gs
