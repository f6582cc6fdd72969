// sysroot: live reads of "/" or replay of a captured tree plus its manifest.
#include "sys/sysroot.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

#include "core/toml_table.h"

extern char** environ;

namespace gs {
namespace {

constexpr std::array<std::pair<int, const char*>, 14> kErrnoNames{{
    {EPERM, "EPERM"}, {ENOENT, "ENOENT"}, {EIO, "EIO"}, {ENXIO, "ENXIO"}, {EACCES, "EACCES"},
    {EBUSY, "EBUSY"}, {ENODEV, "ENODEV"}, {ENOTDIR, "ENOTDIR"}, {EISDIR, "EISDIR"},
    {EINVAL, "EINVAL"}, {ENOMEM, "ENOMEM"}, {ELOOP, "ELOOP"}, {EROFS, "EROFS"}, {EAGAIN, "EAGAIN"}}};

/// The recorder hears a listing as the directory with a trailing '/' (see sysroot.h).
std::string listed_path(std::string_view path) {
  std::string p(path);
  if (p.empty() || p.back() != '/') p += '/';
  return p;
}

}  // namespace

std::string errno_name(int err) {
  for (auto& [v, n] : kErrnoNames)
    if (v == err) return n;
  return "errno " + std::to_string(err);
}

int errno_from_name(std::string_view name) {
  for (auto& [v, n] : kErrnoNames)
    if (name == n) return v;
  return 0;
}

sysroot sysroot::live() { return sysroot{}; }

sysroot sysroot::captured(std::string dir) {
  sysroot s;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  s.root_ = dir.empty() ? "." : dir;
  s.groups_.clear();
  s.env_ = std::map<std::string, std::string>{};
  // The manifest is optional; a broken one is reported by `check` through load_manifest_issue().
  std::string manifest = s.root_ + "/" + std::string(kManifest);
  if (!std::filesystem::exists(manifest)) return s;
  toml::table t;
  try {
    t = toml::parse_file(manifest);  // Debian's toml++ is built with exceptions on
  } catch (const toml::parse_error&) {
    return s;
  }
  if (auto* errs = t["errors"].as_table())
    for (auto& [k, v] : *errs)
      if (auto name = v.value<std::string>()) s.errors_[std::string(k.str())] = errno_from_name(*name);
  if (auto* devs = t["devices"].as_table())
    for (auto& [k, v] : *devs)
      if (auto name = v.value<std::string>())
        s.devices_[std::string(k.str())] = (*name == "ok") ? 0 : errno_from_name(*name);
  if (auto* groups = t["process"]["groups"].as_array())
    for (auto& g : *groups) {
      auto* gt = g.as_table();
      if (!gt) continue;
      s.groups_.emplace_back(static_cast<gid_t>(integer_value((*gt)["gid"].node()).value_or(0)),
                             (*gt)["name"].value_or<std::string>(""));
    }
  if (auto* env = t["env"].as_table())
    for (auto& [k, v] : *env)
      if (auto val = v.value<std::string>()) (*s.env_)[std::string(k.str())] = *val;
  // [links] "/opt/rocm" = "/opt/rocm-7.2.0": what readlink() answers for that path.
  if (auto* links = t["links"].as_table())
    for (auto& [k, v] : *links)
      if (auto target = v.value<std::string>()) s.links_[std::string(k.str())] = *target;
  // [owners] "/dev/kfd" = { uid = 0, gid = 992, mode = 0o660 }
  if (auto* owners = t["owners"].as_table())
    for (auto& [k, v] : *owners)
      if (auto* o = v.as_table())
        s.owners_[std::string(k.str())] = {static_cast<uid_t>(integer_value((*o)["uid"].node()).value_or(0)),
                                           static_cast<gid_t>(integer_value((*o)["gid"].node()).value_or(0)),
                                           static_cast<mode_t>(integer_value((*o)["mode"].node()).value_or(0) & 07777)};
  return s;
}

std::string sysroot::host_path(std::string_view path) const {
  if (root_.empty()) return std::string(path);
  std::string p(path);
  if (p.empty() || p[0] != '/') p = "/" + p;
  return root_ + p;
}

int sysroot::injected(std::string_view path) const {
  auto it = errors_.find(path);
  return it == errors_.end() ? 0 : it->second;
}

void sysroot::note(std::string_view path, int err) const {
  if (recorder_) recorder_(std::string(path), err);
}

int sysroot::open_read(std::string_view path, int* err) const {
  int fd = -1;
  if (int e = injected(path))
    *err = e;
  else if ((fd = ::open(host_path(path).c_str(), O_RDONLY | O_CLOEXEC)) < 0)
    *err = errno;
  if (fd < 0) note(path, *err);
  return fd;
}

read_result sysroot::read(std::string_view path, size_t max_bytes) const {
  read_result r;
  int fd = open_read(path, &r.err);
  if (fd < 0) return r;
  std::string out;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      r.err = errno;
      break;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(std::min<size_t>(n, max_bytes - out.size())));
    if (out.size() >= max_bytes) break;
  }
  ::close(fd);
  if (r.err == 0) r.text = std::move(out);
  note(path, r.err);
  return r;
}

