// PLACEHOLDER: being written (issue 2).
#include "detect/detect.h"
namespace gs {
void detect_toolkits(const sysroot&, machine_facts&) {}
}  // namespace gs
