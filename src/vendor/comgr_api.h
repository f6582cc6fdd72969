// amd_comgr (libamd_comgr.so.3 in ROCm 7, .so.2 before) as a dlopen table, plus the enum values
// of both majors. comgr 3.0 renumbered its language and action enums (it dropped HC,
// ADD_DEVICE_LIBRARIES and OPTIMIZE_BC_TO_BC), so the numbers are chosen at run time from
// amd_comgr_get_version(), never from a header (detection.md 0.6 and 5.1).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "vendor/dl_library.h"

namespace gs::vendor {

using amd_comgr_status_t = int;
struct amd_comgr_data_t { uint64_t handle; };
struct amd_comgr_data_set_t { uint64_t handle; };
struct amd_comgr_action_info_t { uint64_t handle; };
constexpr amd_comgr_status_t AMD_COMGR_STATUS_SUCCESS = 0;

/// Data kinds: identical in 2.x and 3.x.
enum comgr_data_kind : int {
  comgr_kind_source = 0x1,
  comgr_kind_include = 0x2,
  comgr_kind_log = 0x5,
  comgr_kind_bc = 0x6,
  comgr_kind_relocatable = 0x7,
  comgr_kind_executable = 0x8,
};

/// The numbers that moved between majors. Which steps exist differs too: 2.x has
/// ADD_DEVICE_LIBRARIES and 3.x does not (its COMPILE_SOURCE_WITH_DEVICE_LIBS_TO_BC does both).
struct comgr_enums {
  int major = 0;
  int language_hip = 0;
  int compile_source_to_bc = 0;
  int add_device_libraries = -1;                 ///< -1: not in this major
  int compile_source_with_device_libs_to_bc = 0;
  int link_bc_to_bc = 0;
  int codegen_bc_to_relocatable = 0;
  int link_relocatable_to_executable = 0;
};

/// The table for a comgr major: 2 (ROCm 5.x-6.x; checked against Debian's libamd_comgr.so.2 2.4
/// header and by compiling), 3 (ROCm 7; from ROCm/llvm-project amd_comgr.h.in). Others: major 0.
comgr_enums comgr_enums_for(size_t major);

struct comgr_api {
  dl_library lib;
  void (*amd_comgr_get_version)(size_t*, size_t*) = nullptr;
  amd_comgr_status_t (*amd_comgr_status_string)(amd_comgr_status_t, const char**) = nullptr;
  amd_comgr_status_t (*amd_comgr_get_isa_count)(size_t*) = nullptr;
  amd_comgr_status_t (*amd_comgr_get_isa_name)(size_t, const char**) = nullptr;
  amd_comgr_status_t (*amd_comgr_create_data)(int, amd_comgr_data_t*) = nullptr;
  amd_comgr_status_t (*amd_comgr_release_data)(amd_comgr_data_t) = nullptr;
  amd_comgr_status_t (*amd_comgr_set_data)(amd_comgr_data_t, size_t, const char*) = nullptr;
  amd_comgr_status_t (*amd_comgr_set_data_name)(amd_comgr_data_t, const char*) = nullptr;
  amd_comgr_status_t (*amd_comgr_get_data)(amd_comgr_data_t, size_t*, char*) = nullptr;
  amd_comgr_status_t (*amd_comgr_get_data_isa_name)(amd_comgr_data_t, size_t*, char*) = nullptr;
  amd_comgr_status_t (*amd_comgr_create_data_set)(amd_comgr_data_set_t*) = nullptr;
  amd_comgr_status_t (*amd_comgr_destroy_data_set)(amd_comgr_data_set_t) = nullptr;
  amd_comgr_status_t (*amd_comgr_data_set_add)(amd_comgr_data_set_t, amd_comgr_data_t) = nullptr;
  amd_comgr_status_t (*amd_comgr_action_data_count)(amd_comgr_data_set_t, int, size_t*) = nullptr;
  amd_comgr_status_t (*amd_comgr_action_data_get_data)(amd_comgr_data_set_t, int, size_t, amd_comgr_data_t*) = nullptr;
  amd_comgr_status_t (*amd_comgr_create_action_info)(amd_comgr_action_info_t*) = nullptr;
  amd_comgr_status_t (*amd_comgr_destroy_action_info)(amd_comgr_action_info_t) = nullptr;
  amd_comgr_status_t (*amd_comgr_action_info_set_isa_name)(amd_comgr_action_info_t, const char*) = nullptr;
  amd_comgr_status_t (*amd_comgr_action_info_set_language)(amd_comgr_action_info_t, int) = nullptr;
  amd_comgr_status_t (*amd_comgr_action_info_set_option_list)(amd_comgr_action_info_t, const char**, size_t) = nullptr;
  amd_comgr_status_t (*amd_comgr_action_info_set_logging)(amd_comgr_action_info_t, bool) = nullptr;
  amd_comgr_status_t (*amd_comgr_do_action)(int, amd_comgr_action_info_t, amd_comgr_data_set_t,
                                            amd_comgr_data_set_t) = nullptr;

  size_t major = 0, minor = 0;
  comgr_enums enums;

  /// $GPUSTACK_COMGR_LIBRARY, else libamd_comgr.so.{3,2} via the loader, `hip_dir`, the ROCm
  /// dirs. Fails for a major whose enum numbering we do not know.
  runtime_status load(const std::string& hip_dir = {});
  /// "comgr 2.4"
  std::string version() const { return "comgr " + std::to_string(major) + "." + std::to_string(minor); }
  /// "amdgcn-amd-amdhsa--gfx90a", ... as this comgr lists them.
  std::vector<std::string> isa_names() const;
  std::string describe(amd_comgr_status_t code) const;
  runtime_status status(int code, const char* statement, const std::string& where) const;
};

}  // namespace gs::vendor
