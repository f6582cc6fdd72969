// code_compat.h.
#include "inspect/code_compat.h"

#include <charconv>
#include <mutex>

#include "core/assets.h"
#include "core/toml_table.h"

namespace gs {
namespace {

int parse_int(std::string_view s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size() ? v : -1;
}

}  // namespace

gpu_target parse_gpu_target(std::string_view arch) {
  gpu_target g;
  g.text = std::string(arch);
  std::string_view a = arch;
  if (a.starts_with("gfx")) {
    size_t colon = a.find(':');
    g.processor = std::string(a.substr(0, colon));
    if (g.processor.size() < 4) {
      gpu_target none;
      none.text = g.text;
      return none;
    }
    while (colon != std::string_view::npos) {
      size_t next = a.find(':', colon + 1);
      std::string_view f = a.substr(colon + 1, next == std::string_view::npos ? std::string_view::npos : next - colon - 1);
      if (f.size() >= 2 && (f.back() == '+' || f.back() == '-')) g.features[std::string(f.substr(0, f.size() - 1))] = f.back();
      colon = next;
    }
    g.vendor = "amd";
    return g;
  }
  for (std::string_view prefix : {"sm_", "sm", "compute_"})
    if (a.starts_with(prefix)) {
      std::string_view n = a.substr(prefix.size());
      while (!n.empty() && (n.back() == 'a' || n.back() == 'f')) n.remove_suffix(1);  // the device is what it is
      g.sm = parse_int(n);
      break;
    }
  if (g.sm <= 0) {  // "9.0" compute capability
    size_t dot = a.find('.');
    if (dot != std::string_view::npos) {
      int ma = parse_int(a.substr(0, dot)), mi = parse_int(a.substr(dot + 1));
      if (ma > 0 && mi >= 0 && mi < 10) g.sm = ma * 10 + mi;
    }
  }
  if (g.sm >= 10 && g.sm < 1000) g.vendor = "nvidia";
  else g.sm = 0;
  return g;
}

code_compat_table parse_code_compat(std::string_view path, std::string_view text, std::vector<table_error>& errors) {
  code_compat_table t;
  std::optional<toml::table> parsed = parse_toml_table(path, text, errors);
  if (!parsed) return t;
  toml::table& root = *parsed;
  for (auto& [k, v] : root) {
    if (k.str() == "schema") {
      if (integer_value(&v) != 1) errors.push_back(error_at(path, v, "schema must be 1"));
    } else if (k.str() != "amd_generic" && k.str() != "unjudged") {
      errors.push_back(error_at(path, v, "unknown key '" + std::string(k.str()) + "'"));
    }
  }
  if (const toml::array* skip = root["unjudged"].as_array()) {
    for (const toml::node& row : *skip) {
      const toml::table* r = row.as_table();
      auto lib = r ? (*r)["library"].value<std::string>() : std::nullopt;
      auto why = r ? (*r)["why"].value<std::string>() : std::nullopt;
      if (!lib || lib->empty() || !why) {
        errors.push_back(error_at(path, row, "unjudged entries need 'library' (a file-name prefix) and 'why'"));
        continue;
      }
      t.unjudged[*lib] = *why;
    }
  }
  const toml::array* rows = root["amd_generic"].as_array();
  if (!rows) return t;
  for (const toml::node& row : *rows) {
    const toml::table* r = row.as_table();
    if (!r) {
      errors.push_back(error_at(path, row, "amd_generic entries must be tables"));
      continue;
    }
    auto target = (*r)["target"].value<std::string>();
    const toml::array* members = (*r)["members"].as_array();
    if (!target || !target->starts_with("gfx") || !target->ends_with("-generic")) {
      errors.push_back(error_at(path, row, "'target' must be a gfx*-generic name"));
      continue;
    }
    if (!members) {
      errors.push_back(error_at(path, row, "'members' must be an array of gfx names"));
      continue;
    }
    for (auto& [k, v] : *r)
      if (k.str() != "target" && k.str() != "members") errors.push_back(error_at(path, v, "unknown key '" + std::string(k.str()) + "'"));
    std::vector<std::string>& list = t.amd_generic[*target];
    for (const toml::node& m : *members) {
      auto s = m.value<std::string>();
      if (!s || !s->starts_with("gfx")) errors.push_back(error_at(path, m, "members must be gfx names"));
      else list.push_back(*s);
    }
  }
  return t;
}

const std::string* code_compat_table::unjudged_reason(std::string_view file_name) const {
  for (const auto& [prefix, why] : unjudged)
    if (file_name.starts_with(prefix)) return &why;
  return nullptr;
}

const code_compat_table& builtin_code_compat() {
  static const code_compat_table table = [] {
    constexpr std::string_view path = "matrix/hardware/code_compat.toml";
    std::vector<table_error> errors;
    auto text = find_asset(path);
    if (!text) errors.push_back({std::string(path), 0, 0, "not embedded in this build"});
    code_compat_table t = text ? parse_code_compat(path, *text, errors) : code_compat_table{};
    // Its test (InspectCompat.BuiltinTableLoadsClean) keeps it clean; a user who runs a build
    // where it is not hears why a verdict says "unknown".
    print_table_errors(errors);
    return t;
  }();
  return table;
}

bool nvidia_code_runs(const gpu_target& gpu, bool ptx, int sm, std::string_view variant, bool* jit) {
  if (jit) *jit = false;
  if (gpu.vendor != "nvidia" || sm <= 0) return false;
  const int dev_major = gpu.sm / 10, dev_minor = gpu.sm % 10, major = sm / 10, minor = sm % 10;
  if (variant == "a" && gpu.sm != sm) return false;  // arch-specific: that exact GPU only
  if (ptx) {
    if (variant == "f" && dev_major != major) return false;
    bool ok = gpu.sm >= sm;
    if (ok && jit) *jit = true;
    return ok;
  }
  return dev_major == major && dev_minor >= minor;  // SASS: same major, device minor >= code minor
}

bool amd_code_runs(const gpu_target& gpu, std::string_view target, const code_compat_table& table) {
  if (gpu.vendor != "amd") return false;
  gpu_target code = parse_gpu_target(target);
  if (code.vendor != "amd") return false;
  bool processor_ok = code.processor == gpu.processor;
  if (!processor_ok) {
    auto it = table.amd_generic.find(code.processor);
    if (it != table.amd_generic.end())
      for (const std::string& m : it->second) processor_ok = processor_ok || m == gpu.processor;
  }
  if (!processor_ok) return false;
  for (const auto& [name, setting] : code.features) {
    auto dev = gpu.features.find(name);
    if (dev != gpu.features.end() && dev->second != setting) return false;  // unknown device setting: matches
  }
  return true;
}

}  // namespace gs
