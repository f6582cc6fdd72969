// `docker run` / `podman run` / `nerdctl run` lines (also `docker create`, `docker container
// run`), as a README or an issue shows them: a `$ ` prompt, backslash continuations. Each line
// is one container. Options are read by the engine's own table of which options take a value,
// so the first bare word after the options is the image.
#include <map>

#include "container/container_read.h"
#include "core/text_scan.h"

namespace gs::container_read {
namespace {

/// Options of `docker run` / `podman run` that take a value (the next word unless written
/// `--opt=value`). Anything else starting with '-' is a flag.
bool takes_value(std::string_view o) {
  static constexpr std::string_view opts[] = {
      "-e", "--env", "--env-file", "--device", "--group-add", "--ipc", "--shm-size", "--security-opt", "--gpus",
      "--runtime", "-u", "--user", "--name", "-v", "--volume", "--mount", "-p", "--publish", "-w", "--workdir",
      "--network", "--net", "--entrypoint", "--cap-add", "--cap-drop", "-h", "--hostname", "-m", "--memory",
      "--memory-swap", "--cpus", "--cpuset-cpus", "--restart", "-l", "--label", "--add-host", "--platform", "--pull",
      "--ulimit", "--log-driver", "--log-opt", "--tmpfs", "--device-cgroup-rule", "--pid", "--uts", "--userns",
      "--cgroupns", "--cgroup-parent", "--dns", "--expose", "--stop-signal", "--stop-timeout", "--health-cmd",
      "--health-interval", "--health-retries", "--health-timeout", "--volumes-from", "--link", "--annotation",
      "--hooks-dir", "--sysctl", "--storage-opt", "--cidfile", "--mac-address", "--ip", "--ip6", "--oom-score-adj",
      "--pids-limit", "--blkio-weight", "--cpu-shares", "-c", "--attach", "-a", "--detach-keys", "--init-path",
      "--pod", "--requires", "--secret", "--subuidname", "--subgidname", "--uidmap", "--gidmap", "--arch", "--os",
      "--variant", "--label-file", "--device-read-bps", "--device-write-bps", "--kernel-memory", "--isolation"};
  for (std::string_view x : opts)
    if (o == x) return true;
  return false;
}

/// The run line's words from "run" on, or empty when `words` is no run command. Also toolbox's
/// `toolbox create NAME --image IMG -- PODMAN-OPTIONS`, which is rootless podman: its options after
/// "--" are podman's, and the image is --image's (moved to the end here).
size_t run_start(std::vector<std::string>& words, std::string& engine) {
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == "toolbox" && words[i + 1] == "create") {
      std::string image;
      std::vector<std::string> podman;
      bool after = false;
      for (size_t j = i + 2; j < words.size(); ++j) {
        if (after) podman.push_back(words[j]);
        else if (words[j] == "--") after = true;
        else if ((words[j] == "--image" || words[j] == "-i") && j + 1 < words.size()) image = words[++j];
        else if (words[j].rfind("--image=", 0) == 0) image = words[j].substr(8);
      }
      engine = "podman";
      words.assign(podman.begin(), podman.end());
      words.insert(words.begin(), "run");
      words.push_back(image);
      return 1;
    }
    std::string_view w = words[i];
    std::string_view base = scan::last_path_part(w);
    if (base != "docker" && base != "podman" && base != "nerdctl") continue;
    size_t j = i + 1;
    if (words[j] == "container" && j + 1 < words.size()) ++j;
    if (words[j] == "run" || words[j] == "create") {
      engine = std::string(base);
      return j + 1;
    }
  }
  return 0;
}

void read_option(const std::string& opt, const std::string& value, container_info& c) {
  if (opt == "-e" || opt == "--env") {
    size_t eq = value.find('=');
    if (eq != std::string::npos) c.env[value.substr(0, eq)] = value.substr(eq + 1);
    else c.notes.push_back("-e " + value + " passes the caller's value of " + value + ", which the line does not show");
  } else if (opt == "--env-file") {
    c.notes.push_back("--env-file " + value + " is not read");
  } else if (opt == "--device") {
    // A CDI name (podman's and docker 25+'s --device nvidia.com/gpu=all, amd.com/gpu=0) asks for
    // GPUs through the engine's CDI support; a path is a device node.
    if (value.find('/') != std::string::npos && value.find('=') != std::string::npos && value[0] != '/')
      c.gpu_request = "--device " + value;
    else
      c.devices.push_back(value.substr(0, value.find(':')));
  } else if (opt == "--group-add") {
    c.groups.push_back(value);
  } else if (opt == "--ipc") {
    c.ipc_host = value == "host";
  } else if (opt == "--shm-size") {
    c.shm_bytes = docker_size(value);
  } else if (opt == "--security-opt") {
    if (value.rfind("seccomp", 0) == 0) c.seccomp = value.substr(value.find_first_of("=:") + 1);
  } else if (opt == "--gpus") {
    c.gpu_request = "--gpus " + value;
  } else if (opt == "--runtime") {
    c.runtime = value;
  } else if (opt == "-u" || opt == "--user") {
    c.user = value;
  } else if (opt == "--name") {
    c.name = value;
  } else if (opt == "--mount" || opt == "-v" || opt == "--volume" || opt == "--tmpfs") {
    // A tmpfs or host path mounted on /dev/shm sizes it too: --tmpfs /dev/shm:size=8g.
    if (value.find("/dev/shm") != std::string::npos) {
      size_t s = value.find("size=");
      if (s != std::string::npos) c.shm_bytes = docker_size(value.substr(s + 5, value.find_first_of(",:", s + 5) - s - 5));
      else if (opt != "--tmpfs") c.shm_bytes = kHostShm;  // the host's /dev/shm bound in: half the host's RAM
    }
  } else if (opt == "--device-cgroup-rule") {
    c.notes.push_back("--device-cgroup-rule " + value + " allows devices without passing their nodes");
  }
}

