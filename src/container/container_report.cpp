// container_info -> JSON (schema: docs/container.md).
#include "container/container_report.h"

namespace gs {
namespace {

void put(nlohmann::json& j, const char* key, const std::string& v) {
  if (!v.empty()) j[key] = v;
}

}  // namespace

nlohmann::json container_json(const container_spec& spec, const std::string& file) {
  nlohmann::json out = {{"file", file}, {"kind", spec.kind}, {"containers", nlohmann::json::array()}};
  for (const container_info& c : spec.containers) {
    nlohmann::json j = {{"line", c.line}, {"runtime_known", c.runtime_known}};
    put(j, "name", c.name);
    put(j, "engine", c.engine);
    put(j, "image", c.image);
    put(j, "vendor", c.vendor);
    put(j, "rocm", c.image_rocm);
    put(j, "cuda", c.image_cuda);
    put(j, "python", c.image_python);
    put(j, "torch", c.image_torch);
    put(j, "torch_index", c.torch_index);
    put(j, "user", c.user);
    if (c.runtime_known) {
      j["devices"] = c.devices;
      j["groups"] = c.groups;
      j["privileged"] = c.privileged;
      j["ipc_host"] = c.ipc_host;
      if (c.shm_bytes) j["shm_bytes"] = *c.shm_bytes;
      put(j, "seccomp", c.seccomp);
      put(j, "gpu_request", c.gpu_request);
      put(j, "runtime", c.runtime);
      put(j, "k8s_gpu_resource", c.k8s_gpu_resource);
    }
    if (!c.env.empty()) j["env"] = c.env;
    if (!c.pip.empty()) j["pip"] = c.pip;
    if (!c.notes.empty()) j["notes"] = c.notes;
    out["containers"].push_back(std::move(j));
  }
  return out;
}

}  // namespace gs
