// Wire format of the watchdog pipe (see pipe_protocol.h).
#include "watch/pipe_protocol.h"
#include "sys/fd_io.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>

namespace gs {

void pipe_reporter::send(std::string_view bytes) {
  // Called with mu_ held. A failed write (parent gone: EPIPE) is dropped, because the child has
  // nobody left to tell.
  (void)write_all(fd_, bytes);
}

void pipe_reporter::phase(std::string_view name) {
  std::string line = "phase ";
  for (char c : name.substr(0, message_reader::kMaxPhase))
    line += (c > ' ' && c < 127) ? c : '_';
  line += '\n';
  std::lock_guard<std::mutex> lock(mu_);
  send(line);
}

void pipe_reporter::heartbeat() {
  std::lock_guard<std::mutex> lock(mu_);
  auto now = std::chrono::steady_clock::now();
  if (now - last_beat_ < std::chrono::milliseconds(100)) return;
  last_beat_ = now;
  send("beat\n");
}

void pipe_reporter::result(std::string_view payload) {
  std::lock_guard<std::mutex> lock(mu_);
  send("result " + std::to_string(payload.size()) + "\n");
  send(payload);
}

void message_reader::take_line(std::string_view line, std::vector<child_message>& out) {
  if (line == "beat") {
    out.push_back({child_message::beat, {}});
    return;
  }
  if (line.starts_with("phase ")) {
    std::string_view name = line.substr(6);
    bool ok = !name.empty() && name.size() <= kMaxPhase;
    for (char c : name) ok = ok && c > ' ' && c < 127;
    if (ok) {
      out.push_back({child_message::phase, std::string(name)});
      return;
    }
  }
  if (line.starts_with("result ")) {
    std::string_view num = line.substr(7);
    size_t n = 0;
    auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
    if (ec == std::errc() && p == num.data() + num.size() && n <= kMaxPayload) {
      in_payload_ = true;
      payload_left_ = n;
      payload_.clear();
      if (n == 0) {
        in_payload_ = false;
        out.push_back({child_message::result, {}});
      }
      return;
    }
  }
  ++garbage_;
}

void message_reader::feed(std::string_view bytes, std::vector<child_message>& out) {
  while (!bytes.empty()) {
    if (in_payload_) {
      size_t take = std::min(payload_left_, bytes.size());
      payload_.append(bytes.substr(0, take));
      bytes.remove_prefix(take);
      payload_left_ -= take;
      if (payload_left_ == 0) {
        in_payload_ = false;
        out.push_back({child_message::result, std::move(payload_)});
        payload_.clear();
      }
      continue;
    }
    size_t nl = bytes.find('\n');
    if (skipping_line_) {
      if (nl == std::string_view::npos) return;
      skipping_line_ = false;
      bytes.remove_prefix(nl + 1);
      continue;
    }
    if (nl == std::string_view::npos) {
      buf_.append(bytes);
      if (buf_.size() > kMaxLine) {
        ++garbage_;
        buf_.clear();
        skipping_line_ = true;
      }
      return;
    }
    buf_.append(bytes.substr(0, nl));
    bytes.remove_prefix(nl + 1);
    std::string line = std::move(buf_);
    buf_.clear();
    if (line.size() > kMaxLine) {
      ++garbage_;
      continue;
    }
    take_line(line, out);
  }
}

}  // namespace gs
