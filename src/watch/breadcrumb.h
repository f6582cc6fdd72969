// The breadcrumb: before each GPU probe, and at each of its phase changes, gpustack writes which
// probe is running to a small state file, and removes it when the probe ends. If the machine
// hangs hard (a GPU reset that takes the kernel down), the file survives the reboot, and the
// next run says which probe was in which phase. Location: $GPUSTACK_STATE_DIR, else
// $XDG_STATE_HOME/gpustack, else ~/.local/state/gpustack; file breadcrumb.json.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace gs {

struct breadcrumb {
  std::string probe;     ///< "gemm.bf16"
  std::string phase;     ///< "sync" ("start" before the child reported one)
  std::string time_utc;  ///< "2026-12-02T15:04:05Z", when this phase began
  long pid = 0;          ///< the gpustack process that wrote it
  std::string boot_id;   ///< /proc/sys/kernel/random/boot_id: a different one means a reboot since
};

class breadcrumb_file {
 public:
  explicit breadcrumb_file(std::string dir) : dir_(std::move(dir)) {}
  /// The state directory from the environment; "" when neither variable nor HOME is set.
  static std::string default_dir(const std::map<std::string, std::string>& env);
  std::string path() const { return dir_ + "/breadcrumb.json"; }
  /// Atomic replace + fsync (a crumb that is still in the page cache dies with the machine).
  bool write(const breadcrumb& b, std::string* why = nullptr) const;
  /// nullopt when there is none; *malformed = true when a file is there but unreadable.
  std::optional<breadcrumb> read(bool* malformed = nullptr) const;
  void remove() const;

 private:
  std::string dir_;
};

/// This boot's id, "" when unknown.
std::string current_boot_id();
/// A process with this pid exists and its name starts with "gpustack" (pids are reused).
bool pid_alive(long pid);

/// At startup: when a breadcrumb is left by a run that is gone (another boot, or its pid no
/// longer exists), remove it and return the sentence for stderr and the report. A crumb of a
/// run still alive (two gpustack at once) is left alone.
std::optional<std::string> take_stale_breadcrumb(const breadcrumb_file& file,
                                                 const std::string& boot_id,
                                                 const std::function<bool(long)>& alive = pid_alive);

}  // namespace gs
