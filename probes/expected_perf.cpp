// Loader and verdict for matrix/hardware/expected_perf.toml; see expected_perf.h.
#include "probes/expected_perf.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <toml++/toml.h>

#include "core/assets.h"

namespace gs {
namespace {

constexpr const char* builtin_path = "matrix/hardware/expected_perf.toml";

bool contains_nocase(std::string_view hay, std::string_view needle) {
  auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(),
                        [](char a, char b) { return std::tolower((unsigned char)a) == std::tolower((unsigned char)b); });
  return it != hay.end();
}

std::string where(std::string_view source, const toml::source_region& r) {
  return fmt::format("{}:{}:{}", source, r.begin.line, r.begin.column);
}

// A non-negative number (integer or float) at key, or an error naming the place.
bool read_number(const toml::table& t, std::string_view key, std::string_view source, double& out, std::string& error) {
  const toml::node* n = t.get(key);
  if (!n) return true;
  if (auto v = n->value<double>(); v && (n->is_integer() || n->is_floating_point()) && *v >= 0) {
    out = *v;
    return true;
  }
  error = where(source, n->source()) + ": '" + std::string(key) + "' must be a non-negative number";
  return false;
}

bool read_string(const toml::table& t, std::string_view key, std::string_view source, std::string& out, std::string& error) {
  const toml::node* n = t.get(key);
  if (!n) return true;
  if (auto v = n->value<std::string>(); v && n->is_string()) {
    out = *v;
    return true;
  }
  error = where(source, n->source()) + ": '" + std::string(key) + "' must be a string";
  return false;
}

bool known_figure(std::string_view key) {
  return key == "hbm_peak_gbps" || key == "copy_gbps" || key == "fp32_tflops" || key == "bf16_tflops" ||
         key == "fp16_tflops" || key == "fp8_tflops" || key == "bf16_library_tflops";
}

}  // namespace

double gpu_expectation::figure(std::string_view key) const {
  if (key == "hbm_peak_gbps") return hbm_peak_gbps;
  if (key == "copy_gbps") return copy_gbps;
  if (key == "fp32_tflops") return fp32_tflops;
  if (key == "bf16_tflops") return bf16_tflops;
  if (key == "fp16_tflops") return fp16_tflops;
  if (key == "fp8_tflops") return fp8_tflops;
  if (key == "bf16_library_tflops") return bf16_library_tflops;
  return 0;
}

const gpu_expectation* expected_perf::find_gpu(std::string_view arch, std::string_view device_name) const {
  for (const gpu_expectation& g : gpus)
    if (g.arch == arch && !g.name_contains.empty() && contains_nocase(device_name, g.name_contains)) return &g;
  for (const gpu_expectation& g : gpus)
    if (g.arch == arch && g.name_contains.empty()) return &g;
  return nullptr;
}

const kernel_expectation* expected_perf::find_kernel(std::string_view name) const {
  for (const kernel_expectation& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

bool parse_expected_perf(std::string_view text, std::string_view source, expected_perf& out, std::string& error) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    error = where(source, e.source()) + ": " + std::string(e.description());
    return false;
  }
  expected_perf perf;
  if (auto schema = root["schema"].value<int64_t>(); !schema || *schema != 1) {
    error = std::string(source) + ":1:1: expected 'schema = 1'";
    return false;
  }
  if (const toml::table* policy = root["policy"].as_table()) {
    if (!read_number(*policy, "gemm_warn_below", source, perf.gemm_warn_below, error) ||
        !read_number(*policy, "bandwidth_warn_below", source, perf.bandwidth_warn_below, error) ||
        !read_number(*policy, "copy_fraction_of_peak", source, perf.copy_fraction_of_peak, error))
      return false;
  }
  if (const toml::node* gpus = root.get("gpu")) {
    const toml::array* arr = gpus->as_array();
    if (!arr) {
      error = where(source, gpus->source()) + ": 'gpu' must be an array of tables ([[gpu]])";
      return false;
    }
    for (const toml::node& n : *arr) {
      const toml::table* t = n.as_table();
      if (!t) {
        error = where(source, n.source()) + ": each [[gpu]] must be a table";
        return false;
      }
      gpu_expectation g;
      bool ok = read_string(*t, "arch", source, g.arch, error) && read_string(*t, "name_contains", source, g.name_contains, error) &&
                read_string(*t, "label", source, g.label, error) && read_number(*t, "hbm_peak_gbps", source, g.hbm_peak_gbps, error) &&
                read_number(*t, "copy_gbps", source, g.copy_gbps, error) && read_number(*t, "fp32_tflops", source, g.fp32_tflops, error) &&
                read_number(*t, "bf16_tflops", source, g.bf16_tflops, error) && read_number(*t, "fp16_tflops", source, g.fp16_tflops, error) &&
                read_number(*t, "fp8_tflops", source, g.fp8_tflops, error) &&
                read_number(*t, "bf16_library_tflops", source, g.bf16_library_tflops, error);
      if (!ok) return false;
      if (g.arch.empty()) {
        error = where(source, t->source()) + ": [[gpu]] needs an 'arch'";
        return false;
      }
      g.approximate = (*t)["approximate"].value_or(false);
      perf.gpus.push_back(std::move(g));
    }
  }
  if (const toml::node* kernels = root.get("kernel")) {
    const toml::array* arr = kernels->as_array();
    if (!arr) {
      error = where(source, kernels->source()) + ": 'kernel' must be an array of tables ([[kernel]])";
      return false;
    }
    for (const toml::node& n : *arr) {
      const toml::table* t = n.as_table();
      if (!t) {
        error = where(source, n.source()) + ": each [[kernel]] must be a table";
        return false;
      }
      kernel_expectation k;
      if (!read_string(*t, "name", source, k.name, error) || !read_string(*t, "bound_by", source, k.bound_by, error) ||
          !read_number(*t, "fraction", source, k.fraction, error))
        return false;
      if (k.name.empty() || !known_figure(k.bound_by) || k.fraction <= 0 || k.fraction > 1) {
        error = where(source, t->source()) + ": [[kernel]] needs a name, a bound_by naming a [[gpu]] figure and 0 < fraction <= 1";
        return false;
      }
      perf.kernels.push_back(std::move(k));
    }
  }
  out = std::move(perf);
  return true;
}

