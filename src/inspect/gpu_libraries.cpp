// gpu_libraries.h.
#include "inspect/gpu_libraries.h"

#include <set>

#include "core/text_scan.h"
#include "python/dist_info.h"
#include "python/pep503.h"

namespace gs {
namespace {

bool is_shared_object(std::string_view path) {
  size_t slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return name.ends_with(".so") || name.find(".so.") != std::string_view::npos;
}

}  // namespace

bool is_gpu_package(const std::string& n) {
  static const std::set<std::string> names{"torch", "bitsandbytes", "triton", "pytorch-triton-rocm", "pytorch-triton",
                                           "triton-rocm", "flash-attn", "causal-conv1d", "mamba-ssm", "xformers",
                                           "torchvision", "torchaudio"};
  return names.count(n) > 0 || n.starts_with("nvidia-");
}

std::vector<std::string> record_shared_objects(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view line : scan::lines(text)) {
    std::string path;
    if (line.starts_with('"')) {  // CSV quoting: a path holding a comma
      for (size_t i = 1; i < line.size(); ++i) {
        if (line[i] == '"' && i + 1 < line.size() && line[i + 1] == '"') path += '"', ++i;
        else if (line[i] == '"') break;
        else path += line[i];
      }
    } else {
      path = std::string(line.substr(0, line.find(',')));
    }
    while (!path.empty() && (path.back() == '\r' || path.back() == ' ')) path.pop_back();
    if (path.empty() || path.starts_with("/") || path.starts_with("../") || path.find("/../") != std::string::npos) continue;
    if (is_shared_object(path)) out.push_back(path);
  }
  return out;
}

std::vector<gpu_library_ref> find_gpu_libraries(const sysroot& sys, const machine_facts& facts) {
  std::vector<gpu_library_ref> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& path, const std::string& package) {
    if (seen.insert(path).second) out.push_back({path, package});
  };
  for (const std::string& sp : facts.python.site_packages) {
    for (const std::string& entry : sys.list(sp)) {
      if (!entry.ends_with(".dist-info")) continue;
      auto dn = split_dist_dir_name(entry);
      if (!dn) continue;
      std::string name = pep503_normalize(dn->name);
      if (!is_gpu_package(name)) continue;
      auto record = sys.read(sp + "/" + entry + "/RECORD", 64u << 20);
      if (!record) continue;
      for (const std::string& rel : record_shared_objects(*record.text)) add(sp + "/" + rel, name);
    }
  }
  for (const library_info& l : facts.stack.libraries)
    if (!l.path.empty()) add(l.path, l.origin);
  return out;
}

}  // namespace gs
