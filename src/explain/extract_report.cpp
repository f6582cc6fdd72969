// A gpustack JSON report inside a paste (a file, or the <details> block of an issue that
// `--markdown` wrote): its detected facts are read back so today's knowledge base re-judges an
// old report, and its failed steps' text joins the error text. A report's lists were made by
// detection over the whole machine, so its GPUs, packages and environment are complete.
#include <nlohmann/json.hpp>

#include "explain/paste_scan.h"
#include "report/json_path.h"

namespace gs {
namespace {

using nlohmann::json;

/// The outermost {...} that parses as a gpustack report, or a null json.
json find_report(std::string_view text) {
  for (size_t b = text.find('{'); b != std::string_view::npos; b = text.find('{', b + 1)) {
    if (text.substr(b, 4096).find("\"schema_version\"") == std::string_view::npos) continue;
    size_t e = text.rfind('}');
    while (e != std::string_view::npos && e > b) {
      json j = json::parse(text.substr(b, e - b + 1), nullptr, false);
      if (!j.is_discarded()) {
        if (j.is_object() && json_text_at(j, {"tool", "name"}) == "gpustack") return j;
        break;
      }
      e = e == 0 ? std::string_view::npos : text.rfind('}', e - 1);
    }
  }
  return json();
}

}  // namespace

bool scan_gpustack_report(std::string_view text, paste_scan& s) {
  if (text.find("\"gpustack\"") == std::string_view::npos) return false;
  json r = find_report(text);
  if (r.is_null()) return false;
  const char* k = "gpustack report";
  s.kind(k);
  const int w = weight::report_json;
  s.gpu_list = true;
  if (r.contains("gpus") && r["gpus"].is_array())
    for (const json& g : r["gpus"])
      if (g.is_object() && !json_text_at(g, {"arch"}).empty()) s.gpus.push_back({json_text_at(g, {"arch"}), json_text_at(g, {"name"}), 0, k, w});
  const json& st = r.value("stack", json::object());
  auto put = [&](const char* key, const std::string& v) {
    if (!v.empty()) s.facts.push_back({key, v, 0, k}), s.weights.push_back(w);
  };
  put("nvidia.driver", json_text_at(st, {"driver", "nvidia", "version"}));
  put("rocm.version", json_text_at(st, {"rocm", "version"}));
  put("cuda.toolkit", json_text_at(st, {"cuda", "toolkit_version"}));
  put("cuda.driver_api", json_text_at(st, {"cuda", "driver_api"}));
  put("python.version", json_text_at(st, {"python", "version"}));
  put("torch.cuda", json_text_at(st, {"torch", "cuda"}));
  put("torch.hip", json_text_at(st, {"torch", "hip"}));
  put("host.kernel", json_text_at(r, {"host", "kernel"}));
  put("host.os_id", json_text_at(r, {"host", "os", "id"}));
  put("host.os_version", json_text_at(r, {"host", "os", "version"}));
  put("host.container_kind", json_text_at(r, {"host", "container", "kind"}));
  if (st.contains("python") && st["python"].contains("packages") && st["python"]["packages"].is_object()) {
    for (const auto& [name, v] : st["python"]["packages"].items())
      if (v.is_string()) put(("pkg." + name).c_str(), v.get<std::string>());
    s.package_list = st["python"].value("found", false);
    s.torch_build_seen = true;
  }
  if (r.contains("env") && r["env"].is_object()) {
    for (const auto& [name, v] : r["env"].items())
      if (v.is_string()) put(("env." + name).c_str(), v.get<std::string>());
    s.env_dump = true;
  }
  if (r.contains("probes") && r["probes"].is_array())
    for (const json& p : r["probes"]) {
      std::string st_ = json_text_at(p, {"status"});
      if (st_ == "pass" || st_ == "skip" || st_.empty()) continue;
      s.extra_error_text += json_text_at(p, {"detail"}) + "\n";
      if (p.contains("data")) s.extra_error_text += json_text_at(p["data"], {"output_tail"}) + "\n";
      if (p.contains("kernel_log") && p["kernel_log"].is_array())
        for (const json& l : p["kernel_log"])
          if (l.is_string()) s.extra_error_text += l.get<std::string>() + "\n";
    }
  return true;
}

}  // namespace gs
