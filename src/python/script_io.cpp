// The pieces of running a probe script (script_io.h).
#include "python/script_io.h"

#include <fcntl.h>
#include <poll.h>
#include <ftw.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "core/assets.h"
#include "watch/watch.h"

namespace gs {
namespace {

std::string base_name(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

temp_dir::temp_dir() {
  const char* t = std::getenv("TMPDIR");
  std::string tmpl = std::string(t && *t ? t : "/tmp") + "/gpustack-py-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data())) path_ = buf.data();
  else error_ = errno_text("mkdtemp");
}

temp_dir::~temp_dir() {
  if (path_.empty()) return;
  ::nftw(path_.c_str(), [](const char* p, const struct stat*, int, struct FTW*) { return ::remove(p); }, 16,
         FTW_DEPTH | FTW_PHYS);
}

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

std::string place_script(const temp_dir& work, const python_probe_request& req, std::string* error) {
  if (work.path().empty()) {
    *error = work.error();
    return {};
  }
  const std::string& dir = work.path();
  if (!write_asset(dir, "probes/python/gs_protocol.py", error) || !write_asset(dir, req.script, error)) return {};
  for (const std::string& extra : req.extra_assets)
    if (!write_asset(dir, extra, error)) return {};
  return dir + "/" + base_name(req.script);
}

std::map<std::string, std::string> script_environment(const python_probe_request& req) {
  std::map<std::string, std::string> add = req.env;
  add["GPUSTACK_ARGS"] = req.args.dump();
  add["PYTHONUNBUFFERED"] = "1";
  // No __pycache__ in the work dir, nor next to the user's packages from our imports.
  add["PYTHONDONTWRITEBYTECODE"] = "1";
  return add;
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

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

void output_streams::pump(output_collector& col, const std::function<void(bool, std::string_view)>& raw) {
  pollfd fds[2] = {{open[0] ? fd[0] : -1, POLLIN, 0}, {open[1] ? fd[1] : -1, POLLIN, 0}};
  ::poll(fds, 2, 100);
  std::string chunk;
  for (int k = 0; k < 2; ++k) {
    if (!open[k]) continue;
    chunk.clear();
    bool still = drain(fd[k], chunk);
    col.feed(k == 0, chunk);
    if (raw) raw(k == 0, chunk);
    if (!still) {
      col.finish(k == 0);
      open[k] = false;
    }
  }
}

void output_streams::read_rest(output_collector& col, int which) {
  std::string chunk;
  drain(fd[which], chunk);
  col.feed(which == 0, chunk);
}

void output_collector::feed(bool from_stdout, std::string_view bytes) {
  (from_stdout ? out_parser_ : err_parser_).feed(bytes, events_);
  handle(from_stdout);
}

void output_collector::finish(bool from_stdout) {
  (from_stdout ? out_parser_ : err_parser_).finish(events_);
  handle(from_stdout);
}

void output_collector::close(int exit_code, int signal) {
  out_.exit_code = exit_code;
  out_.signal = signal;
  out_.log_tail = tail_.lines();
  if (out_.result || !out_.error.empty()) return;
  if (signal) out_.error = "Python died of " + signal_name(signal) + " before sending a result";
  else out_.error = "Python exited with code " + std::to_string(exit_code) + " without sending a result";
}

void output_collector::handle(bool from_stdout) {
  for (gs_line_event& e : events_) {
    if (!from_stdout || e.kind == gs_line_event::log) {  // stderr carries no protocol
      tail_.add(e.text);
      continue;
    }
    if (e.kind == gs_line_event::phase) {
      if (ctx_) ctx_->phase(e.text);
    } else if (e.kind == gs_line_event::heartbeat) {
      if (ctx_) ctx_->heartbeat();
    } else if (e.kind == gs_line_event::worker) {
      if (on_worker_) on_worker_(e.text);
      else tail_.add("@gs worker " + e.text);
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

}  // namespace gs
