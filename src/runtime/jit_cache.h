// On-disk cache of compiled kernel images, keyed by a hash of everything that decides the
// output: backend, arch, compiler and its version, options, source and headers. A JIT costs
// 0.1-0.5 s per kernel with NVRTC/comgr, so a probe run that compiles 6 kernels saves a few
// seconds on every run after the first. Writes are atomic (temp file + rename) and an entry that
// fails its own checksum is ignored, so a crash or a full disk never poisons later runs.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "runtime/kernel_source.h"
#include "runtime/runtime.h"

namespace gs {

/// Everything that goes into a cache key besides the source itself.
struct jit_key_parts {
  std::string backend;                  ///< "cuda" | "hip"
  std::string arch;                     ///< "sm_90" | "gfx1201"
  std::string compiler;                 ///< "nvrtc 13.0" | "hiprtc 7.2" | "comgr 2.4"
  std::vector<std::string> options;     ///< the exact option list passed to the compiler
};

/// 64 hex digits (SHA-256) over the parts and the prepared source, each length-prefixed so
/// that no two different inputs serialise alike.
std::string jit_cache_key(const jit_key_parts& parts, const device_source& src);

class jit_cache {
 public:
  /// A cache in `dir`; an empty dir disables it (get misses, put does nothing).
  explicit jit_cache(std::string dir) : dir_(std::move(dir)) {}
  /// $GPUSTACK_CACHE_DIR, else $XDG_CACHE_HOME/gpustack/jit, else $HOME/.cache/gpustack/jit;
  /// GPUSTACK_CACHE_DIR=off (or none of them set) disables caching.
  static jit_cache from_environment();

  const std::string& dir() const { return dir_; }
  bool enabled() const { return !dir_.empty(); }
  /// The image stored under `key`, or nullopt on a miss or a corrupt/foreign entry.
  std::optional<std::vector<char>> get(const std::string& key) const;
  /// Store atomically; a failure (read-only home, full disk) is returned, callers may ignore it.
  runtime_status put(const std::string& key, const std::vector<char>& image) const;
  /// The file an entry lives in.
  std::string path_for(const std::string& key) const;

 private:
  std::string dir_;
};

}  // namespace gs
