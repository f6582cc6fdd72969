// qlora_step_gemms: see qlora_gemms.h for each GEMM and where it comes from.
#include "models/qlora_gemms.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace gs {
namespace {

bool is_lora_target(const model_spec& m, const std::string& module) {
  return std::find(m.lora_targets.begin(), m.lora_targets.end(), module) != m.lora_targets.end();
}

// Adds g to `out`, or counts one more use of an identical shape already in `also` or `out` (a
// LoRA GEMM can equal a base one: in_proj_b's forward, 1024 -> 16, is a rank-16 lora_a.fwd of
// the modules before it). A name is the key the probes judge by, so a new shape under a name
// already taken (gemma4-31b's q_proj is 5376 -> 8192 in sliding layers, -> 16384 in full ones)
// is named with its layer kind: "q_proj.fwd" and "q_proj@full_attention.fwd".
void add_or_count(std::vector<qlora_gemm>& out, qlora_gemm g, std::vector<qlora_gemm>* also, layer_kind kind) {
  auto same = [&](const qlora_gemm& o) {
    return std::tie(o.m, o.n, o.k, o.trans_a, o.trans_b) == std::tie(g.m, g.n, g.k, g.trans_a, g.trans_b);
  };
  for (std::vector<qlora_gemm>* list : {also, &out}) {
    if (!list) continue;
    if (auto it = std::find_if(list->begin(), list->end(), same); it != list->end()) {
      ++it->uses_per_step;
      return;
    }
  }
  auto named = [&](const qlora_gemm& o) { return o.name == g.name; };
  if (std::any_of(out.begin(), out.end(), named) || (also && std::any_of(also->begin(), also->end(), named)))
    g.name.insert(g.module.size(), fmt::format("@{}", layer_kind_name(kind)));
  g.uses_per_step = 1;
  out.push_back(std::move(g));
}

}  // namespace

std::vector<qlora_gemm> qlora_step_gemms(const model_spec& m, int64_t tokens, const std::vector<int>& ranks) {
  const int64_t T = tokens;
  std::vector<qlora_gemm> base, lora;
  for (layer_kind kind : m.layer_types) {
    for (const linear_module& l : layer_linears(m, kind)) {
      add_or_count(base, {l.name + ".fwd", l.name, "fwd", 0, T, l.out, l.in, false, true}, &lora, kind);
      add_or_count(base, {l.name + ".dgrad", l.name, "dgrad", 0, T, l.in, l.out, false, false}, &lora, kind);
      if (!is_lora_target(m, l.name)) continue;
      for (int r : ranks) {
        auto add = [&](const char* role, int64_t mm, int64_t nn, int64_t kk, bool ta, bool tb) {
          add_or_count(lora, {fmt::format("{}.{}.r{}", l.name, role, r), l.name, role, r, mm, nn, kk, ta, tb}, &base, kind);
        };
        add("lora_a.fwd", T, r, l.in, false, true);
        add("lora_b.fwd", T, l.out, r, false, true);
        add("lora_b.wgrad", l.out, r, T, true, false);
        add("lora_b.dgrad", T, r, l.out, false, false);
        add("lora_a.wgrad", r, l.in, T, true, false);
        add("lora_a.dgrad", T, l.in, r, false, false);
      }
    }
  }
  std::stable_sort(lora.begin(), lora.end(), [](const qlora_gemm& a, const qlora_gemm& b) { return a.rank < b.rank; });
  base.insert(base.end(), lora.begin(), lora.end());
  return base;
}

}  // namespace gs
