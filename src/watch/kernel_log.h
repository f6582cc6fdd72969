// New kernel-log lines seen while a probe runs, so a hang or crash can carry the driver's own
// words: amdgpu/KFD resets, ring timeouts, page faults, MES failures, NVIDIA Xid. The source is
// an interface (tests feed recorded lines); the live one reads /dev/kmsg non-blocking from its
// end, else runs `dmesg`, else says why it cannot (dmesg_restrict, a container without
// /dev/kmsg), which the runner notes once.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

struct kernel_log_read {
  bool readable = true;
  std::string why;                 ///< when not readable: "/dev/kmsg: EPERM; dmesg: exit 1"
  std::vector<std::string> lines;  ///< lines logged since the previous read
};

class kernel_log_source {
 public:
  virtual ~kernel_log_source() = default;
  /// Lines logged since the source was opened or last read.
  virtual kernel_log_read read_new() = 0;
};

/// /dev/kmsg, else `dmesg`, else an always-unreadable source that carries the reason.
std::unique_ptr<kernel_log_source> open_kernel_log();

/// "6,1234,5678901,-;amdgpu: GPU reset" -> "[    5.678901] amdgpu: GPU reset"; nullopt when it
/// is not a kmsg record.
std::optional<std::string> format_kmsg_record(std::string_view record);

/// The line reports a GPU fault, reset, timeout or loss (patterns in docs/watchdog.md).
bool is_gpu_event_line(std::string_view line);

/// New lines of `after` that are not in `before`: `before`'s last line is searched from the end
/// of `after`; when it is gone (the ring buffer wrapped), every line of `after` is new.
std::vector<std::string> lines_after(const std::vector<std::string>& before,
                                     const std::vector<std::string>& after);

}  // namespace gs
