// PLACEHOLDER: being written (issue 2).
#include "detect/detect.h"
namespace gs {
void detect_python(const sysroot&, const detect_options&, machine_facts&) {}
}  // namespace gs
