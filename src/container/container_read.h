// The readers behind read_container_spec, one per kind of spec, and what they share: shell
// words, Docker and Kubernetes sizes, the image's stack from its name, `pip install` lines.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "container/container_spec.h"

namespace gs::container_read {

/// What the host's /dev/shm bound into a container counts as: tmpfs is half of RAM by default, so any
/// GPU host's is far above the 64 MiB a container gets; 1 TiB stands for "as large as the host allows".
constexpr double kHostShm = 1099511627776.0;

container_spec dockerfile(std::string_view text);
container_spec run_lines(std::string_view text);
container_spec compose(std::string_view text);
container_spec kubernetes(std::string_view text);

/// Shell words of `s` as sh splits them: quotes (' and ") removed, backslash escapes kept literal
/// outside single quotes; a `#` word starts a comment. Variables are not expanded.
std::vector<std::string> shell_words(std::string_view s);

/// `--shm-size` / compose `shm_size`: "8g", "2gb", "512m", "1073741824" (Docker's units are
/// binary: 1g = 1 GiB); Kubernetes quantities: "8Gi", "1G", "512Mi". nullopt when unreadable.
std::optional<double> docker_size(std::string_view s);
std::optional<double> k8s_quantity(std::string_view s);

/// What the image's name says about its stack: ROCm, CUDA, Python and torch versions from tags
/// such as rocm/pytorch:rocm6.2.3_ubuntu22.04_py3.10_pytorch_release_2.3.0,
/// rocm/dev-ubuntu-22.04:6.2.4, nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04 and
/// pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime. Fields it cannot read stay as they were.
void read_image_stack(container_info& c);

/// The packages a `pip install` / `uv pip install` / `pip3 install` command names, into c.pip,
/// and where torch comes from (c.torch_index): the index URL's last part ("rocm6.2", "cu121"),
/// the version's local label, or "pypi". `words` is one command, already split.
void read_pip_install(const std::vector<std::string>& words, container_info& c);

/// "/dev/fdk (/dev/kfd?)" for a device path a slip away from ROCm's nodes ("dev/dri", "/dev/kdf");
/// "" for the nodes themselves and for anything else.
std::string device_path_typo(std::string_view path);

/// "${VAR:-default}", "${VAR}", "$VAR" replaced from `vars`, or by the default; unknown ones kept.
std::string substitute(std::string_view s, const std::map<std::string, std::string>& vars);

}  // namespace gs::container_read
