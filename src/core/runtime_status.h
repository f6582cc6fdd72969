// The outcome of a call into a vendor library or a runtime backend: ok, or the vendor's words
// and the call that failed. Kept in core/ (not runtime/) because both layers return it: the
// dlopen tables of vendor/ below the runtime, and the runtime interface above them.
#pragma once
#include <string>
#include <utility>

namespace gs {

/// Outcome of a runtime call: ok, or the vendor's words plus the call that failed.
struct runtime_status {
  bool ok = true;
  std::string call;     ///< "cuModuleLoadData"
  int code = 0;         ///< vendor error code
  std::string message;  ///< vendor error string, or the compiler log for a JIT failure
  static runtime_status success() { return {}; }
  static runtime_status failure(std::string call, int code, std::string message) {
    return {false, std::move(call), code, std::move(message)};
  }
};

}  // namespace gs
