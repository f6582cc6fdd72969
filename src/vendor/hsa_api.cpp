// HSA symbol table and the GPU-agent walk.
#include "vendor/hsa_api.h"

#include <cstring>

#include "vendor/hip_api.h"

namespace gs::vendor {

runtime_status hsa_api::load(void* hip_handle, const std::string& hip_path) {
  if (hip_handle) {
    lib.borrow(hip_handle, hip_path);
    if (lib.symbol("hsa_init")) {
      return lib.resolve({dl_req("hsa_init", hsa_init), dl_req("hsa_shut_down", hsa_shut_down),
                          dl_req("hsa_iterate_agents", hsa_iterate_agents),
                          dl_req("hsa_agent_get_info", hsa_agent_get_info),
                          dl_opt("hsa_status_string", hsa_status_string)});
    }
    lib = dl_library();
  }
  runtime_status st = lib.open(library_candidates("GPUSTACK_HSA_LIBRARY", {"libhsa-runtime64.so.1"}, rocm_lib_dirs()));
  if (!st.ok) {
    st.message = "libhsa-runtime64.so.1 " + st.message;
    return st;
  }
  return lib.resolve({dl_req("hsa_init", hsa_init), dl_req("hsa_shut_down", hsa_shut_down),
                      dl_req("hsa_iterate_agents", hsa_iterate_agents),
                      dl_req("hsa_agent_get_info", hsa_agent_get_info),
                      dl_opt("hsa_status_string", hsa_status_string)});
}

std::string hsa_api::describe(hsa_status_t code) const {
  const char* s = nullptr;
  if (hsa_status_string && hsa_status_string(code, &s) == HSA_STATUS_SUCCESS && s) return s;
  return "hsa_status_t " + std::to_string(code);
}

namespace {

struct walk {
  const hsa_api* api;
  std::vector<hsa_gpu>* out;
};

hsa_status_t visit(hsa_agent_t agent, void* data) {
  auto* w = static_cast<walk*>(data);
  int type = -1;
  if (w->api->hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS) return HSA_STATUS_SUCCESS;
  if (type != HSA_DEVICE_TYPE_GPU) return HSA_STATUS_SUCCESS;
  hsa_gpu g;
  char name[64] = {};
  if (w->api->hsa_agent_get_info(agent, HSA_AGENT_INFO_NAME, name) == HSA_STATUS_SUCCESS)
    g.name.assign(name, strnlen(name, sizeof name));
  w->api->hsa_agent_get_info(agent, HSA_AGENT_INFO_WAVEFRONT_SIZE, &g.wave);
  w->api->hsa_agent_get_info(agent, HSA_AMD_AGENT_INFO_BDFID, &g.bdfid);
  w->out->push_back(g);
  return HSA_STATUS_SUCCESS;
}

}  // namespace

runtime_status hsa_api::gpus(std::vector<hsa_gpu>& out) {
  out.clear();
  hsa_status_t rc = hsa_init();
  if (rc != HSA_STATUS_SUCCESS) return runtime_status::failure("hsa_init", rc, describe(rc));
  walk w{this, &out};
  rc = hsa_iterate_agents(visit, &w);
  hsa_shut_down();  // reference counted: HIP's own hsa_init keeps the runtime up
  if (rc != HSA_STATUS_SUCCESS && rc != HSA_STATUS_INFO_BREAK)
    return runtime_status::failure("hsa_iterate_agents", rc, describe(rc));
  return runtime_status::success();
}

}  // namespace gs::vendor
