// PLACEHOLDER: being written (issue 2).
#include "detect/detect.h"
namespace gs {
void detect_nvidia(const sysroot&, machine_facts&) {}
}  // namespace gs
