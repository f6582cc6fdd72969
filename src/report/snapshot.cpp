// Snapshot capture: turn the paths detection touched into a tar a captured sysroot replays.
// Each touched path is walked component by component so its symlinks are stored as links
// (absolute targets rewritten relative, so they stay inside the extracted tree) and its
// directories as directories; the file itself is stored with redacted contents. Listed
// directories keep their other names as empty placeholders, so a replayed listing matches.
#include "report/snapshot.h"

#include "card/card_record.h"
#include "sys/subprocess_capture.h"
#include <filesystem>
#include <cstdlib>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "core/text_scan.h"
#include "core/utc_time.h"
#include "detect/identity.h"
#include "report/tar_writer.h"

namespace gs {
namespace {

/// Errors worth replaying; ENOENT and friends just mean "not there", which absence says.
bool replayable(int e) { return e != 0 && e != ENOENT && e != ENOTDIR && e != ELOOP && e != ENAMETOOLONG; }
int rank(int e) { return replayable(e) ? 2 : e == 0 ? 1 : 0; }

/// Files that only say who the machine is, or hold credentials: never copied, whatever read them.
bool excluded(std::string_view p) {
  static constexpr std::array<std::string_view, 7> kExact{"/proc/sys/kernel/hostname", "/etc/hostname", "/etc/passwd",
                                                          "/etc/shadow", "/etc/group", "/etc/gshadow", "/etc/machine-id"};
  for (std::string_view e : kExact)
    if (p == e) return true;
  static constexpr std::array<std::string_view, 8> kParts{"/environ", "/.ssh/", "/.netrc", "/.git-credentials",
                                                          "/.aws/", "/huggingface/token", "/.docker/config.json",
                                                          "/.pypirc"};
  for (std::string_view part : kParts)
    if (p.find(part) != std::string_view::npos) return true;
  return false;
}

std::deque<std::string> split(std::string_view p) {
  std::vector<std::string_view> parts = scan::split_nonempty(p, '/');
  return std::deque<std::string>(parts.begin(), parts.end());
}

std::string parent(const std::string& p) {
  size_t s = p.rfind('/');
  return (s == std::string::npos || s == 0) ? "/" : p.substr(0, s);
}

struct entry {
  char type = '0';  ///< '0' file, '5' dir, '2' symlink
  std::string data;
  std::string link;
  tar_meta meta;
  bool captured = false;  ///< a file with its contents, not a placeholder
  std::string machine_link;  ///< the absolute target as the machine had it, when rewritten
};

/// The tree being assembled, keyed by real (symlink-free, unredacted) path.
class capture {
 public:
  capture(std::string root, size_t max_bytes) : root_(std::move(root)), max_bytes_(max_bytes) {}

  /// Store `path` and everything on the way to it; the real path when it exists.
  std::optional<std::string> materialize(const std::string& path, struct stat& st) {
    std::deque<std::string> todo = split(path);
    std::string cur = "/";
    if (::lstat(host(cur).c_str(), &st) != 0) return std::nullopt;
    for (int hops = 0; !todo.empty();) {
      std::string c = std::move(todo.front());
      todo.pop_front();
      if (c == ".") continue;
      if (c == "..") {
        cur = parent(cur);
        continue;
      }
      std::string next = cur == "/" ? "/" + c : cur + "/" + c;
      struct stat s {};
      if (::lstat(host(next).c_str(), &s) != 0) return std::nullopt;
      if (S_ISLNK(s.st_mode)) {
        if (++hops > 40) return std::nullopt;  // a loop: the kernel gives up at 40 too
        std::string target = read_link(next);
        if (target.empty()) return std::nullopt;
        add_link(next, target);
        std::deque<std::string> t = split(target);
        todo.insert(todo.begin(), t.begin(), t.end());
        if (target.front() == '/') cur = "/";
        continue;
      }
      if (!todo.empty() && !S_ISDIR(s.st_mode)) return std::nullopt;
      if (S_ISDIR(s.st_mode)) add_dir(next, s);
      cur = next;
      st = s;
    }
    return cur;
  }

  void add_dir(const std::string& real, const struct stat& s) {
    entry& e = entries_[real];
    e.type = '5';
    e.meta = {(s.st_mode & 0777) | 0700, 0, 0, 0};  // the extracting user must be able to enter it
  }