const expected_perf& builtin_expected_perf(std::string* error) {
  static std::string load_error;
  static const expected_perf perf = [] {
    expected_perf p;
    std::optional<std::string_view> text = find_asset(builtin_path);
    if (!text) load_error = std::string(builtin_path) + " is not embedded in this binary";
    else if (!parse_expected_perf(*text, builtin_path, p, load_error)) p = expected_perf{};
    return p;
  }();
  if (error) *error = load_error;
  return perf;
}

rate_verdict judge_rate(double achieved, double expected, double warn_below, std::string_view unit, std::string_view causes) {
  rate_verdict v;
  v.expected = expected;
  if (expected <= 0) {
    v.detail = fmt::format("{:.4g} {} (no expected figure for this device)", achieved, unit);
    return v;
  }
  v.ratio = achieved / expected;
  v.detail = fmt::format("{:.4g} {}, {:.0f}% of the expected {:.4g}", achieved, unit, 100 * v.ratio, expected);
  if (v.ratio < warn_below) {
    v.outcome = status::warn;
    v.detail += fmt::format(" (under {:.0f}%: {})", 100 * warn_below, causes);
  }
  return v;
}

double expected_rate(const expected_perf& perf, const gpu_expectation* gpu, std::string_view kernel, std::string& basis) {
  basis.clear();
  const kernel_expectation* k = perf.find_kernel(kernel);
  if (!gpu || !k) {
    basis = !gpu ? "no [[gpu]] entry for this device" : "no [[kernel]] entry for " + std::string(kernel);
    return 0;
  }
  double figure = gpu->figure(k->bound_by);
  std::string figure_basis = fmt::format("{} {} {:.4g}", gpu->label, k->bound_by, figure);
  if (figure <= 0 && k->bound_by == "copy_gbps" && gpu->hbm_peak_gbps > 0) {
    figure = gpu->hbm_peak_gbps * perf.copy_fraction_of_peak;
    figure_basis = fmt::format("{} hbm_peak_gbps {:.4g} x copy_fraction_of_peak {:.2f} (no measured copy)", gpu->label,
                               gpu->hbm_peak_gbps, perf.copy_fraction_of_peak);
  }
  if (figure <= 0) {
    basis = gpu->label + " has no " + k->bound_by;
    return 0;
  }
  basis = fmt::format("{} x {} fraction {:.2f}{}", figure_basis, k->name, k->fraction, gpu->approximate ? " (approximate figures)" : "");
  return figure * k->fraction;
}

device_expectation builtin_expectation(std::string_view arch, std::string_view device_name, std::string_view kernel) {
  device_expectation e;
  std::string load_error;
  e.perf = &builtin_expected_perf(&load_error);
  e.gpu = e.perf->find_gpu(arch, device_name);
  e.expected = expected_rate(*e.perf, e.gpu, kernel, e.basis);
  if (!(e.expected > 0) && !load_error.empty()) e.basis = load_error;
  return e;
}

}  // namespace gs
