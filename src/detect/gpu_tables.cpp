// Loading and lookup of the matrix/hardware/*.toml GPU tables (see gpu_tables.h).
#include "detect/gpu_tables.h"

#include <algorithm>
#include <mutex>
#include <set>

#include "core/assets.h"
#include "core/text_scan.h"
#include "core/toml_table.h"

namespace gs {
namespace {

/// An integer field in [0, max]; records an error and returns nullopt when it is not one.
std::optional<uint64_t> int_field(std::string_view path, const toml::table& t, const char* key,
                                  uint64_t max, std::vector<table_error>& errors) {
  const toml::node* n = t.get(key);
  if (!n) return std::nullopt;
  std::optional<int64_t> v = integer_value(n);
  if (!v || *v < 0 || static_cast<uint64_t>(*v) > max) {
    errors.push_back(error_at(path, *n, std::string("'") + key + "' must be an integer in 0.." +
                                            std::to_string(max)));
    return std::nullopt;
  }
  return static_cast<uint64_t>(*v);
}

std::string str_field(std::string_view path, const toml::table& t, const char* key,
                      std::vector<table_error>& errors) {
  const toml::node* n = t.get(key);
  if (!n) return "";
  if (!n->is_string()) {
    errors.push_back(error_at(path, *n, std::string("'") + key + "' must be a string"));
    return "";
  }
  return *n->value<std::string>();
}

bool known_keys(std::string_view path, const toml::table& t, const std::set<std::string_view>& keys,
                std::vector<table_error>& errors) {
  bool ok = true;
  for (auto& [k, v] : t)
    if (!keys.count(k.str())) {
      errors.push_back(error_at(path, v, "unknown key '" + std::string(k.str()) + "'"));
      ok = false;
    }
  return ok;
}

void parse_gpu(std::string_view path, const toml::table& t, std::vector<gpu_table_entry>& gpus,
               std::vector<table_error>& errors) {
  static const std::set<std::string_view> keys{"device", "revision", "name", "arch",
                                               "compute_capability", "compute_units", "vram_gib",
                                               "vram_mib", "note"};
  size_t before = errors.size();
  known_keys(path, t, keys, errors);
  gpu_table_entry e;
  auto device = int_field(path, t, "device", 0xffff, errors);
  if (!device && errors.size() == before) errors.push_back(error_at(path, t, "[[gpu]] needs 'device'"));
  if (auto rev = int_field(path, t, "revision", 0xff, errors)) e.revision = static_cast<uint32_t>(*rev);
  e.name = str_field(path, t, "name", errors);
  if (e.name.empty() && errors.size() == before) errors.push_back(error_at(path, t, "[[gpu]] needs 'name'"));
  e.arch = str_field(path, t, "arch", errors);
  e.compute_capability = str_field(path, t, "compute_capability", errors);
  e.compute_units = static_cast<int>(int_field(path, t, "compute_units", 100000, errors).value_or(0));
  // Board memory: vram_mib when a real capture gave the exact figure, vram_gib when nominal.
  if (auto mib = int_field(path, t, "vram_mib", 1u << 24, errors)) e.vram_bytes = *mib << 20;
  else if (auto gib = int_field(path, t, "vram_gib", 1u << 14, errors)) e.vram_bytes = *gib << 30;
  if (errors.size() != before || !device) return;
  e.device = static_cast<uint32_t>(*device);
  gpus.push_back(std::move(e));
}

void parse_family(std::string_view path, const toml::table& t, std::vector<arch_family>& families,
                  std::vector<table_error>& errors) {
  static const std::set<std::string_view> keys{"prefix", "family", "wave_size", "note"};
  size_t before = errors.size();
  known_keys(path, t, keys, errors);
  arch_family f;
  f.prefix = str_field(path, t, "prefix", errors);
  f.family = str_field(path, t, "family", errors);
  f.wave_size = static_cast<int>(int_field(path, t, "wave_size", 64, errors).value_or(0));
  if (f.prefix.empty() || f.family.empty()) {
    if (errors.size() == before) errors.push_back(error_at(path, t, "[[family]] needs 'prefix' and 'family'"));
    return;
  }
  if (errors.size() == before) families.push_back(std::move(f));
}

}  // namespace

void parse_gpu_table(std::string_view path, std::string_view text, std::vector<gpu_table_entry>& gpus,
                     std::vector<arch_family>& families, std::vector<table_error>& errors) {
  std::optional<toml::table> parsed = parse_toml_table(path, text, errors);
  if (!parsed) return;
  const toml::table& root = *parsed;
  size_t first_new = errors.size();
  for (auto& [k, v] : root) {
    std::string_view key = k.str();
    const toml::array* arr = v.as_array();
    if ((key != "gpu" && key != "family") || !arr) {
      errors.push_back(error_at(path, v, "unknown top-level key '" + std::string(key) +
                                             "' (expected [[gpu]] or [[family]])"));
      continue;
    }
    for (const toml::node& item : *arr) {
      const toml::table* t = item.as_table();
      if (!t) {
        errors.push_back(error_at(path, item, "expected a table"));
        continue;
      }
      if (key == "gpu") parse_gpu(path, *t, gpus, errors);
      else parse_family(path, *t, families, errors);
    }
  }
  // toml++ iterates keys sorted ("family" before "gpu"); report in file order.
  std::stable_sort(errors.begin() + static_cast<std::ptrdiff_t>(first_new), errors.end(),
                   [](const table_error& a, const table_error& b) {
                     return a.line != b.line ? a.line < b.line : a.column < b.column;
                   });
}

const gpu_tables& builtin_gpu_tables(std::vector<table_error>* errors) {
  static gpu_tables tables;
  static std::vector<table_error> load_errors;
  static std::once_flag once;
  std::call_once(once, [] {
    std::vector<arch_family> unused;
    for (const char* p : {"matrix/hardware/amd_gpus.toml", "matrix/hardware/nvidia_gpus.toml"}) {
      auto text = find_asset(p);
      if (!text) {
        load_errors.push_back({p, 0, 0, "not embedded in this build"});
        continue;
      }
      bool amd = std::string_view(p).find("amd") != std::string_view::npos;
      parse_gpu_table(p, *text, amd ? tables.amd : tables.nvidia, amd ? tables.amd_families : unused,
                      load_errors);
    }
    print_table_errors(load_errors);
  });
  if (errors) *errors = load_errors;
  return tables;
}

const gpu_table_entry* find_gpu(const std::vector<gpu_table_entry>& table, uint32_t device,
                                std::optional<uint32_t> revision) {
  const gpu_table_entry* any = nullptr;
  for (const gpu_table_entry& e : table) {
    if (e.device != device) continue;
    if (e.revision && revision && *e.revision == *revision) return &e;
    if (!e.revision && !any) any = &e;
  }
  return any;
}

const arch_family* find_amd_family(const gpu_tables& t, std::string_view gfx) {
  const arch_family* best = nullptr;
  for (const arch_family& f : t.amd_families)
    if (gfx.starts_with(f.prefix) && (!best || f.prefix.size() > best->prefix.size())) best = &f;
  return best;
}

}  // namespace gs
