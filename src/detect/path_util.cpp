// Lexical path operations and symlink resolution through a sysroot.
#include "detect/path_util.h"

#include <deque>

#include "core/text_scan.h"

namespace gs {
namespace {

std::vector<std::string> components(std::string_view p) {
  std::vector<std::string_view> parts = scan::split_nonempty(p, '/');
  return std::vector<std::string>(parts.begin(), parts.end());
}

}  // namespace

std::string path_join(std::string_view a, std::string_view b) {
  std::string out(a);
  while (!out.empty() && out.back() == '/') out.pop_back();
  while (!b.empty() && b.front() == '/') b.remove_prefix(1);
  if (b.empty()) return out.empty() ? "/" : out;
  out += '/';
  out += b;
  return out;
}

std::string path_dirname(std::string_view p) {
  while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
  size_t slash = p.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(p.substr(0, slash));
}

std::string path_basename(std::string_view p) {
  while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);
  size_t slash = p.rfind('/');
  return std::string(slash == std::string_view::npos ? p : p.substr(slash + 1));
}

std::string path_normalize(std::string_view p) {
  bool absolute = !p.empty() && p.front() == '/';
  std::vector<std::string> out;
  for (std::string& c : components(p)) {
    if (c == ".") continue;
    if (c == "..") {
      if (!out.empty() && out.back() != "..") out.pop_back();
      else if (!absolute) out.push_back(c);
      continue;
    }
    out.push_back(std::move(c));
  }
  std::string s = absolute ? "/" : "";
  for (size_t i = 0; i < out.size(); ++i) {
    if (i) s += '/';
    s += out[i];
  }
  return s.empty() ? "." : s;
}

std::string resolve_path(const sysroot& sys, std::string_view p) {
  std::deque<std::string> todo;
  for (std::string& c : components(p)) todo.push_back(std::move(c));
  std::vector<std::string> done;  // resolved components from the root
  auto joined = [&done] {
    std::string s;
    for (const std::string& c : done) s += "/" + c;
    return s.empty() ? std::string("/") : s;
  };
  int links = 0;
  while (!todo.empty()) {
    std::string c = std::move(todo.front());
    todo.pop_front();
    if (c == ".") continue;
    if (c == "..") {
      if (!done.empty()) done.pop_back();
      continue;
    }
    done.push_back(c);
    auto target = sys.readlink(joined());
    if (!target) continue;
    if (++links > 40) return path_normalize(p);  // a loop (ELOOP): give back what was asked
    done.pop_back();
    if (!target->empty() && target->front() == '/') done.clear();
    std::vector<std::string> t = components(*target);
    todo.insert(todo.begin(), t.begin(), t.end());
  }
  return joined();
}

node_stat stat_resolved(const sysroot& sys, std::string_view p) { return sys.stat(resolve_path(sys, p)); }

std::vector<std::string> split_path_list(std::string_view list) {
  std::vector<std::string_view> parts = scan::split_nonempty(list, ':');
  return std::vector<std::string>(parts.begin(), parts.end());
}

bool path_is_under(std::string_view p, std::string_view dir) {
  if (dir == "/") return !p.empty() && p.front() == '/';
  if (p.size() < dir.size() || p.substr(0, dir.size()) != dir) return false;
  return p.size() == dir.size() || p[dir.size()] == '/';
}

}  // namespace gs
