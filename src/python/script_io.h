// What running a probe script needs, shared by the fresh interpreter (script_runner.cpp) and the
// warm worker (python_worker.cpp): a private work dir holding the script and its helpers, the
// environment the script gets, non-blocking reads, and the collector that turns the
// interpreter's two streams into a python_probe_outcome as they arrive.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "python/gs_line_protocol.h"
#include "python/script_runner.h"

namespace gs {

std::string errno_text(const char* what);

/// A private work dir (0700 from mkdtemp) removed with everything in it on scope exit.
class temp_dir {
 public:
  temp_dir();
  ~temp_dir();
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

 private:
  std::string path_, error_;
};

/// Writes the embedded asset into `dir` under its base name; false with *error when it cannot.
bool write_asset(const std::string& dir, std::string_view asset_path, std::string* error);
/// gs_protocol.py, the script and its extra assets into `dir` (made by the caller, its error
/// checked here); the script's path there, or "" with *error.
std::string place_script(const temp_dir& dir, const python_probe_request& req, std::string* error);

/// What the script's environment adds to the inherited one: the request's, its arguments as
/// GPUSTACK_ARGS, unbuffered output and no bytecode written next to anyone's files.
std::map<std::string, std::string> script_environment(const python_probe_request& req);

void set_nonblocking(int fd);
/// Reads what is there; false at EOF or on a hard error.
bool drain(int fd, std::string& into);

/// Turns the interpreter's two streams into an outcome: protocol lines from stdout (relayed to
/// the probe context as they come), everything else into the log tail. `@gs worker` lines (the
/// warm worker's own) go to on_worker.
class output_collector {
 public:
  output_collector(python_probe_outcome& out, const probe_context* ctx,
                   std::function<void(std::string_view)> on_worker = {})
      : out_(out), ctx_(ctx), on_worker_(std::move(on_worker)) {}
  void feed(bool from_stdout, std::string_view bytes);
  void finish(bool from_stdout);
  /// The script ended (exit code, or the signal that killed it): fills the outcome's ending.
  void close(int exit_code, int signal);

 private:
  void handle(bool from_stdout);
  python_probe_outcome& out_;
  const probe_context* ctx_;
  std::function<void(std::string_view)> on_worker_;
  gs_line_parser out_parser_, err_parser_;
  log_tail tail_;
  std::vector<gs_line_event> events_;
};

/// An interpreter's stdout and stderr, read in rounds by the loops that run a script (fresh, in
/// script_runner.cpp, and in the warm worker): each round waits up to 100 ms for either, feeds
/// what arrived to the collector (and to `raw`, when given) and closes a stream at its EOF.
struct output_streams {
  int fd[2];  ///< stdout, stderr (non-blocking)
  bool open[2] = {true, true};
  bool any_open() const { return open[0] || open[1]; }
  void pump(output_collector& col, const std::function<void(bool from_stdout, std::string_view)>& raw = {});
  /// What is left in one stream now (0: stdout, 1: stderr), without waiting: the output of an
  /// interpreter that died, or stderr flushed before a done line.
  void read_rest(output_collector& col, int which);
};

}  // namespace gs
