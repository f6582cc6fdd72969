// Raw transcripts of the Python probe scripts. With GPUSTACK_TRANSCRIPT_DIR set, every script run
// leaves <dir>/<script>-<args hash>.stdout and .stderr, written as the bytes arrive (so a run the
// watchdog kills keeps what it printed up to the kill), and .json (arguments, exit code, signal)
// once it ends: what a maintainer asks for when a result looks wrong ("what did Python print?"),
// and how tests/fixtures/python_outputs/ gets real recordings from a hardware run. Off by default.
#pragma once
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace gs {

/// The directory named by GPUSTACK_TRANSCRIPT_DIR, or nullopt when unset or empty.
std::optional<std::string> transcript_dir();

/// "<stem>-<8 hex digits of FNV-1a over args.dump()>": one name per distinct run of a script, so
/// fla_triton.py at four num_stages values leaves four transcripts and a re-run overwrites its own.
std::string transcript_name(std::string_view script_path, const nlohmann::json& args);

class transcript {
 public:
  /// Opens <dir>/<name>.stdout/.stderr (dir created if missing); error() says why not.
  transcript(const std::string& dir, std::string_view script_path, nlohmann::json args);
  /// Appends and flushes. A script prints kilobytes; past 64 MiB a stream is cut (runaway loop).
  void append(bool from_stdout, std::string_view bytes);
  /// Writes <name>.json with the arguments and how the run ended.
  void finish(int exit_code, int signal);
  const std::string& error() const { return error_; }

 private:
  std::string base_, script_, error_;
  nlohmann::json args_;
  std::ofstream out_, err_;
  size_t written_[2] = {0, 0};
};

}  // namespace gs
