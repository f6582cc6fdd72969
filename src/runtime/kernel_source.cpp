// Kernel source preparation: prelude headers from the assets, vendor and wave-size defines.
#include "runtime/kernel_source.h"

#include <algorithm>
#include <cctype>

#include "core/assets.h"

namespace gs {

namespace {

constexpr std::string_view kPrelude = "gs_device.h";

bool valid_define(const std::string& d) {
  if (d.empty()) return false;
  size_t eq = d.find('=');
  std::string_view name = std::string_view(d).substr(0, eq);
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  // The value reaches a compiler as one argv entry, so spaces are harmless; newlines are not
  // (a define spanning lines would let a request inject text into the source).
  return d.find('\n') == std::string::npos && d.find('\r') == std::string::npos;
}

std::string define_name(const std::string& d) { return d.substr(0, d.find('=')); }

const std::string* find_define(const std::vector<std::string>& defs, std::string_view name) {
  for (const std::string& d : defs)
    if (define_name(d) == name) return &d;
  return nullptr;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> device_headers() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const asset& a : assets_under("kernels/")) {
    std::string_view rel = std::string_view(a.path).substr(8);
    if (rel.find('/') != std::string_view::npos || !rel.ends_with(".h")) continue;
    out.emplace_back(std::string(rel), std::string(a.text));
  }
  std::stable_partition(out.begin(), out.end(), [](const auto& h) { return h.first == kPrelude; });
  return out;
}

runtime_status prepare_device_source(const compile_request& req, std::string_view backend, int device_wave,
                                     device_source& out) {
  const bool cuda = backend == "cuda";
  if (!cuda && backend != "hip")
    return runtime_status::failure("prepare_device_source", 1, "unknown backend '" + std::string(backend) + "'");
  if (req.source.empty()) return runtime_status::failure("prepare_device_source", 2, req.name + ": empty source");
  for (const std::string& d : req.defines)
    if (!valid_define(d))
      return runtime_status::failure("prepare_device_source", 3, req.name + ": malformed define '" + d + "'");

  const char* mine = cuda ? "GS_CUDA" : "GS_HIP";
  const char* other = cuda ? "GS_HIP" : "GS_CUDA";
  if (find_define(req.defines, other))
    return runtime_status::failure("prepare_device_source", 4,
                                   req.name + ": " + other + " requested for the " + std::string(backend) + " backend");

  out = device_source{};
  out.name = req.name;
  out.source = req.source;
  out.headers = device_headers();
  if (out.headers.empty() || out.headers.front().first != kPrelude)
    return runtime_status::failure("prepare_device_source", 5, "kernels/gs_device.h is not embedded in this binary");

  int wave = device_wave;
  if (const std::string* w = find_define(req.defines, "GS_WARP_SIZE")) {
    size_t eq = w->find('=');
    std::string v = eq == std::string::npos ? "" : w->substr(eq + 1);
    if (v != "32" && v != "64")
      return runtime_status::failure("prepare_device_source", 6, req.name + ": GS_WARP_SIZE must be 32 or 64, got '" + v + "'");
    wave = std::stoi(v);
  } else {
    if (device_wave != 32 && device_wave != 64)
      return runtime_status::failure("prepare_device_source", 6,
                                     "device wave size " + std::to_string(device_wave) + " is neither 32 nor 64");
    out.defines.push_back("GS_WARP_SIZE=" + std::to_string(wave));
  }
  if (cuda && wave != 32)
    return runtime_status::failure("prepare_device_source", 7, req.name + ": NVIDIA warps are 32 lanes, GS_WARP_SIZE=" +
                                                                   std::to_string(wave) + " cannot be honoured");
  out.wave_size = wave;
  if (!find_define(req.defines, mine)) out.defines.insert(out.defines.begin(), std::string(mine) + "=1");
  out.defines.insert(out.defines.end(), req.defines.begin(), req.defines.end());
  return runtime_status::success();
}

runtime_status kernel_request(std::string_view asset_path, compile_request& out, const std::vector<std::string>& defines) {
  std::optional<std::string_view> text = find_asset(asset_path);
  if (!text)
    return runtime_status::failure("find_asset", 1, std::string(asset_path) + " is not embedded in this binary");
  out = compile_request{};
  size_t slash = asset_path.rfind('/');
  out.name = std::string(slash == std::string_view::npos ? asset_path : asset_path.substr(slash + 1));
  out.source = std::string(*text);
  out.defines = defines;
  return runtime_status::success();
}

std::vector<std::string> define_options(const std::vector<std::string>& defines) {
  std::vector<std::string> out;
  out.reserve(defines.size());
  for (const std::string& d : defines) out.push_back("-D" + d);
  return out;
}

rtc_arrays::rtc_arrays(const device_source& src, const std::vector<std::string>& opts) {
  for (const auto& [name, text] : src.headers) {
    header_names.push_back(name.c_str());
    header_text.push_back(text.c_str());
  }
  for (const std::string& o : opts) options.push_back(o.c_str());
}

}  // namespace gs