read_result sysroot::read_at(std::string_view path, uint64_t offset, size_t len) const {
  read_result r;
  int fd = open_read(path, &r.err);
  if (fd < 0) return r;
  std::string out(len, '\0');
  size_t got = 0;
  while (got < len) {
    ssize_t n = ::pread(fd, out.data() + got, len - got, static_cast<off_t>(offset + got));
    if (n < 0) {
      if (errno == EINTR) continue;
      r.err = errno;
      break;
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  out.resize(got);
  if (r.err == 0) r.text = std::move(out);
  note(path, r.err);
  return r;
}

std::optional<std::string> sysroot::read_text(std::string_view path) const {
  read_result r = read(path);
  return r.text;
}

std::vector<std::string> sysroot::list(std::string_view path, int* err) const {
  std::vector<std::string> out;
  if (err) *err = 0;
  if (int e = injected(path)) {
    if (err) *err = e;
    note(listed_path(path), e);
    return out;
  }
  DIR* d = ::opendir(host_path(path).c_str());
  if (!d) {
    int e = errno;
    if (err) *err = e;
    note(listed_path(path), e);
    return out;
  }
  note(listed_path(path), 0);  // a snapshot keeps the names of a listed directory
  while (dirent* ent = ::readdir(d)) {
    std::string_view n = ent->d_name;
    if (n == "." || n == "..") continue;
    if (!root_.empty() && (path == "/" || path.empty()) && n == kManifest) continue;
    out.emplace_back(n);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

node_stat sysroot::stat(std::string_view path) const {
  node_stat s;
  if (injected(path) == ENOENT) {
    note(path, ENOENT);
    return s;
  }
  struct stat st {};
  if (::stat(host_path(path).c_str(), &st) != 0) {
    note(path, errno);
    return s;
  }
  note(path, 0);  // existence checks must replay too
  s.exists = true;
  s.is_dir = S_ISDIR(st.st_mode);
  s.mode = st.st_mode;
  s.uid = st.st_uid;
  s.gid = st.st_gid;
  if (auto it = owners_.find(path); it != owners_.end()) {
    s.uid = it->second.uid;
    s.gid = it->second.gid;
    s.mode = (s.mode & S_IFMT) | it->second.perm;
  }
  return s;
}

std::optional<std::string> sysroot::readlink(std::string_view path) const {
  if (auto it = links_.find(path); it != links_.end()) {
    note(path, 0);
    return it->second;
  }
  char buf[PATH_MAX];
  ssize_t n = ::readlink(host_path(path).c_str(), buf, sizeof buf - 1);
  note(path, (n < 0 && errno == ENOENT) ? ENOENT : 0);  // EINVAL (not a link) is no read error
  if (n < 0) return std::nullopt;
  return std::string(buf, static_cast<size_t>(n));
}

std::string sysroot::realpath(std::string_view path) const {
  note(path, 0);  // the snapshot walks the link chain itself
  std::error_code ec;
  auto canon = std::filesystem::weakly_canonical(host_path(path), ec);
  if (ec) return std::string(path);
  std::string s = canon.string();
  if (root_.empty()) return s;
  auto root_canon = std::filesystem::weakly_canonical(root_, ec).string();
  if (s.rfind(root_canon, 0) == 0) {
    std::string rest = s.substr(root_canon.size());
    return rest.empty() ? "/" : rest;
  }
  return std::string(path);  // escaped the tree through an absolute link: keep what was asked
}

int sysroot::open_device(std::string_view path) const {
  if (!root_.empty()) {
    auto it = devices_.find(path);
    int e = (it == devices_.end()) ? (exists(path) ? 0 : ENOENT) : it->second;
    note(path, e);
    return e;
  }
  if (int e = injected(path)) return e;
  int fd = ::open(std::string(path).c_str(), O_RDWR | O_CLOEXEC);
  int e = fd < 0 ? errno : 0;
  if (fd >= 0) ::close(fd);
  note(path, e);
  return e;
}

std::vector<gid_t> sysroot::process_groups() const {
  std::vector<gid_t> out;
  if (!root_.empty() || !groups_.empty()) {
    for (auto& [gid, name] : groups_) out.push_back(gid);
    return out;
  }
  int n = ::getgroups(0, nullptr);
  if (n > 0) {
    out.resize(static_cast<size_t>(n));
    n = ::getgroups(n, out.data());
    out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  }
  gid_t primary = ::getegid();
  if (std::find(out.begin(), out.end(), primary) == out.end()) out.push_back(primary);
  return out;
}

std::string sysroot::group_name(gid_t gid) const {
  for (auto& [g, name] : groups_)
    if (g == gid && !name.empty()) return name;
  if (!root_.empty()) {
    // A captured tree carries etc/group when the snapshot took it.
    if (auto text = read_text("/etc/group")) {
      size_t pos = 0;
      while (pos < text->size()) {
        size_t end = text->find('\n', pos);
        std::string line = text->substr(pos, end == std::string::npos ? std::string::npos : end - pos);
        pos = end == std::string::npos ? text->size() : end + 1;
        size_t c1 = line.find(':'), c2 = line.find(':', c1 + 1), c3 = line.find(':', c2 + 1);
        if (c1 == std::string::npos || c2 == std::string::npos || c3 == std::string::npos) continue;
        if (line.substr(c2 + 1, c3 - c2 - 1) == std::to_string(gid)) return line.substr(0, c1);
      }
    }
    return std::to_string(gid);
  }
  std::vector<char> buf(16384);
  group grp{};
  group* res = nullptr;
  if (::getgrgid_r(gid, &grp, buf.data(), buf.size(), &res) == 0 && res) return res->gr_name;
  return std::to_string(gid);
}

std::map<std::string, std::string> sysroot::environment() const {
  if (env_) return *env_;
  std::map<std::string, std::string> out;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv = *e;
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    out.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
  }
  return out;
}

}  // namespace gs
