// `gpustack mcp`: gpustack over the Model Context Protocol (JSON-RPC 2.0, one message a line on
// stdin/stdout), so an AI assistant can ask it about a machine or a paste. Each tool runs this
// gpustack binary itself with the matching command and --json, so a tool's answer is exactly the
// redacted report a user gets, and a crash in one call cannot take the server down. Read-only by
// default: `probe` (which runs code on the GPU) is offered only when the server was started with
// --allow-probes; nothing that changes the machine (`fix`) is offered at all. docs/mcp.md.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gs {

/// How a tool call runs gpustack: argv (without the binary), an optional text for a file the
/// command reads (explain's paste, put where "{FILE}" stands), a deadline. Returns exit code and
/// stdout; tests replace it.
struct tool_run_result {
  int exit_code = -1;
  bool timed_out = false;
  std::string out;
};
using tool_runner = std::function<tool_run_result(const std::vector<std::string>& args, const std::string& file_text,
                                                  double timeout_s)>;

struct mcp_options {
  bool allow_probes = false;
  tool_runner run;  ///< required
};

class mcp_server {
 public:
  explicit mcp_server(mcp_options o) : o_(std::move(o)) {}
  /// One incoming line; the response line, or nullopt for a notification (or a blank line).
  std::optional<std::string> handle_line(const std::string& line);
  /// The tools offered (tools/list's "tools").
  nlohmann::json tools() const;

 private:
  nlohmann::json call_tool(const nlohmann::json& params);
  mcp_options o_;
};

/// The protocol versions this server speaks (the client's, when it is one of them; else the last).
const std::vector<std::string>& mcp_protocol_versions();

}  // namespace gs
