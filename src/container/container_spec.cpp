// Which kind of spec a file is, and the reader for it.
#include "container/container_spec.h"

#include <regex>

#include "container/container_read.h"
#include "core/text_scan.h"

namespace gs {

std::string container_spec_kind(std::string_view file_name, std::string_view text) {
  std::string base = scan::lower(scan::last_path_part(file_name));
  bool yaml = base.ends_with(".yml") || base.ends_with(".yaml");
  if (base.rfind("dockerfile", 0) == 0 || base.rfind("containerfile", 0) == 0 || base.ends_with(".dockerfile"))
    return "dockerfile";
  if (yaml && (base.rfind("compose", 0) == 0 || base.rfind("docker-compose", 0) == 0)) return "compose";
  // By content: YAML keys at the start of a line, a run command, or a FROM instruction.
  static const std::regex services(R"((^|\n)services:\s*(\n|$))");
  static const std::regex k8s_api(R"((^|\n)apiVersion:\s*\S)"), k8s_kind(R"((^|\n)kind:\s*\S)");
  static const std::regex run(R"((^|[\s/;&|'"])((docker|podman|nerdctl)\s+(container\s+)?(run|create)|toolbox\s+create)\s)");
  static const std::regex from(R"((^|\n)\s*FROM\s+\S)", std::regex::icase);
  std::string t(text.substr(0, 1 << 20));
  if (std::regex_search(t, k8s_api) && std::regex_search(t, k8s_kind)) return "kubernetes";
  if (std::regex_search(t, services)) return "compose";
  if (std::regex_search(t, from)) return "dockerfile";
  if (std::regex_search(t, run)) return "run";
  return "";
}

namespace {

/// Whose GPUs the container is made for. The image says it first (a rocm/... base with a CUDA
/// torch pip-installed over it is still an AMD container, with a mistake in it); then what the
/// spec passes in or asks for; then its environment and the torch index it installs from.
std::string vendor_of(const container_info& c) {
  std::string img = scan::lower(c.image);
  if (!c.image_rocm.empty() || img.find("rocm") != std::string::npos) return "amd";
  // pytorch/pytorch's images are all CUDA builds ("latest" too)
  if (!c.image_cuda.empty() || img.find("cuda") != std::string::npos || img.rfind("nvcr.io/nvidia/", 0) == 0 ||
      img.rfind("nvidia/", 0) == 0 || img.rfind("pytorch/pytorch", 0) == 0 || img.find("/pytorch/pytorch") != std::string::npos)
    return "nvidia";
  bool kfd = false;
  for (const std::string& d : c.devices) kfd = kfd || d == "/dev/kfd";
  if (kfd || c.k8s_gpu_resource == "amd.com/gpu") return "amd";
  if (!c.gpu_request.empty()) return "nvidia";
  for (const char* v : {"HSA_OVERRIDE_GFX_VERSION", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "PYTORCH_ROCM_ARCH"})
    if (c.env.count(v)) return "amd";
  if (c.env.count("NVIDIA_VISIBLE_DEVICES") || c.env.count("NVIDIA_DRIVER_CAPABILITIES")) return "nvidia";
  if (c.torch_index.rfind("rocm", 0) == 0) return "amd";
  if (c.torch_index.rfind("cu", 0) == 0) return "nvidia";
  return "";
}

/// Device paths that are a slip away from ROCm's nodes ("/dev/fdk", "dev/dri"): the runtime
/// would pass a node that does not exist (or a path relative to the working directory).
void note_device_typos(container_info& c) {
  for (const std::string& d : c.devices)
    if (std::string t = container_read::device_path_typo(d); !t.empty()) c.typos.push_back(t);
}

}  // namespace

container_spec read_container_spec(std::string_view text, const std::string& kind) {
  container_spec spec;
  if (kind == "dockerfile") spec = container_read::dockerfile(text);
  else if (kind == "compose") spec = container_read::compose(text);
  else if (kind == "kubernetes") spec = container_read::kubernetes(text);
  else if (kind == "run") spec = container_read::run_lines(text);
  else spec.error = "not a Dockerfile, compose file, Kubernetes manifest or `docker run` line (say which with --container-kind)";
  for (container_info& c : spec.containers) {
    note_device_typos(c);
    c.vendor = vendor_of(c);
  }
  return spec;
}

}  // namespace gs
