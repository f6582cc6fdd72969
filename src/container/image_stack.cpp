// The image's stack from its name, and the packages `pip install` lines add. Image tags are the
// only place a spec states its ROCm or CUDA: rocm/pytorch:rocm6.2.3_ubuntu22.04_py3.10_pytorch_release_2.3.0,
// rocm/dev-ubuntu-22.04:6.2.4-complete, nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04,
// pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime. A tag such as "latest" says nothing, and then
// nothing is claimed.
#include <regex>

#include "container/container_read.h"
#include "core/text_scan.h"
#include "rules/fact_resolver.h"

namespace gs::container_read {
namespace {

std::string first(const std::string& text, const std::regex& re, int group = 1) {
  std::smatch m;
  return std::regex_search(text, m, re) ? m[group].str() : std::string();
}

/// "cu121" -> "12.1", "cu118" -> "11.8", "cu130" -> "13.0".
std::string cuda_from_cu(std::string_view cu) {
  if (cu.size() < 4 || cu.size() > 5) return "";
  std::string digits(cu.substr(2));
  return digits.substr(0, digits.size() - 1) + "." + digits.substr(digits.size() - 1);
}

}  // namespace

void read_image_stack(container_info& c) {
  std::string ref = scan::lower(c.image);
  if (ref.empty() || ref.find('$') != std::string::npos) return;  // an ARG without a default
  size_t slash = ref.rfind('/'), colon = ref.rfind(':');
  std::string repo = ref, tag;
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) {
    repo = ref.substr(0, colon);
    tag = ref.substr(colon + 1);
  }
  if (size_t at = tag.find('@'); at != std::string::npos) tag.erase(at);  // a digest after the tag
  static const std::regex rocm_in_tag(R"((?:^|[^a-z])rocm[-_]?v?(\d+\.\d+(?:\.\d+)?))");
  static const std::regex cuda_in_tag(R"((?:^|[^a-z])cuda[-_]?v?(\d+\.\d+(?:\.\d+)?))");
  static const std::regex cu_in_tag(R"((?:^|[^a-z])(cu1\d{2,3})(?:$|[^0-9]))");
  static const std::regex leading_version(R"(^v?(\d+\.\d+(?:\.\d+)?))");
  static const std::regex python_in_tag(R"((?:^|[^a-z])py(?:thon)?[-_]?(3)\.?(\d{1,2})(?:$|[^0-9]))");
  static const std::regex torch_in_tag(R"((?:pytorch|torch)[-_](?:release[-_])?v?(\d+\.\d+(?:\.\d+)?))");
  if (c.image_rocm.empty()) {
    c.image_rocm = first(tag, rocm_in_tag);
    // rocm/dev-ubuntu-22.04:6.2.4, rocm/rocm-terminal:6.1, rocm/rocm-runtime:6.3: the tag is the release
    if (c.image_rocm.empty() && repo.rfind("rocm/", 0) == 0 && repo.find("pytorch") == std::string::npos &&
        repo.find("vllm") == std::string::npos)
      c.image_rocm = first(tag, leading_version);
  }
  if (c.image_cuda.empty()) {
    c.image_cuda = first(tag, cuda_in_tag);
    if (c.image_cuda.empty()) c.image_cuda = cuda_from_cu(first(tag, cu_in_tag));
    if (c.image_cuda.empty() && (repo == "nvidia/cuda" || repo.ends_with("/nvidia/cuda")))
      c.image_cuda = first(tag, leading_version);
  }
  if (c.image_python.empty()) {
    std::smatch m;
    if (std::regex_search(tag, m, python_in_tag)) c.image_python = m[1].str() + "." + m[2].str();
  }
  if (c.image_os.empty()) {  // rocm/dev-ubuntu-22.04:6.2, nvidia/cuda:12.4.1-devel-ubuntu22.04, ...-ubi9, ...-rockylinux9
    static const std::regex os_in_ref(R"((ubuntu|debian|rockylinux|almalinux|centos|ubi|oraclelinux)[-_]?(\d+(?:\.\d+)?))");
    std::smatch m;
    if (std::regex_search(ref, m, os_in_ref)) {
      std::string os = m[1].str();
      c.image_os = os == "ubi" ? "rhel" : os == "rockylinux" ? "rocky" : os == "oraclelinux" ? "ol" : os;
      c.image_os_version = m[2].str();
    }
  }
  if (c.image_torch.empty()) {
    c.image_torch = first(tag, torch_in_tag);
    if (c.image_torch.empty() && (repo == "pytorch/pytorch" || repo.ends_with("/pytorch/pytorch")))
      c.image_torch = first(tag, leading_version);
  }
}

