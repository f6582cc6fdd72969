// open_runtime(): the one place a device string becomes a backend. "auto" tries CUDA, then HIP,
// then falls back to the cpu backend, keeping each GPU backend's reason in why.message so a
// report can say why no GPU was used.
#include <cctype>
#include <string>

#include "runtime/runtime.h"
#include "runtime/runtime_cuda.h"
#include "runtime/runtime_hip.h"

namespace gs {

device_spec parse_device(const std::string& device) {
  device_spec spec;
  std::string backend = device, index;
  if (size_t colon = device.find(':'); colon != std::string::npos) {
    backend = device.substr(0, colon);
    index = device.substr(colon + 1);
    if (index.empty()) return spec;
  }
  auto all_digits = [](const std::string& s) {
    if (s.empty() || s.size() > 6) return false;
    for (char c : s)
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
  };
  if (all_digits(backend) && index.empty()) {  // "--device 0": the first GPU backend with device 0
    spec.backend = "gpu";
    spec.ordinal = std::stoi(backend);
    spec.valid = true;
    return spec;
  }
  if (backend != "cpu" && backend != "auto" && backend != "cuda" && backend != "hip") return spec;
  if (!index.empty() && (!all_digits(index) || backend == "cpu" || backend == "auto")) return spec;
  spec.backend = backend;
  spec.ordinal = index.empty() ? 0 : std::stoi(index);
  spec.valid = true;
  return spec;
}

std::unique_ptr<runtime> open_runtime(const std::string& device, runtime_status& why) {
  device_spec spec = parse_device(device);
  if (!spec.valid) {
    why = runtime_status::failure("open_runtime", 0,
                                  "malformed device '" + device + "' (expected cpu, auto, N, cuda:N or hip:N)");
    return nullptr;
  }
  if (spec.backend == "cpu") {
    why = runtime_status::success();
    return open_cpu_runtime(32);
  }
  if (spec.backend == "cuda") return open_cuda_runtime(spec.ordinal, why);
  if (spec.backend == "hip") return open_hip_runtime(spec.ordinal, why);

  // "auto" and "N": CUDA first (the more common stack, and its no-device answer is quick), then HIP.
  runtime_status cuda_why, hip_why;
  if (auto rt = open_cuda_runtime(spec.ordinal, cuda_why)) {
    why = runtime_status::success();
    return rt;
  }
  if (auto rt = open_hip_runtime(spec.ordinal, hip_why)) {
    why = runtime_status::success();
    return rt;
  }
  std::string reasons = "cuda: " + cuda_why.call + ": " + cuda_why.message + "; hip: " + hip_why.call + ": " + hip_why.message;
  if (spec.backend == "gpu") {
    why = runtime_status::failure("open_runtime", 0, "no GPU device " + std::to_string(spec.ordinal) + " (" + reasons + ")");
    return nullptr;
  }
  why = runtime_status::success();
  why.message = "no GPU, using the cpu backend (" + reasons + ")";
  return open_cpu_runtime(32);
}

}  // namespace gs
