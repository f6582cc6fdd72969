// PLACEHOLDER: being written (issue 2).
#include "detect/detect.h"
namespace gs {
void detect_env(const sysroot&, machine_facts&) {}
}  // namespace gs
