// The ISA of an AMD code object as comgr names it (amd_comgr_get_data_isa_name on a
// DATA_KIND_EXECUTABLE: "amdgcn-amd-amdhsa--gfx90a:xnack-"), for `inspect --deep`. comgr is
// dlopen'ed (vendor/comgr_api); without it the ELF header's EF_AMDGPU_MACH is the answer.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace gs {

/// A namer over a loaded comgr, or an empty function (with `why` set) when comgr does not load.
std::function<std::string(std::string_view)> comgr_isa_namer(std::string* why = nullptr);

}  // namespace gs
