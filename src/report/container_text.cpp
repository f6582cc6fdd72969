// The `container` block in words (see container_text.h).
#include "report/container_text.h"

#include <cmath>

#include "report/json_path.h"

namespace gs {
namespace {

std::string joined(const nlohmann::json& a) {
  std::string out;
  if (a.is_array())
    for (const nlohmann::json& x : a)
      if (x.is_string()) out += (out.empty() ? "" : ", ") + x.get<std::string>();
  return out;
}

}  // namespace

std::vector<std::string> container_lines(const nlohmann::json& report) {
  std::vector<std::string> out;
  const nlohmann::json& b = json_object_at(report, "container");
  if (b.empty()) return out;
  out.push_back(json_text_at(b, {"file"}) + " (" + json_text_at(b, {"kind"}) + ")");
  for (const nlohmann::json& c : json_array_at(b, "containers")) {
    std::vector<std::string> parts;
    auto add = [&](const std::string& s) {
      if (!s.empty()) parts.push_back(s);
    };
    std::string stack = json_text_at(c, {"vendor"}) == "amd" ? "AMD" : json_text_at(c, {"vendor"}) == "nvidia" ? "NVIDIA" : "";
    for (auto [key, label] : {std::pair{"rocm", "ROCm "}, {"cuda", "CUDA "}, {"torch", "torch "}, {"python", "Python "}})
      if (!json_text_at(c, {key}).empty()) stack += (stack.empty() ? "" : ", ") + std::string(label) + json_text_at(c, {key});
    add(json_text_at(c, {"image"}).empty() ? "no image (built here)" : json_text_at(c, {"image"}));
    add(stack);
    if (json_text_at(c, {"runtime_known"}) == "true") {
      std::string devs = joined(c.value("devices", nlohmann::json::array()));
      add("devices " + (devs.empty() ? std::string("none") : devs));
      if (std::string g = joined(c.value("groups", nlohmann::json::array())); !g.empty()) add("groups " + g);
      if (json_text_at(c, {"privileged"}) == "true") add("privileged");
      if (json_text_at(c, {"ipc_host"}) == "true") add("host IPC");
      else if (c.contains("shm_bytes") && c["shm_bytes"].is_number())
        add("/dev/shm " + std::to_string(static_cast<long long>(std::llround(c["shm_bytes"].get<double>() / 1048576.0))) + " MiB");
      else add("/dev/shm 64 MiB (default)");
      if (!json_text_at(c, {"seccomp"}).empty()) add("seccomp " + json_text_at(c, {"seccomp"}));
      if (!json_text_at(c, {"gpu_request"}).empty()) add("GPUs: " + json_text_at(c, {"gpu_request"}));
      if (!json_text_at(c, {"runtime"}).empty()) add("runtime " + json_text_at(c, {"runtime"}));
    } else {
      add("how it runs is not in this file (a run line or compose file says it)");
    }
    if (!json_text_at(c, {"user"}).empty()) add("user " + json_text_at(c, {"user"}));
    if (std::string n = joined(c.value("notes", nlohmann::json::array())); !n.empty()) add("not read: " + n);
    std::string line = json_text_at(c, {"name"}).empty() ? "line " + json_text_at(c, {"line"}) : json_text_at(c, {"name"});
    line += ":";
    for (size_t i = 0; i < parts.size(); ++i) line += (i ? "; " : " ") + parts[i];
    out.push_back(line);
  }
  return out;
}

}  // namespace gs
