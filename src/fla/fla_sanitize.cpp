// See fla_sanitize.h.
#include "fla/fla_sanitize.h"

#include <unistd.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "core/text_scan.h"

namespace gs {

bool is_memory_fault(const probe_result& step) {
  std::string text = scan::lower(step.detail);
  if (step.data.is_object())
    if (const auto e = step.data.find("error"); e != step.data.end() && e->is_object() && e->contains("message") &&
                                               (*e)["message"].is_string())
      text += "\n" + scan::lower((*e)["message"].get<std::string>());
  for (const char* cue : {"illegal memory access", "misaligned address", "out of range address", "an illegal address",
                          "memory access fault by gpu", "cudaerrorillegaladdress", "hiperrorillegaladdress"})
    if (text.find(cue) != std::string::npos) return true;
  return false;
}

std::string find_compute_sanitizer() {
  std::vector<std::string> dirs;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) dirs.push_back(std::string(v) + "/bin");
  if (const char* path = std::getenv("PATH"))
    for (std::string_view d : scan::split(path, ':'))
      if (!d.empty()) dirs.emplace_back(d);
  dirs.insert(dirs.end(), {"/usr/local/cuda/bin", "/opt/cuda/bin"});
  for (const std::string& d : dirs) {
    std::string p = d + "/compute-sanitizer";
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

nlohmann::json sanitizer_report::to_json() const {
  nlohmann::json errs = nlohmann::json::array();
  for (const sanitizer_error& e : errors) errs.push_back({{"what", e.what}, {"kernel", e.kernel}, {"where", e.where}});
  nlohmann::json j = {{"errors", errs}};
  j["error_count"] = error_count ? nlohmann::json(*error_count) : nlohmann::json(nullptr);
  return j;
}

std::string sanitizer_report::summary() const {
  if (errors.empty()) return error_count && *error_count == 0 ? "no errors" : "no error named";
  std::string s = errors.front().what + (errors.front().kernel.empty() ? "" : " in " + errors.front().kernel);
  if (errors.size() > 1) s += " (+" + std::to_string(errors.size() - 1) + " other kinds)";
  if (error_count) s += " (" + std::to_string(*error_count) + " errors)";
  return s;
}

sanitizer_report parse_compute_sanitizer(std::string_view output) {
  constexpr std::string_view prefix = "=========";
  sanitizer_report r;
  sanitizer_error* open = nullptr;  // the error whose "at ..." line is still to come
  for (std::string_view line : scan::split(output, '\n')) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.substr(0, prefix.size()) != prefix) continue;
    std::string_view body = line.substr(prefix.size());
    const bool indented = body.size() > 1 && body[0] == ' ' && body[1] == ' ';
    std::string t(scan::trim(body));
    if (t.empty()) continue;
    if (!indented) {
      if (t.rfind("ERROR SUMMARY:", 0) == 0) {
        r.error_count = std::strtol(t.c_str() + 14, nullptr, 10);
        continue;
      }
      if (t.rfind("COMPUTE-SANITIZER", 0) == 0 || t.rfind("Target application", 0) == 0 || t.rfind("LEAK SUMMARY", 0) == 0 ||
          t.rfind("Error:", 0) == 0 || t.rfind("Program hit cudaError", 0) == 0) {
        open = nullptr;
        continue;
      }
      r.errors.push_back({t, "", ""});
      open = &r.errors.back();
      continue;
    }
    if (open && t.rfind("at ", 0) == 0 && open->where.empty()) {
      open->where = t;
      std::string k = t.substr(3);
      k = k.substr(0, k.find_first_of("+ ("));
      open->kernel = k;
      // One entry per (what, kernel): 228 copies of the same read say nothing more.
      for (size_t i = 0; i + 1 < r.errors.size(); ++i)
        if (r.errors[i].what == open->what && r.errors[i].kernel == open->kernel) {
          r.errors.pop_back();
          break;
        }
      open = nullptr;
    }
  }
  return r;
}

}  // namespace gs
