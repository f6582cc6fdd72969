// Running a probe script in the user's Python (script_runner.h). We are already inside the
// probe's watched child, which leads its own process group: the interpreter is forked into that
// same group (no setpgid), so a deadline's group kill reaches Python and whatever it started
// (Triton's ptxas, a compile worker). Python runs unbuffered (-u) so a phase line reaches us
// when it is printed, not when a 8 KiB buffer fills at exit.
#include "python/script_runner.h"

#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "core/assets.h"
#include "python/gs_line_protocol.h"
#include "python/transcript.h"
#include "sys/child_spawn.h"
#include "watch/watch.h"

namespace gs {
namespace {

using clock_type = std::chrono::steady_clock;

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

std::string base_name(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

/// A private work dir (0700 from mkdtemp) removed with everything in it on scope exit.
class temp_dir {
 public:
  temp_dir() {
    const char* t = std::getenv("TMPDIR");
    std::string tmpl = std::string(t && *t ? t : "/tmp") + "/gpustack-py-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data())) path_ = buf.data();
    else error_ = errno_text("mkdtemp");
  }
  ~temp_dir() {
    if (path_.empty()) return;
    ::nftw(path_.c_str(), [](const char* p, const struct stat*, int, struct FTW*) { return ::remove(p); }, 16,
           FTW_DEPTH | FTW_PHYS);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

 private:
  std::string path_, error_;
};

bool write_asset(const std::string& dir, std::string_view asset_path, std::string* error) {
  std::optional<std::string_view> text = find_asset(asset_path);
  if (!text) {
    *error = "no embedded asset " + std::string(asset_path);
    return false;
  }
  std::ofstream out(dir + "/" + base_name(asset_path), std::ios::binary);
  out.write(text->data(), static_cast<std::streamsize>(text->size()));
  if (!out) {
    *error = "cannot write " + base_name(asset_path) + " to " + dir;
    return false;
  }
  return true;
}

/// The inherited environment with ours on top.
std::vector<std::string> child_environment(const python_probe_request& req) {
  std::map<std::string, std::string> add = req.env;
  add["GPUSTACK_ARGS"] = req.args.dump();
  add["PYTHONUNBUFFERED"] = "1";
  // No __pycache__ in the work dir, nor next to the user's packages from our imports.
  add["PYTHONDONTWRITEBYTECODE"] = "1";
  return environment_with(add);
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

/// Reads what is there; false at EOF or on a hard error.
bool drain(int fd, std::string& into) {
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      into.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

/// Turns the interpreter's two streams into an outcome: protocol lines from stdout (relayed to
/// the probe context as they come), everything else into the log tail.
class output_collector {
 public:
  output_collector(python_probe_outcome& out, const probe_context* ctx) : out_(out), ctx_(ctx) {}
  void feed(bool from_stdout, std::string_view bytes) {
    (from_stdout ? out_parser_ : err_parser_).feed(bytes, events_);
    handle(from_stdout);
  }
  void finish(bool from_stdout) {
    (from_stdout ? out_parser_ : err_parser_).finish(events_);
    handle(from_stdout);
  }
  void close(int exit_code, int signal) {
    out_.exit_code = exit_code;
    out_.signal = signal;
    out_.log_tail = tail_.lines();
    if (out_.result || !out_.error.empty()) return;
    if (signal) out_.error = "Python died of " + signal_name(signal) + " before sending a result";
    else out_.error = "Python exited with code " + std::to_string(exit_code) + " without sending a result";
  }

 private:
  void handle(bool from_stdout) {
    for (gs_line_event& e : events_) {
      if (!from_stdout || e.kind == gs_line_event::log) {  // stderr carries no protocol
        tail_.add(e.text);
        continue;
      }
      if (e.kind == gs_line_event::phase) {
        if (ctx_) ctx_->phase(e.text);
      } else if (e.kind == gs_line_event::heartbeat) {
        if (ctx_) ctx_->heartbeat();
      } else if (!out_.result) {  // the first result counts; a script sends one
        try {
          nlohmann::json j = nlohmann::json::parse(e.text);
          if (j.is_object()) out_.result = std::move(j);
          else out_.error = "the script's result is not a JSON object";
        } catch (const std::exception& ex) {
          out_.error = std::string("the script sent an unreadable result: ") + ex.what();
        }
      }
    }
    events_.clear();
  }
  python_probe_outcome& out_;
  const probe_context* ctx_;
  gs_line_parser out_parser_, err_parser_;
  log_tail tail_;
  std::vector<gs_line_event> events_;
};

}  // namespace

std::optional<std::string> probe_interpreter(const machine_facts& facts, std::string* why) {
  const python_info& py = facts.python;
  auto say = [why](std::string s) {
    if (why) *why = std::move(s);
    return std::nullopt;
  };
  if (!py.found || py.interpreter.empty())
    return say("no Python environment found (looked at --python, --venv, VIRTUAL_ENV, CONDA_PREFIX, "
               "./.venv and python3 on PATH)");
  if (::access(py.interpreter.c_str(), X_OK) != 0)
    return say("the Python interpreter " + py.interpreter + " cannot be executed: " + std::strerror(errno));
  return py.interpreter;
}

python_probe_outcome run_python_script(const probe_context& ctx, const python_probe_request& req) {
  python_probe_outcome out;
  std::string why;
  std::optional<std::string> interp =
      ctx.facts ? probe_interpreter(*ctx.facts, &why) : std::optional<std::string>();
  if (!interp) {
    out.error = ctx.facts ? why : "no machine facts: cannot tell which Python to use";
    return out;
  }
  temp_dir dir;
  if (dir.path().empty()) {
    out.error = dir.error();
    return out;
  }
  if (!write_asset(dir.path(), "probes/python/gs_protocol.py", &out.error) ||
      !write_asset(dir.path(), req.script, &out.error))
    return out;
  for (const std::string& extra : req.extra_assets)
    if (!write_asset(dir.path(), extra, &out.error)) return out;

  std::string script = dir.path() + "/" + base_name(req.script);

  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    out.error = errno_text("pipe");
    return out;
  }
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    out.error = errno_text("pipe");
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return out;
  }
  // Same process group as the watched child on purpose (see the header comment).
  pid_t pid = spawn_child({*interp, "-u", script}, child_environment(req),
                          {.out_fd = out_pipe[1], .err_fd = err_pipe[1], .dir = dir.path().c_str(), .default_sigpipe = true});
  if (pid < 0) {
    out.error = errno_text("fork");
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
    return out;
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  set_nonblocking(out_pipe[0]);
  set_nonblocking(err_pipe[0]);
  out.started = true;

  output_collector col(out, &ctx);
  // GPUSTACK_TRANSCRIPT_DIR: the raw streams are kept too, as they arrive (transcript.h).
  std::optional<std::string> keep_dir = transcript_dir();
  std::optional<transcript> raw;
  if (keep_dir) raw.emplace(*keep_dir, req.script, req.args);
  auto t0 = clock_type::now();
  bool out_open = true, err_open = true, exited = false, killed = false;
  int wstatus = 0;
  clock_type::time_point exited_at{};
  std::string chunk;
  while (out_open || err_open) {
    pollfd fds[2] = {{out_open ? out_pipe[0] : -1, POLLIN, 0}, {err_open ? err_pipe[0] : -1, POLLIN, 0}};
    ::poll(fds, 2, 100);
    for (int k = 0; k < 2; ++k) {
      bool& open = k == 0 ? out_open : err_open;
      if (!open) continue;
      chunk.clear();
      bool still = drain(k == 0 ? out_pipe[0] : err_pipe[0], chunk);
      col.feed(k == 0, chunk);
      if (raw) raw->append(k == 0, chunk);
      if (!still) {
        col.finish(k == 0);
        open = false;
      }
    }
    if (!exited && ::waitpid(pid, &wstatus, WNOHANG) == pid) {
      exited = true;
      exited_at = clock_type::now();
    }
    // A grandchild that inherited the pipes can hold them open after Python is gone: give
    // it a moment to flush, then stop listening.
    if (exited && clock_type::now() - exited_at > std::chrono::milliseconds(500)) break;
    double elapsed = std::chrono::duration<double>(clock_type::now() - t0).count();
    if (!exited && !killed && req.timeout_s > 0 && elapsed > req.timeout_s) {
      ::kill(pid, SIGKILL);
      killed = true;
      out.error = "the script ran past its " + std::to_string(static_cast<int>(req.timeout_s)) + " s limit; killed";
    }
    if (interrupt_requested() && !killed && !exited) {
      ::kill(pid, SIGKILL);
      killed = true;
    }
  }
  col.finish(true);
  col.finish(false);
  ::close(out_pipe[0]);
  ::close(err_pipe[0]);
  if (!exited) {
    while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
  }
  col.close(WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1, WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0);
  if (!out.result && out.exit_code == 127 && out.log_tail.empty()) out.error = "could not execute " + *interp;
  if (raw) {
    raw->finish(out.exit_code, out.signal);
    if (!raw->error().empty()) out.log_tail.push_back("gpustack: transcript not kept: " + raw->error());
  }
  return out;
}

python_probe_outcome outcome_from_output(std::string_view stdout_text, std::string_view stderr_text,
                                         int exit_code, int signal) {
  python_probe_outcome out;
  out.started = true;
  output_collector col(out, nullptr);
  col.feed(false, stderr_text);
  col.finish(false);
  col.feed(true, stdout_text);
  col.finish(true);
  col.close(exit_code, signal);
  return out;
}

probe_result to_probe_result(std::string id, const python_probe_outcome& o) {
  probe_result r;
  r.id = std::move(id);
  std::string tail;
  for (const std::string& l : o.log_tail) tail += (tail.empty() ? "" : "\n") + l;
  if (o.result) {
    const nlohmann::json& j = *o.result;
    std::string st = j.contains("status") && j["status"].is_string() ? j["status"].get<std::string>() : "";
    std::optional<status> s = parse_status(st);
    if (j.contains("detail") && j["detail"].is_string()) r.detail = j["detail"].get<std::string>();
    if (j.contains("data") && j["data"].is_object()) r.data = j["data"];
    if (!s || *s == status::hang || *s == status::crash) {
      // hang and crash are the watchdog's verdicts, never a script's
      r.outcome = status::error;
      r.detail = "the script sent an unknown status '" + st + "'" + (r.detail.empty() ? "" : ": " + r.detail);
    } else {
      r.outcome = *s;
    }
    if (o.signal != 0) {
      r.data["exit_signal"] = signal_name(o.signal);
      r.detail += " (then Python died of " + signal_name(o.signal) + " while exiting)";
      if (r.outcome == status::pass) r.outcome = status::warn;
    } else if (o.exit_code != 0) {
      r.data["exit_code"] = o.exit_code;
    }
  } else {
    r.outcome = o.signal != 0 ? status::crash : status::error;
    r.detail = o.error;
    if (o.signal != 0) r.data["signal"] = signal_name(o.signal);
    else r.data["exit_code"] = o.exit_code;
    if (!o.log_tail.empty()) r.detail += ": " + o.log_tail.back();
  }
  // What the knowledge base matches (probe_command's gather_findings reads output_tail): the
  // script's own error text first, then the interpreter's last words.
  if (r.outcome != status::pass && r.outcome != status::skip) {
    std::string text;
    if (r.data.contains("error") && r.data["error"].is_object()) {
      const nlohmann::json& e = r.data["error"];
      if (e.contains("traceback") && e["traceback"].is_array())
        for (const nlohmann::json& l : e["traceback"])
          if (l.is_string()) text += l.get<std::string>() + "\n";
      if (e.contains("message") && e["message"].is_string()) text += e["message"].get<std::string>() + "\n";
    }
    text += tail;
    if (!text.empty()) r.data["output_tail"] = text;
  }
  return r;
}

}  // namespace gs