void read_pip_install(const std::vector<std::string>& words, container_info& c) {
  // Options whose value is the next word; everything else that starts with '-' stands alone.
  static constexpr std::string_view with_value[] = {"-i", "--index-url", "--extra-index-url", "-f", "--find-links",
                                                    "-c", "--constraint", "-r", "--requirement", "-t", "--target",
                                                    "--prefix", "--root", "--python", "-p", "--index-strategy"};
  std::string index;
  std::vector<std::pair<std::string, std::string>> named;  // name, pinned version
  size_t start = 0;  // after "install": "python3 -m pip install", "uv pip install", "pip3 install"
  while (start < words.size() && words[start] != "install") ++start;
  for (size_t i = start + 1; i < words.size(); ++i) {
    std::string_view w = words[i];
    std::string_view value;
    bool is_index = false;
    for (std::string_view o : with_value) {
      if (w == o && i + 1 < words.size()) {
        value = words[++i];
        is_index = o == "-i" || o == "--index-url" || o == "--extra-index-url";
        break;
      }
      if (w.size() > o.size() + 1 && w.substr(0, o.size()) == o && w[o.size()] == '=') {
        value = w.substr(o.size() + 1);
        is_index = o == "-i" || o == "--index-url" || o == "--extra-index-url";
        break;
      }
    }
    if (!value.empty()) {
      if (w.rfind("-r", 0) == 0 || w.rfind("--requirement", 0) == 0) c.pip_requirements.push_back(std::string(value));
      if (w.rfind("-c", 0) == 0 || w.rfind("--constraint", 0) == 0) c.pip_constrained = true;
      // download.pytorch.org/whl/rocm6.2, /whl/nightly/rocm6.3, /whl/cu121, /whl/cpu; the torch index wins over others.
      if (is_index) {
        std::string v = scan::lower(value);
        while (!v.empty() && v.back() == '/') v.pop_back();
        std::string last = v.substr(v.rfind('/') + 1);
        if (last.rfind("rocm", 0) == 0 || last.rfind("cu", 0) == 0 || last == "cpu") index = last;
      }
      continue;
    }
    if (w.empty() || w[0] == '-' || w.find('/') != std::string_view::npos || w.find('$') != std::string_view::npos) continue;
    std::string spec(w);
    if (size_t semi = spec.find(';'); semi != std::string::npos) spec.erase(semi);  // an environment marker
    size_t op = spec.find_first_of("=<>!~[");
    std::string name = normalize_package_name(spec.substr(0, op));
    if (name.empty() || !scan::is_alnum(name[0])) continue;
    std::string pinned;
    if (op != std::string::npos && spec.compare(op, 2, "==") == 0) pinned = spec.substr(op + 2);
    named.emplace_back(name, pinned);
  }
  for (const auto& [name, pinned] : named) {
    c.pip[name] = pinned;
    if (name != "torch") continue;
    if (size_t plus = pinned.find('+'); plus != std::string::npos) c.torch_index = pinned.substr(plus + 1);
    else c.torch_index = index.empty() ? "pypi" : index;
  }
}

}  // namespace gs::container_read
