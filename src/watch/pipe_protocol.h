// The child-to-parent wire format of the watchdog: text lines "phase NAME", "beat", and one
// "result N" line followed by N raw bytes (so the payload may hold anything, newlines included).
// The reader accepts any split of the byte stream and skips what it cannot parse, because the
// child may be half-dead when it writes.
#pragma once
#include <chrono>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "watch/watch.h"

namespace gs {

/// Child side: writes messages to the pipe. Thread-safe (a probe may beat from a worker thread).
class pipe_reporter : public child_reporter {
 public:
  explicit pipe_reporter(int fd) : fd_(fd) {}
  void phase(std::string_view name) override;
  /// At most one beat per 100 ms reaches the pipe: enough for a 10 s window, and a probe that
  /// beats in a tight loop cannot fill the 64 KiB pipe and stall itself.
  void heartbeat() override;
  void result(std::string_view payload);

 private:
  void send(std::string_view bytes);
  int fd_;
  std::mutex mu_;
  std::chrono::steady_clock::time_point last_beat_{};
};

struct child_message {
  enum kind_t { phase, beat, result } kind;
  std::string text;  ///< the phase name or the result payload
};

/// Parent side: turns pipe bytes into messages.
class message_reader {
 public:
  static constexpr size_t kMaxLine = 256;           ///< longer lines are garbage
  static constexpr size_t kMaxPayload = 16u << 20;  ///< a probe_result is KiB; 16 MiB is plenty
  static constexpr size_t kMaxPhase = 32;           ///< phase names are short words
  void feed(std::string_view bytes, std::vector<child_message>& out);
  /// Malformed lines skipped so far.
  size_t garbage() const { return garbage_; }

 private:
  void take_line(std::string_view line, std::vector<child_message>& out);
  std::string buf_;
  size_t payload_left_ = 0;
  bool in_payload_ = false;
  bool skipping_line_ = false;  ///< inside an over-long line: drop bytes up to its newline
  std::string payload_;
  size_t garbage_ = 0;
};

}  // namespace gs
