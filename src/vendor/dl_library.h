// A thin dlopen table (research/aesthetics.md (b)3, DCGM's PluginLib): open a vendor library from
// a list of candidates, resolve its REQUIRED and OPTIONAL symbols into typed function pointers,
// and turn every failure into a runtime_status. Nothing here links a vendor library, so one
// binary starts on a machine that has only one vendor, or none.
#pragma once
#include <initializer_list>
#include <string>
#include <vector>

#include "core/runtime_status.h"

namespace gs::vendor {

/// One symbol of a table: its exported name, where the address goes, and whether a missing
/// symbol makes the whole library unusable.
struct dl_symbol {
  const char* name;
  void** slot;
  bool required;
};

/// Typed slot for dl_symbol: `dl_req("cuInit", t.cuInit)`. Function pointers and void* have the
/// same size and representation on every POSIX target (dlsym itself relies on that).
template <class Fn>
dl_symbol dl_req(const char* name, Fn*& slot) { return {name, reinterpret_cast<void**>(&slot), true}; }
template <class Fn>
dl_symbol dl_opt(const char* name, Fn*& slot) { return {name, reinterpret_cast<void**>(&slot), false}; }

class dl_library {
 public:
  dl_library() = default;
  dl_library(const dl_library&) = delete;
  dl_library& operator=(const dl_library&) = delete;
  dl_library(dl_library&& o) noexcept;
  dl_library& operator=(dl_library&& o) noexcept;
  /// GPU runtimes register atexit handlers and threads, so they are never dlclose'd: unloading
  /// libamdhip64 or libcuda before exit is a known way to crash at exit. Other libraries are.
  ~dl_library();

  /// Try each candidate in order (a bare soname goes through the loader's search, a path is
  /// opened as is); the first that loads wins. The failure lists every candidate's dlerror.
  runtime_status open(const std::vector<std::string>& candidates, bool keep_loaded = true);
  /// Use an already-open handle that this object does not own (symbols of ROCm 5's hiprtc live
  /// inside libamdhip64, so the hiprtc table reads them from the HIP handle).
  void borrow(void* handle, std::string path);
  /// Resolve a table. Missing REQUIRED symbols fail with all their names listed; missing
  /// OPTIONAL ones leave the slot null and are recorded in missing_optional().
  runtime_status resolve(std::initializer_list<dl_symbol> symbols);
  /// dlsym on this library (and, as dlsym does with a handle, its dependencies).
  void* symbol(const char* name) const;

  bool is_open() const { return handle_ != nullptr; }
  void* handle() const { return handle_; }
  /// The file that was loaded (from dlinfo), or the candidate name when that is unknown.
  const std::string& path() const { return path_; }
  const std::vector<std::string>& missing_optional() const { return missing_optional_; }

 private:
  void* handle_ = nullptr;
  bool owned_ = false;
  bool keep_loaded_ = true;
  std::string path_;
  std::vector<std::string> missing_optional_;
};

/// Candidates for a library: the override (from an environment variable, if set and non-empty)
/// alone, else each soname through the loader, then each soname in each extra directory.
std::vector<std::string> library_candidates(const char* override_env, std::initializer_list<const char*> sonames,
                                            const std::vector<std::string>& extra_dirs = {});

/// The directory part of a library path ("" when it has none).
std::string library_dir(const std::string& path);

/// dlsym(handle, name) != null, for a handle this code does not own.
bool handle_has_symbol(void* handle, const char* name);

}  // namespace gs::vendor

/// The one check generator for vendor calls (aesthetics.md (b)9): evaluate `expr`; when it is not
/// `ok_value`, return the runtime_status that `to_status(code, "<statement>", where)` builds, where
/// `where` names the function, file and line. It returns, never aborts.
#define GS_VENDOR_CHECK(expr, ok_value, to_status)                                          \
  do {                                                                                    \
    const auto gs_rc_ = (expr);                                                           \
    if (gs_rc_ != (ok_value))                                                             \
      return to_status(static_cast<int>(gs_rc_), #expr,                                   \
                       std::string(__func__) + " (" + __FILE__ + ":" + std::to_string(__LINE__) + ")"); \
  } while (0)

namespace gs::vendor {
/// The called function's name from a checked statement ("cuInit(0)" -> "cuInit"), so that
/// runtime_status::call stays a name a user can search for.
std::string call_name(const char* statement);
}  // namespace gs::vendor
