// `gpustack snapshot`: capture exactly the files `check` reads, redacted, as a gzip'd tar that
// `gpustack check --sysroot DIR` replays (format: docs/snapshot.md). Detection runs against a
// sysroot with a recorder; every path it touched is copied with its symlink chain, read errors
// and device-open results go to DIR/.gpustack-snapshot.toml with the process groups and the
// relevant environment.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "detect/detect.h"
#include "report/redact.h"
#include "sys/sysroot.h"

namespace gs {

struct snapshot_options {
  detect_options detect;             ///< --python / --venv, as `check` takes them
  bool include_identifiers = false;  ///< keep hostname/user/IPs/serials in files (never secrets)
  size_t max_file_bytes = 1u << 20;  ///< bigger files are left out and listed in the manifest
  std::string created_utc;           ///< "" = now
  /// Files no read produced, written at these paths as given (redacted like the rest): the card
  /// record of what NVML / libdrm said (card/card_record.h), which take_snapshot fills.
  std::map<std::string, std::string> generated;
};

/// How one path was touched: the errno the access ended in (an error beats success beats
/// ENOENT when it was touched more than once) and whether it was listed as a directory.
struct touch {
  int err = 0;
  bool listed = false;
};
using touched_paths = std::map<std::string, touch>;

/// Run `work` on a copy of `sys` that records every path touched.
touched_paths record_touched(const sysroot& sys, const std::function<void(const sysroot&)>& work);

struct snapshot_result {
  size_t files = 0;            ///< regular files written with their contents
  size_t entries = 0;          ///< tar entries of any kind
  uint64_t content_bytes = 0;  ///< bytes of file contents before compression
  uint64_t archive_bytes = 0;  ///< size of the .tar.gz
  std::vector<std::string> skipped;  ///< "path: reason" (too large, binary with identifiers)
};

/// Write `out` holding what `touched` names in `sys`, redacted by `red`. `env` is the subset of
/// the environment to record (already chosen; values are redacted here); from `opts` only
/// max_file_bytes and created_utc count. False + err on failure, leaving no partial file.
bool write_snapshot(const sysroot& sys, const touched_paths& touched, const redactor& red,
                    const std::map<std::string, std::string>& env, const snapshot_options& opts,
                    const std::string& out, snapshot_result& res, std::string& err);

/// The environment variables a snapshot keeps: what detection reported plus those it consults
/// to find things (PATH, VIRTUAL_ENV, CONDA_PREFIX, ROCM_PATH, CUDA_HOME, HOME, ...).
std::map<std::string, std::string> snapshot_env(const sysroot& sys, const machine_facts& facts);

/// Detection under a recorder, identity for redaction, then write_snapshot().
bool take_snapshot(const sysroot& sys, const snapshot_options& opts, const std::string& out,
                   snapshot_result& res, std::string& err);

/// A snapshot archive (FILE.tar.gz from `gpustack snapshot`) unpacked into a new directory under
/// $TMPDIR with the system's tar, so `check --sysroot FILE.tar.gz` replays it directly. Returns
/// the directory ("" with `error` set); the caller removes it (remove_all) when done.
std::string unpack_snapshot(const std::string& archive, std::string& error);

}  // namespace gs
