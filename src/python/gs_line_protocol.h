// The `@gs` line protocol a probe script speaks on its stdout (script_runner.h has the summary;
// docs/python-probes.md the full text). This is the parser alone, so it can be tested without a
// Python: bytes arrive in any split, a line may lack its newline at EOF, a library may print
// half a line before ours, and a dying interpreter may leave garbage. Nothing here throws.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

struct gs_line_event {
  enum kind_t { phase, heartbeat, result, worker, log } kind = log;
  std::string text;  ///< phase: the name; result, worker: the JSON payload; log: the line
};

/// One complete line (without its newline) as an event. `@gs phase NAME` needs a short name of
/// [a-z0-9_.-]; `@gs result` and `@gs worker` (the warm worker's own messages, gs_worker.py) need
/// a payload that starts with '{'. Anything else is log.
gs_line_event parse_gs_line(std::string_view line);

/// Splits a byte stream into lines and parses each one.
class gs_line_parser {
 public:
  /// A result line carries golden vectors (~0.5 MB for the NF4 step); 32 MiB is a runaway.
  static constexpr size_t kMaxLine = 32u << 20;
  void feed(std::string_view bytes, std::vector<gs_line_event>& out);
  /// End of stream: a last line without a newline still counts.
  void finish(std::vector<gs_line_event>& out);
  /// Lines dropped for being longer than kMaxLine.
  size_t dropped() const { return dropped_; }

 private:
  void take(std::string_view line, std::vector<gs_line_event>& out);
  std::string buf_;
  bool skipping_ = false;  ///< inside an over-long line: drop bytes up to its newline
  size_t dropped_ = 0;
};

/// The last `max_lines` lines of log, each cut to `max_chars`; keeps memory flat however much a
/// script prints.
class log_tail {
 public:
  explicit log_tail(size_t max_lines = 40, size_t max_chars = 600) : max_lines_(max_lines), max_chars_(max_chars) {}
  void add(std::string_view line);
  const std::vector<std::string>& lines() const { return lines_; }

 private:
  size_t max_lines_, max_chars_;
  std::vector<std::string> lines_;
};

}  // namespace gs
