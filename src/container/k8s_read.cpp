// Kubernetes manifests (one or more documents): Pod, Deployment, StatefulSet, DaemonSet,
// ReplicaSet, Job and CronJob; one container per entry of the pod's `containers`. GPUs come
// from the device plugins' resources (nvidia.com/gpu, amd.com/gpu, which also pass /dev/kfd and
// /dev/dri) or hostPath volumes of the device nodes; /dev/shm from a memory emptyDir mounted there.
#include "container/container_read.h"
#include "container/yaml_util.h"
#include "core/text_scan.h"

namespace gs::container_read {
namespace {

/// Every pod spec in an object: a map with a `containers` list, wherever it sits. Pods, the
/// built-in workloads (spec.template.spec, CronJob's spec.jobTemplate.spec.template.spec) and the
/// operators' jobs (Kubeflow's PyTorchJob, RayCluster, ElasticJob: under replica specs) alike.
/// `budget` bounds the nodes visited: YAML aliases share nodes, so a walk of a small file with nested
/// aliases ("billion laughs") would visit exponentially many.
void find_pod_specs(const YAML::Node& n, std::vector<YAML::Node>& out, int& budget, int depth = 0) {
  if (!n || depth > 16 || --budget < 0 || out.size() >= 256) return;
  if (n.IsMap()) {
    YAML::Node ctrs = child(n, "containers");
    if (ctrs && ctrs.IsSequence()) {
      out.push_back(n);
      return;
    }
    for (const auto& kv : n) find_pod_specs(kv.second, out, budget, depth + 1);
  } else if (n.IsSequence()) {
    for (const YAML::Node& e : n) find_pod_specs(e, out, budget, depth + 1);
  }
}

std::string gpu_resource(const YAML::Node& resources, std::string& amount) {
  for (const char* part : {"limits", "requests"}) {
    YAML::Node r = child(resources, part);
    if (!r || !r.IsMap()) continue;
    for (const auto& kv : r) {
      std::string key = text(kv.first);
      if (key == "nvidia.com/gpu" || key == "amd.com/gpu" || key.rfind("nvidia.com/mig-", 0) == 0) {
        amount = text(kv.second);
        return key;
      }
    }
  }
  return "";
}

void read_container(const YAML::Node& pod, const YAML::Node& ctr, const std::string& workload, container_info& c) {
  c.kind = "kubernetes";
  std::string name = text(child(ctr, "name"));
  c.name = workload.empty() ? name : name.empty() ? workload : workload + "/" + name;
  c.line = ctr.Mark().line + 1;
  c.runtime_known = true;
  c.image = text(child(ctr, "image"));
  if (YAML::Node env = child(ctr, "env"); env && env.IsSequence())
    for (const YAML::Node& e : env) {
      std::string k = text(child(e, "name"));
      if (k.empty()) continue;
      if (child(e, "value")) c.env[k] = text(child(e, "value"));
      else c.notes.push_back("env " + k + " comes from a secret or config map, which the manifest does not show");
    }
  if (child(ctr, "envFrom")) c.notes.push_back("envFrom is not read");
  std::string amount;
  c.k8s_gpu_resource = gpu_resource(child(ctr, "resources"), amount);
  if (c.k8s_gpu_resource.rfind("nvidia.com/", 0) == 0) c.gpu_request = c.k8s_gpu_resource + ": " + amount;
  if (c.k8s_gpu_resource == "amd.com/gpu") {  // the AMD device plugin passes both nodes
    c.devices.push_back("/dev/kfd");
    c.devices.push_back("/dev/dri");
  }
  YAML::Node pod_sc = child(pod, "securityContext"), sc = child(ctr, "securityContext");
  c.privileged = truthy(child(sc, "privileged"));
  std::string uid = text(child(sc, "runAsUser"));
  if (uid.empty()) uid = text(child(pod_sc, "runAsUser"));
  c.user = uid;
  if (YAML::Node g = child(pod_sc, "supplementalGroups"); g && g.IsSequence())
    for (const YAML::Node& x : g) c.groups.push_back(text(x));
  for (const YAML::Node& s : {child(sc, "seccompProfile"), child(pod_sc, "seccompProfile")})
    if (c.seccomp.empty() && text(child(s, "type")) == "Unconfined") c.seccomp = "unconfined";
  c.ipc_host = truthy(child(pod, "hostIPC"));
  c.runtime = text(child(pod, "runtimeClassName"));
  // Volumes by name, then what this container mounts where.
  std::map<std::string, YAML::Node> volumes;
  if (YAML::Node vs = child(pod, "volumes"); vs && vs.IsSequence())
    for (const YAML::Node& v : vs) volumes[text(child(v, "name"))] = v;
  if (YAML::Node ms = child(ctr, "volumeMounts"); ms && ms.IsSequence())
    for (const YAML::Node& m : ms) {
      std::string path = text(child(m, "mountPath"));
      auto v = volumes.find(text(child(m, "name")));
      if (v == volumes.end()) continue;
      std::string host = text(child(child(v->second, "hostPath"), "path"));
      if (path == "/dev/shm") {
        YAML::Node dir = child(v->second, "emptyDir");
        if (text(child(dir, "medium")) == "Memory") {
          std::string limit = text(child(dir, "sizeLimit"));
          c.shm_bytes = limit.empty() ? kHostShm : k8s_quantity(limit).value_or(kHostShm);
        } else if (!host.empty()) {
          c.shm_bytes = kHostShm;
        }
      } else if (!host.empty() && host.rfind("/dev/", 0) == 0) {
        c.devices.push_back(host);
      }
    }
}

}  // namespace

container_spec kubernetes(std::string_view text_in) {
  container_spec spec;
  spec.kind = "kubernetes";
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(std::string(text_in));
  } catch (const YAML::Exception& e) {
    spec.error = std::string("not valid YAML: ") + e.what();
    return spec;
  }
  try {  // as in compose_read.cpp: a shape yaml-cpp cannot walk is the file's problem, never a crash
    int budget = 100000;  // nodes visited in the whole file: far above any real manifest
    for (const YAML::Node& doc : docs) {
      // A List (kubectl get -o yaml) holds its documents under items.
      std::vector<YAML::Node> objects{doc};
      if (text(child(doc, "kind")) == "List")
        if (YAML::Node items = child(doc, "items"); items && items.IsSequence()) {
          objects.clear();
          for (const YAML::Node& item : items) objects.push_back(item);
        }
      for (const YAML::Node& obj : objects) {
        std::vector<YAML::Node> pods;
        find_pod_specs(child(obj, "spec"), pods, budget);
        std::string workload = text(child(child(obj, "metadata"), "name"));
        for (const YAML::Node& pod : pods) {
          YAML::Node ctrs = child(pod, "containers");
          for (const YAML::Node& ctr : ctrs) {
            container_info c;
            read_container(pod, ctr, ctrs.size() > 1 || pods.size() > 1 ? workload : "", c);
            if (c.name.empty()) c.name = workload;
            read_image_stack(c);
            spec.containers.push_back(std::move(c));
          }
        }
      }
    }
  } catch (const YAML::Exception& e) {
    spec.containers.clear();
    spec.error = std::string("a manifest yaml-cpp cannot walk: ") + e.what();
    return spec;
  }
  if (spec.containers.empty()) spec.error = "no pod spec (a `containers:` list) in it";
  return spec;
}

}  // namespace gs::container_read
