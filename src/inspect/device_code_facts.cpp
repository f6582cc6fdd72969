// device_code_facts.h.
#include "inspect/device_code_facts.h"

#include "inspect/code_compat.h"
#include "inspect/gpu_libraries.h"
#include "inspect/library_scan.h"

namespace gs {

void detect_device_code(const sysroot& sys, machine_facts& facts) {
  for (const gpu_library_ref& ref : find_gpu_libraries(sys, facts)) {
    std::string host_path = sys.is_live() ? ref.path : sys.root() + ref.path;
    library_scan s = scan_library_file(host_path);
    s.path = ref.path;
    if (s.error.starts_with("cannot read: ENOENT")) continue;  // RECORD lists a file that is gone: not our finding
    device_code_library lib = summarize_scan(s, ref.package);
    if (lib.units.empty() && lib.error.empty()) continue;  // no device code: nothing to judge
    facts.device_code.push_back(std::move(lib));
  }
}

std::string libraries_with_verdict(const machine_facts& facts, const gpu_info& gpu, code_verdict v) {
  gpu_target t = parse_gpu_target(gpu.arch);
  if (t.vendor.empty()) return {};
  std::string out;
  for (const device_code_library& lib : facts.device_code) {
    if (judge_library(lib, t).verdict != v) continue;
    std::string name = lib.path.substr(lib.path.rfind('/') + 1);
    if (builtin_code_compat().unjudged_reason(name)) continue;  // its kernels are not where we look
    out += (out.empty() ? "" : "; ") + name + (lib.package.empty() ? "" : " (" + lib.package + ")");
  }
  return out;
}

}  // namespace gs
