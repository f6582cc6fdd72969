// docker-compose.yml / compose.yaml: one container per service, with the keys GPU containers
// need: devices, group_add, user, ipc, shm_size, security_opt, privileged, runtime, environment
// (map or list), and NVIDIA GPUs through deploy.resources.reservations.devices or `gpus:`.
// ${VAR:-default} takes its default (compose reads the caller's environment, which we do not).
#include "container/container_read.h"
#include "container/yaml_util.h"
#include "core/edit_distance.h"
#include "core/text_scan.h"

namespace gs::container_read {
namespace {

std::vector<std::string> strings(const YAML::Node& n) {
  std::vector<std::string> out;
  if (n && n.IsSequence())
    for (const YAML::Node& e : n) {
      if (!text(e).empty()) out.push_back(substitute(text(e), {}));  // long-syntax maps are read by the caller
    }
  else if (!text(n).empty())
    out.push_back(substitute(text(n), {}));
  return out;
}

void read_environment(const YAML::Node& n, container_info& c) {
  if (n && n.IsMap()) {
    for (const auto& kv : n) c.env[text(kv.first)] = substitute(text(kv.second), {});
  } else {
    for (const std::string& e : strings(n)) {
      size_t eq = e.find('=');
      if (eq != std::string::npos) c.env[e.substr(0, eq)] = e.substr(eq + 1);
      else c.notes.push_back("environment " + e + " passes the caller's value, which the file does not show");
    }
  }
}

/// deploy.resources.reservations.devices: [{driver: nvidia, count: all, capabilities: [gpu]}]
std::string nvidia_reservation(const YAML::Node& svc) {
  YAML::Node devs = child(child(child(child(svc, "deploy"), "resources"), "reservations"), "devices");
  if (!devs || !devs.IsSequence()) return "";
  for (const YAML::Node& d : devs) {
    bool gpu = text(child(d, "driver")) == "nvidia";
    for (const std::string& cap : strings(child(d, "capabilities"))) gpu = gpu || cap == "gpu";
    if (!gpu) continue;
    std::string count = text(child(d, "count"));
    std::string ids = child(d, "device_ids") ? "device_ids" : "";
    return "deploy.resources.reservations.devices (driver nvidia" + (count.empty() ? ids.empty() ? "" : ", " + ids : ", count " + count) + ")";
  }
  return "";
}

/// A service key compose does not know but that is one or two letters from one GPU containers
/// need ("device:" for "devices:"): compose rejects the file, or an older one ignores the key.
void note_key_typos(const YAML::Node& svc, container_info& c) {
  static const std::vector<std::string> gpu_keys = {"devices", "group_add", "environment", "shm_size", "ipc", "runtime",
                                                    "privileged", "security_opt", "deploy", "gpus", "image", "user"};
  static constexpr std::string_view known[] = {
      "annotations", "attach", "build", "blkio_config", "cpu_count", "cpu_percent", "cpu_shares", "cpu_period", "cpu_quota",
      "cpu_rt_runtime", "cpu_rt_period", "cpus", "cpuset", "cap_add", "cap_drop", "cgroup", "cgroup_parent", "command",
      "configs", "container_name", "credential_spec", "depends_on", "deploy", "develop", "device_cgroup_rules", "devices",
      "dns", "dns_opt", "dns_search", "domainname", "driver_opts", "entrypoint", "env_file", "environment", "expose",
      "extends", "external_links", "extra_hosts", "gpus", "group_add", "healthcheck", "hostname", "image", "init", "ipc",
      "isolation", "labels", "label_file", "links", "logging", "mac_address", "mem_limit", "mem_reservation",
      "mem_swappiness", "memswap_limit", "models", "network_mode", "networks", "oom_kill_disable", "oom_score_adj", "pid",
      "pids_limit", "platform", "ports", "post_start", "pre_stop", "privileged", "profiles", "provider", "pull_policy",
      "read_only", "restart", "runtime", "scale", "secrets", "security_opt", "shm_size", "stdin_open", "stop_grace_period",
      "stop_signal", "storage_opt", "sysctls", "tmpfs", "tty", "ulimits", "use_api_socket", "user", "userns_mode", "uts",
      "volumes", "volumes_from", "working_dir", "mem_swap_limit", "version"};
  if (!svc.IsMap()) return;
  for (const auto& kv : svc) {
    std::string key = text(kv.first);
    if (key.empty() || key.rfind("x-", 0) == 0 || key == "<<") continue;
    bool is_known = false;
    for (std::string_view k : known) is_known = is_known || key == k;
    if (is_known) continue;
    std::vector<std::string> near = closest_names(key, gpu_keys, 2, 1);
    if (near.empty()) continue;
    c.typos.push_back(key + ": (" + near[0] + ":?)");
    if (near[0] == "devices")  // what it lists is not passed; a path typo in it is worth saying too
      for (const std::string& d : strings(kv.second))
        if (std::string t = device_path_typo(d.substr(0, d.find(':'))); !t.empty()) c.typos.push_back(t);
  }
}

/// The service with YAML merge keys applied (`<<: *defaults`, `<<: [*a, *b]`): yaml-cpp keeps
/// "<<" as a plain key, and compose files use it for shared service blocks.
YAML::Node merged(const YAML::Node& svc) {
  YAML::Node m = child(svc, "<<");
  if (!m) return svc;
  YAML::Node out(YAML::NodeType::Map);
  for (const auto& kv : svc)
    if (text(kv.first) != "<<") out[kv.first] = kv.second;
  std::vector<YAML::Node> bases;
  if (m.IsMap()) bases.push_back(m);
  else if (m.IsSequence())
    for (const YAML::Node& b : m) bases.push_back(b);
  for (const YAML::Node& b : bases)
    if (b.IsMap())
      for (const auto& kv : b)
        if (!child(out, text(kv.first).c_str())) out[kv.first] = kv.second;
  return out;
}

}  // namespace

container_spec compose(std::string_view text_in) {
  container_spec spec;
  spec.kind = "compose";
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text_in));
  } catch (const YAML::Exception& e) {
    spec.error = std::string("not valid YAML: ") + e.what();
    return spec;
  }
  // yaml-cpp throws on shapes it cannot walk (a null key, a merge of a scalar): the file's
  // problem, said as such, never a crash (a libFuzzer run found one).
  try {
    YAML::Node services = child(root, "services");
    if (!services || !services.IsMap()) {
      spec.error = "no `services:` map: not a compose file";
      return spec;
    }
    for (const auto& kv : services) {
      const YAML::Node svc = merged(kv.second);
      container_info c;
      c.kind = "compose";
      c.name = text(kv.first);
      c.line = kv.first.Mark().line + 1;
      c.runtime_known = true;
      c.image = substitute(text(child(svc, "image")), {});
      if (c.image.empty() && child(svc, "build")) c.notes.push_back("built from its own Dockerfile: check that file too");
      for (const std::string& d : strings(child(svc, "devices"))) c.devices.push_back(d.substr(0, d.find(':')));
      if (YAML::Node devs = child(svc, "devices"); devs && devs.IsSequence())
        for (const YAML::Node& d : devs)
          if (d.IsMap()) c.devices.push_back(text(child(d, "source")));
      c.groups = strings(child(svc, "group_add"));
      c.user = text(child(svc, "user"));
      c.ipc_host = text(child(svc, "ipc")) == "host";
      if (std::string shm = text(child(svc, "shm_size")); !shm.empty()) c.shm_bytes = docker_size(shm);
      for (const std::string& o : strings(child(svc, "security_opt")))
        if (o.rfind("seccomp", 0) == 0) c.seccomp = o.substr(o.find_first_of("=:") + 1);
      c.privileged = truthy(child(svc, "privileged"));
      c.runtime = text(child(svc, "runtime"));
      read_environment(child(svc, "environment"), c);
      note_key_typos(svc, c);
      if (child(svc, "env_file")) c.notes.push_back("env_file is not read");
      for (const std::string& v : strings(child(svc, "volumes")))
        if (v.find(":/dev/shm") != std::string::npos) c.shm_bytes = kHostShm;
      c.gpu_request = nvidia_reservation(svc);
      if (YAML::Node g = child(svc, "gpus"); c.gpu_request.empty() && g) c.gpu_request = "gpus: " + (text(g).empty() ? "[...]" : text(g));
      if (c.gpu_request.empty() && c.runtime == "nvidia") c.gpu_request = "runtime: nvidia";
      read_image_stack(c);
      spec.containers.push_back(std::move(c));
    }
  } catch (const YAML::Exception& e) {
    spec.containers.clear();
    spec.error = std::string("a compose file yaml-cpp cannot walk: ") + e.what();
  }
  return spec;
}

}  // namespace gs::container_read
