// `gpustack mcp [--allow-probes]`: the Model Context Protocol server on stdin/stdout (src/mcp/,
// docs/mcp.md). Each tool call runs this binary with the matching command, its report written to
// a private temporary file (-o), so the channel on stdout carries nothing but protocol messages.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/cli.h"
#include "core/status.h"
#include "mcp/mcp_server.h"
#include "python/script_io.h"
#include "sys/subprocess_capture.h"

namespace gs {
namespace {

namespace fs = std::filesystem;

struct mcp_args {
  bool allow_probes = false;
};

tool_run_result run_self(const std::string& self, const std::vector<std::string>& args, const std::string& file_text,
                         double timeout_s) {
  tool_run_result r;
  temp_dir dir;  // private (0700), removed with the call's files when the call ends
  if (dir.path().empty()) {
    r.out = "gpustack mcp: cannot create a temporary directory: " + dir.error();
    return r;
  }
  const fs::path paste = fs::path(dir.path()) / "paste.txt", report = fs::path(dir.path()) / "report";
  std::vector<std::string> argv{self};
  for (const std::string& a : args) argv.push_back(a == "{FILE}" ? paste.string() : a);
  if (!file_text.empty() || std::find(args.begin(), args.end(), "{FILE}") != args.end())
    std::ofstream(paste, std::ios::binary) << file_text;
  argv.insert(argv.end(), {"-o", report.string()});
  captured_run c = run_captured(argv, timeout_s);
  r.exit_code = c.started ? c.exit_code : -1;
  r.timed_out = c.timed_out;
  std::ifstream in(report, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  r.out = s.str();
  // No report: what the command said instead is the answer (a usage error names its reason).
  if (r.out.empty()) r.out = c.started ? c.output : "gpustack mcp: could not run " + self + ": " + c.error;
  return r;
}

int run_mcp(const mcp_args& a) {
  std::error_code ec;
  const std::string self = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec) {
    std::fprintf(stderr, "gpustack mcp: cannot find this gpustack's own path (/proc/self/exe): %s\n", ec.message().c_str());
    return exit_usage;
  }
  mcp_options o;
  o.allow_probes = a.allow_probes;
  o.run = [self](const std::vector<std::string>& args, const std::string& text, double t) {
    return run_self(self, args, text, t);
  };
  mcp_server server(std::move(o));
  std::fprintf(stderr, "gpustack mcp: serving the Model Context Protocol on stdin/stdout (%s)\n",
               a.allow_probes ? "probes allowed" : "read-only: no probes");
  for (std::string line; std::getline(std::cin, line);) {
    if (auto reply = server.handle_line(line)) {
      std::fwrite(reply->data(), 1, reply->size(), stdout);
      std::fputc('\n', stdout);
      std::fflush(stdout);
    }
  }
  return exit_ok;
}

}  // namespace

command_spec mcp_command() {
  return {"mcp", "serve gpustack to AI assistants over the Model Context Protocol (stdio)",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<mcp_args>();
            sub.add_flag("--allow-probes", a->allow_probes,
                         "also offer the probe tool, which runs code on the GPU (off: read-only tools only)");
            sub.footer("Tools: check, explain, estimate, inspect, matrix (and probe with --allow-probes). Example client "
                       "configuration: {\"mcpServers\": {\"gpustack\": {\"command\": \"gpustack\", \"args\": [\"mcp\"]}}}");
            return [a] { return run_mcp(*a); };
          }};
}

}  // namespace gs
