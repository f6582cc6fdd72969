// The warm interpreter's C++ side (python_worker.h).
#include "python/python_worker.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <utility>

#include "sys/child_spawn.h"
#include "watch/watch.h"
#include "sys/fd_io.h"

namespace gs {
namespace {

using clock_type = std::chrono::steady_clock;

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

std::string ending(int wstatus) {
  if (WIFSIGNALED(wstatus)) return "died of " + signal_name(WTERMSIG(wstatus));
  return "exited with code " + std::to_string(WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
}

}  // namespace

void python_worker::close_fds() {
  for (int* fd : {&in_fd_, &out_fd_, &err_fd_})
    if (*fd >= 0) {
      ::close(*fd);
      *fd = -1;
    }
}

void python_worker::stop() {
  if (pid_ > 0) {
    // Forked step children share our process group with the whole worker; the interpreter's
    // own ones die with the kill of the group at the end of the run, or here by PDEATHSIG-free
    // orphaning into our subreaper. SIGKILL: it holds nothing worth a graceful end.
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  pid_ = -1;
  ready_ = false;
  close_fds();
}

bool python_worker::alive() {
  if (pid_ <= 0) return false;
  int st = 0;
  if (::waitpid(pid_, &st, WNOHANG) != pid_) return true;
  new_because_ = "the previous interpreter (pid " + std::to_string(pid_) + ") " + ending(st) + " between steps";
  pid_ = -1;
  ready_ = false;
  close_fds();
  return false;
}

bool python_worker::start(std::string* error) {
  if (alive()) return true;
  if (!home_ || home_->path().empty()) {
    home_ = std::make_unique<temp_dir>();
    if (home_->path().empty()) {
      *error = home_->error();
      return false;
    }
    if (!write_asset(home_->path(), "probes/python/gs_worker.py", error)) return false;
  }
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0) {
    *error = errno_text("pipe");
    return false;
  }
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    *error = errno_text("pipe");
    ::close(in[0]);
    ::close(in[1]);
    return false;
  }
  // A write to an interpreter that just died must fail with EPIPE, not end this process.
  ::signal(SIGPIPE, SIG_IGN);
  std::map<std::string, std::string> env = {
      {"GPUSTACK_PRELOAD", joined(preload_)}, {"PYTHONUNBUFFERED", "1"}, {"PYTHONDONTWRITEBYTECODE", "1"}};
  pid_t pid = spawn_child({interpreter_, "-u", home_->path() + "/gs_worker.py"}, environment_with(env),
                          {.in_fd = in[0], .out_fd = out[1], .err_fd = err[1], .dir = home_->path().c_str(),
                           .default_sigpipe = true});
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  if (pid < 0) {
    *error = errno_text("fork");
    for (int fd : {in[1], out[0], err[0]}) ::close(fd);
    return false;
  }
  pid_ = pid;
  in_fd_ = in[1];
  out_fd_ = out[0];
  err_fd_ = err[0];
  set_nonblocking(out_fd_);
  set_nonblocking(err_fd_);
  ready_ = false;
  ready_info_ = nlohmann::json();
  served_ = 0;
  ++processes_;
  return true;
}

python_probe_outcome python_worker::run(const probe_context& ctx, const python_probe_request& req) {
  python_probe_outcome out;
  if (!alive() && !start(&out.error)) return out;  // alive() says why, when one died idle
  const std::string because = std::exchange(new_because_, std::string());

  temp_dir dir;
  std::string script = place_script(dir, req, &out.error);
  if (script.empty()) return out;
  const int seq = ++seq_;
  const bool fork_it = !ctx.python_in_worker;
  nlohmann::json request = {{"seq", seq}, {"script", script}, {"dir", dir.path()},
                            {"env", script_environment(req)}, {"fork", fork_it}};
  if (!write_all(in_fd_, request.dump() + "\n")) {
    out.error = "the warm Python worker stopped taking requests: " + errno_text("write");
    stop();
    new_because_ = "the previous interpreter stopped taking requests";
    return out;
  }
  out.started = true;
  const bool first_in_process = served_ == 0;
  if (!ready_) ctx.phase("preload");  // the step waits for the worker's imports

  nlohmann::json done;
  output_collector col(out, &ctx, [&](std::string_view text) {
    nlohmann::json m = nlohmann::json::parse(text, nullptr, false);
    if (!m.is_object()) return;
    std::string event = m.value("event", "");
    if (event == "ready" && !ready_) {
      ready_ = true;
      ready_info_ = m;
    } else if (event == "done" && m.contains("seq") && m["seq"] == seq) {
      done = std::move(m);
    }
  });
  const auto t0 = clock_type::now();
  bool died = false;
  int wstatus = 0;
  output_streams streams{{out_fd_, err_fd_}};
  while (done.is_null() && streams.any_open()) {
    streams.pump(col);
    if (done.is_null() && ::waitpid(pid_, &wstatus, WNOHANG) == pid_) {
      died = true;
      break;
    }
    double elapsed = std::chrono::duration<double>(clock_type::now() - t0).count();
    if (req.timeout_s > 0 && elapsed > req.timeout_s) {
      out.error = "the script ran past its " + std::to_string(static_cast<int>(req.timeout_s)) + " s limit; killed";
      stop();
      new_because_ = "the previous interpreter was killed at a step's time limit";
      break;
    }
  }
  if (!died && done.is_null() && !streams.any_open() && pid_ > 0) {
    // Both streams ended without a done line: the interpreter is exiting (an inline step that
    // crashed it), and its exit can lag the close of its pipes. Wait for it, as a fresh run does
    // (script_runner.cpp); the step's phase deadline still bounds this wait.
    pid_t r;
    while ((r = ::waitpid(pid_, &wstatus, 0)) < 0 && errno == EINTR) {
    }
    died = r == pid_;
  }
  if (died) {  // what it wrote before dying still counts
    streams.read_rest(col, 0);
    streams.read_rest(col, 1);
    col.finish(true);
    col.finish(false);
    col.close(WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1, WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0);
    new_because_ = "the previous interpreter (pid " + std::to_string(pid_) + ") " + ending(wstatus) + " during " +
                   ctx.probe_id;
    pid_ = -1;
    ready_ = false;
    close_fds();
  } else if (!done.is_null()) {
    streams.read_rest(col, 1);  // stderr flushed before the done line
    int code = done.contains("exit") && done["exit"].is_number_integer() ? done["exit"].get<int>() : 0;
    int sig = done.contains("signal") && done["signal"].is_number_integer() ? done["signal"].get<int>() : 0;
    col.close(sig ? -1 : code, sig);
  } else {
    col.close(-1, 0);
  }
  ++served_;

  // No done line (the interpreter died, or was killed at a time limit): done is null, which
  // json::value() rejects.
  const bool answered = done.is_object();
  nlohmann::json w = {{"mode", answered ? done.value("mode", fork_it ? "forked" : "inline") : (fork_it ? "forked" : "inline")},
                      {"process", processes_},
                      {"step_in_process", served_}};
  if (done.contains("pid")) w["pid"] = done["pid"];
  if (done.contains("inline_because")) w["inline_because"] = done["inline_because"];
  if (!because.empty()) w["new_interpreter_because"] = because;
  if (first_in_process && !ready_info_.is_null()) {
    w["preload_s"] = ready_info_.value("preload_s", nlohmann::json::object());
    w["preload_total_s"] = ready_info_.value("preload_total_s", 0.0);
    if (ready_info_.contains("preload_failed") && !ready_info_["preload_failed"].empty())
      w["preload_failed"] = ready_info_["preload_failed"];
  }
  // Inline steps share the process's GPU context: one that failed, or after which the context
  // reports an error, must not hand that context to the next step.
  std::string health = answered ? done.value("health", std::string("ok")) : std::string("ok");
  std::string status = out.result && out.result->contains("status") && (*out.result)["status"].is_string()
                           ? (*out.result)["status"].get<std::string>()
                           : "error";
  const bool inline_run = w["mode"] == "inline";
  if (pid_ > 0 && inline_run && (health != "ok" || (status != "pass" && status != "warn" && status != "skip"))) {
    w["replaced_after"] = health != "ok" ? health : "an inline step that ended " + status;
    stop();
    new_because_ = ctx.probe_id + " ran inline and " +
                   (health != "ok" ? health : "ended " + status) + "; a fault must not pass to the next step";
  }
  out.worker = std::move(w);
  return out;
}

}  // namespace gs
