// Host + container -> the facts of the container (see container_facts.h).
#include "container/container_facts.h"

#include <algorithm>

namespace gs {
namespace {

/// "6.2.4" -> "6.2": torch's ROCm wheels are named by major.minor.
std::string major_minor(const std::string& v) {
  size_t a = v.find('.');
  if (a == std::string::npos) return v;
  size_t b = v.find('.', a + 1);
  return v.substr(0, b);
}

/// "cu121" -> "12.1", "rocm6.2" -> "6.2".
std::string index_version(const std::string& index, std::string_view prefix) {
  if (index.rfind(prefix, 0) != 0) return "";
  std::string rest = index.substr(prefix.size());
  if (prefix == "rocm") return rest;
  if (rest.size() < 3) return "";
  return rest.substr(0, rest.size() - 1) + "." + rest.substr(rest.size() - 1);
}

/// The host's share: what a container inherits from the machine it runs on, nothing it brings.
machine_facts host_share(const machine_facts& host) {
  machine_facts f;
  f.coverage.partial = true;       // what the spec does not say is unknown
  f.coverage.gpus_complete = true;  // the host's GPUs were detected, not guessed
  f.host.kernel = host.host.kernel;  // RAM, swap and CPUs stay the host's business (a container gets a share)
  f.gpus = host.gpus;
  f.stack.amdgpu_loaded = host.stack.amdgpu_loaded;
  f.stack.amdgpu_initstate = host.stack.amdgpu_initstate;
  f.stack.amdgpu_version = host.stack.amdgpu_version;
  f.stack.nvidia_driver = host.stack.nvidia_driver;
  f.stack.nvidia_open_module = host.stack.nvidia_open_module;
  f.stack.cuda_driver_api = host.stack.cuda_driver_api;
  return f;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> fill_image_stack(machine_facts& f, const container_info& c) {
  std::vector<std::pair<std::string, std::string>> filled;
  if (!c.image_rocm.empty() && f.stack.rocm_version.empty()) {
    f.stack.rocm_version = c.image_rocm;
    f.stack.rocm_installs.push_back({"/opt/rocm", c.image_rocm, true});
    filled.emplace_back("rocm.version", c.image_rocm);
  }
  if (!c.image_cuda.empty() && f.stack.cuda_toolkit_version.empty()) {
    f.stack.cuda_toolkit_version = c.image_cuda;
    filled.emplace_back("cuda.toolkit", c.image_cuda);
  }
  if (!c.image_python.empty() && f.python.version.empty()) {
    f.python.version = c.image_python;
    filled.emplace_back("python.version", c.image_python);
  }
  f.python.found = f.python.found || !c.image_python.empty() || !c.pip.empty() || !c.image_torch.empty();
  for (const auto& [name, version] : c.pip)
    if (!version.empty() && f.python.packages.emplace(name, python_package{name, version, "", "pip", false}).second)
      filled.emplace_back("pkg." + name, version);
  // torch: what the spec installs over the image wins over what the image ships.
  if (c.pip.count("torch") && !f.python.torch_build_known) {
    if (std::string v = index_version(c.torch_index, "rocm"); !v.empty()) f.python.torch_hip = v;
    if (std::string v = index_version(c.torch_index, "cu"); !v.empty()) f.python.torch_cuda = v;
    f.python.torch_build_known = c.torch_index == "cpu" || !f.python.torch_hip.empty() || !f.python.torch_cuda.empty();
  } else if (!c.pip.count("torch") && !c.image_torch.empty() && !f.python.packages.count("torch")) {
    std::string label = !c.image_rocm.empty() ? "+rocm" + major_minor(c.image_rocm) : "";
    f.python.packages["torch"] = python_package{"torch", c.image_torch + label, "", "", false};
    filled.emplace_back("pkg.torch", c.image_torch + label);
    if (!f.python.torch_build_known) {
      if (!c.image_rocm.empty()) f.python.torch_hip = major_minor(c.image_rocm);
      else if (!c.image_cuda.empty()) f.python.torch_cuda = major_minor(c.image_cuda);
      f.python.torch_build_known = !f.python.torch_hip.empty() || !f.python.torch_cuda.empty();
    }
  }
  return filled;
}

machine_facts container_facts(const machine_facts& host, const container_info& c) {
  machine_facts f = host_share(host);
  f.host.in_container = true;
  f.host.container_kind = c.kind == "kubernetes" ? "kubernetes" : c.engine.empty() ? "docker" : c.engine;
  f.host.os_id = c.image_os;  // the image's distribution, not the host's
  f.host.os_version = c.image_os_version;
  f.env = c.env;
  fill_image_stack(f, c);
  f.container = c;
  return f;
}

std::vector<finding> container_findings(const machine_facts& host, const container_info& c, const knowledge_base& kb) {
  std::vector<finding> with = kb.evaluate(container_facts(host, c));
  std::vector<finding> without = kb.evaluate(host_share(host));
  std::erase_if(with, [&](const finding& f) {
    return std::any_of(without.begin(), without.end(),
                       [&](const finding& g) { return g.id == f.id && g.evidence == f.evidence; });
  });
  return with;
}

}  // namespace gs
