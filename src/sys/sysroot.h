// Every read of the machine's state goes through a sysroot, so tests, `check --sysroot DIR` and
// snapshots see exactly what the live code sees. The live sysroot reads "/" and really opens
// device nodes; a captured one reads DIR and replays what cannot be stored as files (read errors
// such as EPERM, device-open results, the process's groups, the environment) from
// DIR/.gpustack-snapshot.toml (format in docs/snapshot.md).
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

/// Result of reading one file: text on success, else the errno that the read failed with.
struct read_result {
  std::optional<std::string> text;
  int err = 0;  ///< 0 on success; ENOENT, EACCES, EPERM, EIO ...
  explicit operator bool() const { return text.has_value(); }
};

struct node_stat {
  bool exists = false;
  bool is_dir = false;
  mode_t mode = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};

class sysroot {
 public:
  /// The running machine.
  static sysroot live();
  /// A captured tree. Missing manifest = no injected errors, every device "ENOENT", no groups.
  static sysroot captured(std::string dir);

  bool is_live() const { return root_.empty(); }
  const std::string& root() const { return root_; }

  /// Read a whole file (at most max_bytes; sysfs files are small, METADATA can be large).
  read_result read(std::string_view path, size_t max_bytes = 4u << 20) const;
  /// Read up to len bytes at offset (headers of large files such as ELF libraries); a short
  /// result means end of file. Same injected errors and recorder as read().
  read_result read_at(std::string_view path, uint64_t offset, size_t len) const;
  /// Convenience: the text, or nullopt on any error.
  std::optional<std::string> read_text(std::string_view path) const;
  /// Names in a directory, sorted; empty on error (err set when given).
  std::vector<std::string> list(std::string_view path, int* err = nullptr) const;
  node_stat stat(std::string_view path) const;
  bool exists(std::string_view path) const { return stat(path).exists; }
  bool is_dir(std::string_view path) const { return stat(path).is_dir; }
  /// Target of a symlink as stored, or nullopt.
  std::optional<std::string> readlink(std::string_view path) const;
  /// Canonical path in the machine's namespace ("/opt/rocm" -> "/opt/rocm-7.2.0"); the input
  /// when it cannot be resolved.
  std::string realpath(std::string_view path) const;

  /// Try to open a device node read-write as the GPU runtimes do; 0 or the errno.
  int open_device(std::string_view path) const;
  /// Supplementary and primary group ids of this process.
  std::vector<gid_t> process_groups() const;
  /// Group name for a gid ("render"), or the number as text when it has no name.
  std::string group_name(gid_t gid) const;
  /// The environment as this process (or the captured one) saw it.
  std::map<std::string, std::string> environment() const;

  /// Observer told of every path touched (for `gpustack snapshot`): reads, stats, link reads,
  /// device opens, and listings (as the directory with a trailing '/', so the snapshot keeps
  /// the names of listed directories only).
  using recorder = std::function<void(const std::string& path, int err)>;
  void set_recorder(recorder r) { recorder_ = std::move(r); }

  // Test hooks: inject what a captured tree would carry in its manifest.
  void inject_error(std::string path, int err) { errors_[std::move(path)] = err; }
  void inject_device(std::string path, int err) { devices_[std::move(path)] = err; }
  void set_groups(std::vector<std::pair<gid_t, std::string>> groups) { groups_ = std::move(groups); }
  void set_environment(std::map<std::string, std::string> env) { env_ = std::move(env); }
  /// Owner and permission bits of a path, as a captured tree records them in [owners] (device
  /// nodes are stored as plain files, so the checkout's own owner would otherwise show).
  void inject_owner(std::string path, uid_t uid, gid_t gid, mode_t perm) {
    owners_[std::move(path)] = {uid, gid, perm};
  }
  /// Path of the manifest inside a captured tree.
  static constexpr std::string_view kManifest = ".gpustack-snapshot.toml";

 private:
  std::string host_path(std::string_view path) const;
  int injected(std::string_view path) const;
  void note(std::string_view path, int err) const;
  /// An fd of `path` opened for reading, or -1 with `*err` set (injected or errno) and noted.
  int open_read(std::string_view path, int* err) const;

  std::string root_;  ///< "" = live
  std::map<std::string, int, std::less<>> errors_;
  std::map<std::string, int, std::less<>> devices_;
  std::vector<std::pair<gid_t, std::string>> groups_;
  std::optional<std::map<std::string, std::string>> env_;
  struct owner {
    uid_t uid;
    gid_t gid;
    mode_t perm;
  };
  std::map<std::string, owner, std::less<>> owners_;
  /// [links]: a symlink's target as the machine stored it, where the tree holds a rewritten one
  /// (a snapshot makes absolute targets relative so they resolve inside the tree).
  std::map<std::string, std::string, std::less<>> links_;
  recorder recorder_;
};

/// "EPERM" for EPERM etc.; "errno N" for unknown values.
std::string errno_name(int err);
/// Inverse of errno_name for the names snapshots use; 0 when unknown.
int errno_from_name(std::string_view name);

}  // namespace gs