/// A one-off look inside the image, not the workload: `docker run --rm --entrypoint bash IMG -c
/// "find / -name 'libllama*'"` (kyuz0/amd-strix-halo-toolboxes#94 lists the image's libraries this
/// way). It passes no GPU because it needs none, so its missing devices are not the report's cause.
/// An interactive shell (`--entrypoint bash` with no -c) is where the workload may run next, so
/// only a shell given a one-line -c command, or a file tool, counts.
template <size_t N>
bool is_one_of(std::string_view path, const std::string_view (&names)[N]) {
  for (std::string_view t : names)
    if (scan::last_path_part(path) == t) return true;
  return false;
}
constexpr std::string_view kShells[] = {"bash", "sh", "ash", "zsh"};
constexpr std::string_view kFileTools[] = {"find", "ls", "cat", "ldd", "which", "stat"};

bool inspection_run(const std::string& entrypoint, const std::vector<std::string>& words, size_t image_at) {
  const bool command_c = image_at + 1 < words.size() && words[image_at + 1] == "-c";
  if (!entrypoint.empty()) return is_one_of(entrypoint, kFileTools) || (is_one_of(entrypoint, kShells) && command_c);
  return image_at + 1 < words.size() && is_one_of(words[image_at + 1], kFileTools);
}

}  // namespace

container_spec run_lines(std::string_view text) {
  container_spec spec;
  spec.kind = "run";
  // Join continuation lines, then read each command that runs a container.
  std::string joined;
  int n = 0, start = 0;
  // alias drun='docker run -it --device=/dev/kfd ...' (AMD's guides use one): later lines that
  // start with the alias are read with it expanded.
  std::map<std::string, std::string> aliases;
  int inspections = 0;  // one-off looks inside an image (inspection_run), not read as workloads
  auto read_one = [&](const std::string& line, int at) {
    std::vector<std::string> words = shell_words(line);
    if (words.size() >= 2 && words[0] == "alias") {
      std::string def = words[1];
      for (size_t k = 2; k < words.size(); ++k) def += " " + words[k];
      if (size_t eq = def.find('='); eq != std::string::npos) aliases[def.substr(0, eq)] = def.substr(eq + 1);
      return;
    }
    if (!words.empty())
      if (auto a = aliases.find(words[0]); a != aliases.end()) {
        std::vector<std::string> head = shell_words(a->second);
        words.erase(words.begin());
        words.insert(words.begin(), head.begin(), head.end());
      }
    std::string engine;
    size_t i = run_start(words, engine);
    if (i == 0) return;
    container_info c;
    c.kind = "run";
    c.engine = engine;
    c.line = at;
    c.runtime_known = true;
    std::string entrypoint;
    for (; i < words.size(); ++i) {
      const std::string& w = words[i];
      if (w == "--") { ++i; break; }
      if (w.size() < 2 || w[0] != '-') break;  // the image
      if (w == "--privileged" || w.rfind("--privileged=", 0) == 0) {
        c.privileged = w != "--privileged=false";
        continue;
      }
      size_t eq = w.find('=');
      std::string opt = w.rfind("--", 0) == 0 && eq != std::string::npos ? w.substr(0, eq) : w;
      if (!takes_value(opt)) continue;
      std::string value = opt.size() < w.size() ? w.substr(eq + 1) : (i + 1 < words.size() ? words[++i] : "");
      if (opt == "--entrypoint") entrypoint = value;
      read_option(opt, value, c);
    }
    if (i < words.size()) c.image = words[i];
    if (i < words.size() && inspection_run(entrypoint, words, i)) {
      ++inspections;
      return;
    }
    if (c.gpu_request.empty() && c.runtime == "nvidia") c.gpu_request = "--runtime nvidia";
    read_image_stack(c);
    spec.containers.push_back(std::move(c));
  };
  for (std::string_view raw : scan::lines(text)) {
    ++n;
    std::string_view l = scan::trim(raw);
    if (joined.empty()) {
      if (l.rfind("$ ", 0) == 0 || l.rfind("# ", 0) == 0) l.remove_prefix(2);  // a prompt
      start = n;
    }
    bool continues = !l.empty() && l.back() == '\\';
    if (continues) l.remove_suffix(1);
    joined += std::string(l) + " ";
    if (continues) continue;
    read_one(joined, start);
    joined.clear();
  }
  if (!joined.empty()) read_one(joined, start);
  if (spec.containers.empty())
    spec.error = inspections > 0 ? "only one-off looks inside an image (a shell or file tool as the command), no workload to check"
                                 : "no `docker run` or `podman run` command in it";
  return spec;
}

}  // namespace gs::container_read