  void add_link(const std::string& real, const std::string& target) {
    if (entries_.count(real)) return;
    entry e;
    e.type = '2';
    e.link = target;
    if (!target.empty() && target.front() == '/') {
      // "/opt/rocm" -> "/opt/rocm-7.2.0" becomes "../opt/rocm-7.2.0": inside the extracted tree.
      std::string up;
      for (size_t n = split(parent(real)).size(); n > 0; --n) up += "../";
      e.link = (up.empty() ? "./" : up) + target.substr(1);
      e.machine_link = target;  // readlink() on replay answers this ([links])
    }
    entries_[real] = std::move(e);
  }

  /// Content of a regular file; false + reason when it is left out.
  bool add_file(const std::string& real, const struct stat& s, const redactor& red, std::string& why) {
    std::string data;
    int fd = ::open(host(real).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      why = "unreadable now (" + errno_name(errno) + ")";
      return false;
    }
    char buf[65536];
    bool big = false;
    for (;;) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      data.append(buf, static_cast<size_t>(n));
      if (data.size() > max_bytes_) {
        big = true;
        break;
      }
    }
    ::close(fd);
    if (big) {
      why = "larger than " + std::to_string(max_bytes_ >> 10) + " KiB";
      return false;
    }
    std::string clean = red.scrub(data);
    if (data.find('\0') != std::string::npos && clean != data) {
      why = "binary file holding identifiers or secrets";
      return false;
    }
    entry& e = entries_[real];
    e.type = '0';
    e.data = std::move(clean);
    e.captured = true;
    e.meta = {static_cast<unsigned>(s.st_mode & 0777) | 0400, 0, 0, 0};
    return true;
  }

  /// An empty stand-in that makes stat()/exists() and directory listings replay.
  void add_placeholder(const std::string& real, const struct stat& s) {
    if (entries_.count(real)) return;
    if (S_ISLNK(s.st_mode)) {
      std::string t = read_link(real);
      if (!t.empty()) add_link(real, t);
      return;
    }
    if (S_ISDIR(s.st_mode)) return add_dir(real, s);
    entry& e = entries_[real];
    e.type = '0';
    bool dev = S_ISCHR(s.st_mode) || S_ISBLK(s.st_mode);
    // Device nodes keep owner and group: /dev/kfd's "render" is what the access check reads.
    e.meta = {static_cast<unsigned>(s.st_mode & 0777), dev ? s.st_uid : 0u, dev ? s.st_gid : 0u, 0};
  }

  /// Placeholders for the names in a listed directory (at most 4096: /proc has ~500 pids).
  void add_listing(const std::string& real) {
    DIR* d = ::opendir(host(real).c_str());
    if (!d) return;
    size_t n = 0;
    while (dirent* de = ::readdir(d)) {
      std::string_view name = de->d_name;
      if (name == "." || name == ".." || ++n > 4096) continue;
      if (real == "/" && !root_.empty() && name == sysroot::kManifest) continue;
      std::string child = real == "/" ? "/" + std::string(name) : real + "/" + std::string(name);
      struct stat s {};
      if (!excluded(child) && ::lstat(host(child).c_str(), &s) == 0) add_placeholder(child, s);
    }
    ::closedir(d);
  }

  std::map<std::string, entry>& entries() { return entries_; }

