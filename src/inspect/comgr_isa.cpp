// comgr_isa.h. The comgr table is shared by every call of the namer (one dlopen a process).
#include "inspect/comgr_isa.h"

#include "vendor/comgr_api.h"

namespace gs {

std::function<std::string(std::string_view)> comgr_isa_namer(std::string* why) {
  auto api = std::make_shared<vendor::comgr_api>();
  runtime_status st = api->load();
  if (!st.ok || !api->amd_comgr_get_data_isa_name || !api->amd_comgr_create_data || !api->amd_comgr_set_data) {
    if (why) *why = st.ok ? "comgr lacks amd_comgr_get_data_isa_name" : st.message;
    return {};
  }
  return [api](std::string_view code) -> std::string {
    vendor::amd_comgr_data_t d{};
    if (api->amd_comgr_create_data(vendor::comgr_kind_executable, &d) != vendor::AMD_COMGR_STATUS_SUCCESS) return {};
    std::string name;
    size_t size = 0;
    if (api->amd_comgr_set_data(d, code.size(), code.data()) == vendor::AMD_COMGR_STATUS_SUCCESS &&
        api->amd_comgr_get_data_isa_name(d, &size, nullptr) == vendor::AMD_COMGR_STATUS_SUCCESS && size > 0 &&
        size < 4096) {
      name.resize(size);
      if (api->amd_comgr_get_data_isa_name(d, &size, name.data()) != vendor::AMD_COMGR_STATUS_SUCCESS) name.clear();
      while (!name.empty() && name.back() == '\0') name.pop_back();
    }
    api->amd_comgr_release_data(d);
    return name;
  };
}

}  // namespace gs
