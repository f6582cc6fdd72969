// Which probes a run takes: named ones plus their dependencies in table order, or the default
// suite; and "did you mean" suggestions for an unknown id.
#include <algorithm>
#include <functional>
#include <set>

#include "core/edit_distance.h"
#include "watch/probe_runner.h"

namespace gs {
namespace {

const probe_spec* find_in(const std::vector<const probe_spec*>& table, std::string_view id) {
  for (const probe_spec* p : table)
    if (id == p->id) return p;
  return nullptr;
}

}  // namespace

std::vector<const probe_spec*> select_probes(const std::vector<const probe_spec*>& table,
                                             const std::vector<std::string>& ids,
                                             std::vector<std::string>* unknown) {
  std::set<std::string, std::less<>> want;
  std::function<void(std::string_view)> add = [&](std::string_view id) {
    const probe_spec* p = find_in(table, id);
    if (!p || !want.insert(std::string(id)).second) return;
    for (const char* dep : p->depends_on) add(dep);
  };
  for (const std::string& id : ids) {
    if (!find_in(table, id)) {
      if (unknown) unknown->push_back(id);
      continue;
    }
    add(id);
  }
  std::vector<const probe_spec*> out;
  for (const probe_spec* p : table)
    if (want.count(std::string_view(p->id))) out.push_back(p);
  return out;
}

std::vector<const probe_spec*> default_suite(const std::vector<const probe_spec*>& table) {
  std::vector<const probe_spec*> out;
  for (const probe_spec* p : table)
    if (!std::string_view(p->id).starts_with("selftest.")) out.push_back(p);
  return out;
}

std::vector<std::string> close_matches(const std::vector<const probe_spec*>& table,
                                       std::string_view id) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const probe_spec* p : table) {
    std::string_view cand = p->id;
    size_t d = edit_distance(id, cand);
    // A typo (distance up to a third of the length, at least 2), or a fragment of the id
    // ("bf16" -> gemm.bf16, "gemm" -> gemm.fp32, gemm.bf16).
    bool near = d <= std::max<size_t>(2, id.size() / 3);
    bool part = id.size() >= 3 && cand.find(id) != std::string_view::npos;
    if (near || part) scored.emplace_back(part ? 0 : d, std::string(cand));
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < 5; ++i) out.push_back(scored[i].second);
  return out;
}

}  // namespace gs