 private:
  std::string host(const std::string& p) const { return root_.empty() ? p : root_ + p; }
  std::string read_link(const std::string& real) const {
    char buf[PATH_MAX];
    ssize_t n = ::readlink(host(real).c_str(), buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
  }

  std::string root_;
  size_t max_bytes_;
  std::map<std::string, entry> entries_;
};

std::string group_file(const sysroot& sys, const std::set<gid_t>& gids, const redactor& red) {
  std::string out;
  for (gid_t g : gids) {
    std::string name = red.scrub(sys.group_name(g));
    if (name != std::to_string(g)) out += name + ":x:" + std::to_string(g) + ":\n";  // members left out: user names
  }
  return out;
}

}  // namespace

touched_paths record_touched(const sysroot& sys, const std::function<void(const sysroot&)>& work) {
  touched_paths touched;
  sysroot rec = sys;
  rec.set_recorder([&touched](const std::string& path, int err) {
    bool listed = path.size() > 1 && path.back() == '/';
    std::string p = listed ? path.substr(0, path.size() - 1) : path;
    auto [it, fresh] = touched.try_emplace(p, touch{err, listed});
    if (!fresh) {
      if (rank(err) > rank(it->second.err)) it->second.err = err;
      it->second.listed |= listed;
    }
  });
  work(rec);
  return touched;
}

std::map<std::string, std::string> snapshot_env(const sysroot& sys, const machine_facts& facts) {
  static constexpr std::array<std::string_view, 15> kConsulted{
      "PATH",      "VIRTUAL_ENV",      "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "PYTHONPATH",
      "PYTHONHOME", "PYTHONNOUSERSITE", "PYTHONUSERBASE", "HOME",          "LD_LIBRARY_PATH",
      "ROCM_PATH", "ROCM_HOME",        "HIP_PATH",     "CUDA_HOME",         "CUDA_PATH"};
  std::map<std::string, std::string> env = sys.environment(), out;
  for (auto& [k, v] : env) {
    bool keep = facts.env.count(k) > 0;
    for (std::string_view c : kConsulted) keep |= k == c;
    if (keep) out[k] = v;
  }
  return out;
}

bool write_snapshot(const sysroot& sys, const touched_paths& touched, const redactor& red,
                    const std::map<std::string, std::string>& env, const snapshot_options& opts,
                    const std::string& out, snapshot_result& res, std::string& err) {
  res = {};
  std::string tmp = out + ".tmp";
  tar_gz_writer tar;
  if (!tar.open(tmp, err)) {
    size_t colon = err.rfind(": ");
    err = "cannot write " + out + (colon == std::string::npos ? std::string() : err.substr(colon));
    return false;
  }
  capture tree(sys.root(), opts.max_file_bytes);
  toml::table errors, devices, owners, skipped;
  std::set<gid_t> gids;
  for (auto& [path, t] : touched) {
    if (path.empty() || path.front() != '/' || excluded(path)) continue;
    bool is_dev = path.rfind("/dev/", 0) == 0;
    struct stat st {};
    // Walked even when detection got ENOENT: a dangling link (a venv's bin/python pointing at
    // a removed interpreter) is itself evidence, and the walk stores it.
    std::optional<std::string> real = tree.materialize(path, st);
    if (t.err == ENOENT) continue;
    if (is_dev && (!real || !S_ISDIR(st.st_mode))) {
      if (real) {
        tree.add_placeholder(*real, st);
        // Owner and mode survive extraction by any user only through the manifest: the
        // access check needs "/dev/kfd is root:render 0660" (sysroot [owners]).
        node_stat ns = sys.stat(path);
        if (ns.exists) {
          gids.insert(ns.gid);
          owners.insert_or_assign(red.scrub(path), toml::table{{"uid", static_cast<int64_t>(ns.uid)},
                                                               {"gid", static_cast<int64_t>(ns.gid)},
                                                               {"mode", static_cast<int64_t>(ns.mode & 07777)}});
        }
      }
      devices.insert_or_assign(red.scrub(path), t.err == 0 ? std::string("ok") : errno_name(t.err));
      continue;
    }
    if (replayable(t.err)) errors.insert_or_assign(red.scrub(path), errno_name(t.err));
    if (!real) continue;
    if (S_ISDIR(st.st_mode)) {
      if (t.listed && t.err == 0) tree.add_listing(*real);
    } else if (S_ISREG(st.st_mode) && t.err == 0) {
      std::string why;
      if (!tree.add_file(*real, st, red, why)) {
        skipped.insert_or_assign(red.scrub(path), why);
        res.skipped.push_back(red.scrub(path) + ": " + why);
        tree.add_placeholder(*real, st);
      }
    } else {
      tree.add_placeholder(*real, st);
    }
  }
  for (gid_t g : sys.process_groups()) gids.insert(g);

  // Manifest: what files cannot carry (docs/snapshot.md).
  toml::table man;
  std::string when = opts.created_utc.empty() ? utc_now_iso() : opts.created_utc;
  man.insert_or_assign("snapshot", toml::table{{"tool", std::string("gpustack ") + GPUSTACK_VERSION},
                                               {"created_utc", when},
                                               {"identifiers", red.include_identifiers() ? "included" : "redacted"},
                                               {"readme", "gpustack check --sysroot DIR replays this tree"}});
  man.insert_or_assign("errors", errors);
  man.insert_or_assign("devices", devices);
  man.insert_or_assign("owners", owners);
  toml::table links;
  for (auto& [real, e] : tree.entries())
    if (e.type == '2' && !e.machine_link.empty()) links.insert_or_assign(red.scrub(real), red.scrub(e.machine_link));
  man.insert_or_assign("links", links);
  toml::array groups;
  for (gid_t g : sys.process_groups())
    groups.push_back(toml::table{{"gid", static_cast<int64_t>(g)}, {"name", red.scrub(sys.group_name(g))}});
  man.insert_or_assign("process", toml::table{{"groups", groups}});
  toml::table envt;
  for (auto& [k, v] : env) envt.insert_or_assign(k, is_secret_name(k) && !v.empty() ? std::string("<redacted>") : red.scrub(v));
  man.insert_or_assign("env", envt);
  if (!skipped.empty()) man.insert_or_assign("skipped", skipped);
  std::ostringstream ms;
  ms << "# gpustack snapshot: the files `gpustack check` read on one machine, redacted.\n"
     << "# Replay: mkdir m && tar -xzf FILE.tar.gz -C m && gpustack check --sysroot m\n"
     << "# Format: docs/snapshot.md in the gpustack sources.\n\n"
     << man << "\n";

  int64_t mtime = static_cast<int64_t>(std::time(nullptr));
  std::set<std::string> names;  // redacted names already written (two users' homes may collide)
  bool ok = tar.add_file(std::string(sysroot::kManifest), ms.str(), {0644, 0, 0, mtime});
  std::string grp = group_file(sys, gids, red);
  if (ok && !grp.empty()) ok = tar.add_dir("etc", {0755, 0, 0, mtime}) && tar.add_file("etc/group", grp, {0644, 0, 0, mtime});
  names.insert("/etc");
  names.insert("/etc/group");
  for (auto& [path, text] : opts.generated) {
    std::string name = path.starts_with("/") ? path.substr(1) : path;
    if (ok && names.insert("/" + name).second) ok = tar.add_file(name, red.scrub(text), {0644, 0, 0, mtime});
  }
  for (auto& [real, e] : tree.entries()) {
    if (!ok) break;
    std::string name = red.scrub(real);
    if (!names.insert(name).second) continue;
    tar_meta m = e.meta;
    m.mtime = mtime;
    if (e.type == '5') ok = tar.add_dir(name, m);
    else if (e.type == '2') ok = tar.add_symlink(name, red.scrub(e.link), m);
    else {
      ok = tar.add_file(name, e.data, m);
      res.files += e.captured ? 1 : 0;
      res.content_bytes += e.data.size();
    }
  }
  res.entries = tar.entries();
  if (!tar.close(err) || !ok) {
    if (err.empty()) err = "cannot write " + out;
    std::remove(tmp.c_str());
    return false;
  }
  if (std::rename(tmp.c_str(), out.c_str()) != 0) {
    err = "cannot write " + out + ": " + std::strerror(errno);
    std::remove(tmp.c_str());
    return false;
  }
  struct stat st {};
  if (::stat(out.c_str(), &st) == 0) res.archive_bytes = static_cast<uint64_t>(st.st_size);
  return true;
}

bool take_snapshot(const sysroot& sys, const snapshot_options& opts, const std::string& out, snapshot_result& res,
                   std::string& err) {
  machine_facts facts;
  touched_paths touched = record_touched(sys, [&](const sysroot& s) {
    facts = detect_machine(s, opts.detect);
    detect_card_state(s, facts);  // captured: reads (and so keeps) the tree's own card record
  });
  detect_identity(sys, facts);  // unrecorded: the hostname file is never part of a snapshot
  redactor red = redactor::for_facts(facts, opts.include_identifiers, serial_style::same_shape);
  red.add_secret_values(sys.environment());
  snapshot_options with_card = opts;
  if (sys.is_live())  // what the libraries said, which no file of the tree can replay
    if (std::string rec = card_record_text(facts, opts.include_identifiers); !rec.empty())
      with_card.generated[std::string(kCardRecordPath)] = rec;
  return write_snapshot(sys, touched, red, snapshot_env(sys, facts), with_card, out, res, err);
}

std::string unpack_snapshot(const std::string& archive, std::string& error) {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/gpustack-sysroot-XXXXXX";
  if (!::mkdtemp(templ.data())) {
    error = "cannot make a directory to unpack " + archive + " into: " + std::strerror(errno);
    return "";
  }
  // tar reads gzip, zstd and plain archives alike; 120 s is far beyond a snapshot's few MB.
  std::string tar = std::filesystem::exists("/usr/bin/tar") ? "/usr/bin/tar" : "/bin/tar";  // run_captured takes a path
  captured_run r = run_captured({tar, "-xf", archive, "-C", templ, "--no-same-owner"}, 120.0, {});
  if (!r.started) r.output = tar + ": " + r.error;
  if (r.exit_code != 0) {
    std::error_code ec;
    std::filesystem::remove_all(templ, ec);
    std::string why = r.output;
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    error = archive + " is neither a directory nor a snapshot archive tar can read" + (why.empty() ? "" : " (" + why + ")");
    return "";
  }
  return templ;
}

}  // namespace gs
