// amd_comgr symbol table and the per-major enum tables.
#include "vendor/comgr_api.h"

#include "vendor/hip_api.h"

namespace gs::vendor {

comgr_enums comgr_enums_for(size_t major) {
  comgr_enums e;
  if (major == 2) {
    // Debian libamd-comgr-dev 5.2.3 (/usr/include/amd_comgr.h, interface 2.4): HC = 0x3,
    // HIP = 0x4; actions SOURCE_TO_BC 0x2, ADD_DEVICE_LIBRARIES 0x3, LINK_BC_TO_BC 0x4,
    // OPTIMIZE 0x5, CODEGEN 0x6, LINK_RELOCATABLE_TO_EXECUTABLE 0x9, WITH_DEVICE_LIBS 0xF.
    e = {2, 0x4, 0x2, 0x3, 0xF, 0x4, 0x6, 0x9};
  } else if (major == 3) {
    // comgr 3.x: HIP = 0x3 (HC gone); ADD_DEVICE_LIBRARIES and OPTIMIZE gone, so LINK_BC_TO_BC
    // 0x3, CODEGEN 0x4, LINK_RELOCATABLE_TO_EXECUTABLE 0x7, WITH_DEVICE_LIBS 0xC.
    e = {3, 0x3, 0x2, -1, 0xC, 0x3, 0x4, 0x7};
  }
  return e;
}

runtime_status comgr_api::load(const std::string& hip_dir) {
  std::vector<std::string> dirs;
  if (!hip_dir.empty()) dirs.push_back(hip_dir);
  for (std::string& d : rocm_lib_dirs()) dirs.push_back(std::move(d));
  runtime_status st =
      lib.open(library_candidates("GPUSTACK_COMGR_LIBRARY", {"libamd_comgr.so.3", "libamd_comgr.so.2"}, dirs));
  if (!st.ok) {
    st.message = "libamd_comgr " + st.message;
    return st;
  }
  st = lib.resolve({
      dl_req("amd_comgr_get_version", amd_comgr_get_version),
      dl_req("amd_comgr_status_string", amd_comgr_status_string),
      dl_req("amd_comgr_get_isa_count", amd_comgr_get_isa_count),
      dl_req("amd_comgr_get_isa_name", amd_comgr_get_isa_name),
      dl_req("amd_comgr_create_data", amd_comgr_create_data),
      dl_req("amd_comgr_release_data", amd_comgr_release_data),
      dl_req("amd_comgr_set_data", amd_comgr_set_data),
      dl_req("amd_comgr_set_data_name", amd_comgr_set_data_name),
      dl_req("amd_comgr_get_data", amd_comgr_get_data),
      dl_req("amd_comgr_get_data_isa_name", amd_comgr_get_data_isa_name),
      dl_req("amd_comgr_create_data_set", amd_comgr_create_data_set),
      dl_req("amd_comgr_destroy_data_set", amd_comgr_destroy_data_set),
      dl_req("amd_comgr_data_set_add", amd_comgr_data_set_add),
      dl_req("amd_comgr_action_data_count", amd_comgr_action_data_count),
      dl_req("amd_comgr_action_data_get_data", amd_comgr_action_data_get_data),
      dl_req("amd_comgr_create_action_info", amd_comgr_create_action_info),
      dl_req("amd_comgr_destroy_action_info", amd_comgr_destroy_action_info),
      dl_req("amd_comgr_action_info_set_isa_name", amd_comgr_action_info_set_isa_name),
      dl_req("amd_comgr_action_info_set_language", amd_comgr_action_info_set_language),
      dl_req("amd_comgr_action_info_set_option_list", amd_comgr_action_info_set_option_list),
      dl_req("amd_comgr_action_info_set_logging", amd_comgr_action_info_set_logging),
      dl_req("amd_comgr_do_action", amd_comgr_do_action),
  });
  if (!st.ok) return st;
  amd_comgr_get_version(&major, &minor);
  enums = comgr_enums_for(major);
  if (enums.major == 0)
    return runtime_status::failure("amd_comgr_get_version", 0,
                                   lib.path() + " is " + version() +
                                       ": its enum numbering is unknown to gpustack (2.x and 3.x are)");
  return st;
}

std::vector<std::string> comgr_api::isa_names() const {
  std::vector<std::string> out;
  size_t n = 0;
  if (!amd_comgr_get_isa_count || amd_comgr_get_isa_count(&n) != AMD_COMGR_STATUS_SUCCESS) return out;
  for (size_t i = 0; i < n && i < 4096; ++i) {
    const char* name = nullptr;
    if (amd_comgr_get_isa_name(i, &name) == AMD_COMGR_STATUS_SUCCESS && name) out.emplace_back(name);
  }
  return out;
}

std::string comgr_api::describe(amd_comgr_status_t code) const {
  const char* s = nullptr;
  if (amd_comgr_status_string && amd_comgr_status_string(code, &s) == AMD_COMGR_STATUS_SUCCESS && s) return s;
  return "amd_comgr_status_t " + std::to_string(code);
}

runtime_status comgr_api::status(int code, const char* statement, const std::string& where) const {
  return runtime_status::failure(call_name(statement), code, describe(code) + " [" + statement + " in " + where + "]");
}

}  // namespace gs::vendor
