// Running a probe script in the user's Python (script_runner.h). We are already inside the
// probe's watched child, which leads its own process group: the interpreter is forked into that
// same group (no setpgid), so a deadline's group kill reaches Python and whatever it started
// (Triton's ptxas, a compile worker). Python runs unbuffered (-u) so a phase line reaches us
// when it is printed, not when a 8 KiB buffer fills at exit.
#include "python/script_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "python/python_worker.h"
#include "python/script_io.h"
#include "python/transcript.h"
#include "sys/child_spawn.h"
#include "watch/watch.h"

namespace gs {

using clock_type = std::chrono::steady_clock;

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
  // The run's warm worker, when this step runs in one (watch/probe_worker.h).
  if (ctx.python) return ctx.python->run(ctx, req);
  temp_dir dir;
  std::string script = place_script(dir, req, &out.error);
  if (script.empty()) return out;

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
  pid_t pid = spawn_child({*interp, "-u", script}, environment_with(script_environment(req)),
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
  bool exited = false, killed = false;
  int wstatus = 0;
  clock_type::time_point exited_at{};
  output_streams streams{{out_pipe[0], err_pipe[0]}};
  while (streams.any_open()) {
    streams.pump(col, [&](bool from_stdout, std::string_view bytes) {
      if (raw) raw->append(from_stdout, bytes);
    });
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
  if (!o.worker.is_null()) r.data["worker"] = o.worker;
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
