// Path helpers for detectors that walk a machine through a sysroot: joining, splitting, and
// resolving symlinks inside the machine's namespace. sysroot::realpath cannot follow an absolute
// link inside a captured tree (/opt/rocm -> /etc/alternatives/rocm -> /opt/rocm-7.2.0 would
// escape to the host), so resolution here walks component by component with sysroot::readlink.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "sys/sysroot.h"

namespace gs {

/// "a" + "b" -> "a/b" with exactly one slash; an absolute `b` is appended, not substituted.
std::string path_join(std::string_view a, std::string_view b);
/// Parent directory: "/a/b" -> "/a", "/a" -> "/", "a" -> ".".
std::string path_dirname(std::string_view p);
/// Last component: "/a/b/" -> "b".
std::string path_basename(std::string_view p);
/// Collapse "//", "." and ".." lexically (no symlinks); always absolute when `p` is.
std::string path_normalize(std::string_view p);
/// Follow every symlink in `p` (at most 40, like the kernel) inside the machine's namespace; an
/// absolute link target is taken relative to the machine root. Missing components stay as they
/// are, so the result is meaningful for paths that do not exist.
std::string resolve_path(const sysroot& sys, std::string_view p);
/// sysroot::stat of the resolved path: a captured tree's absolute links stay inside the tree.
node_stat stat_resolved(const sysroot& sys, std::string_view p);
/// Split a colon-separated list (PATH, LD_LIBRARY_PATH), dropping empty entries.
std::vector<std::string> split_path_list(std::string_view list);
/// True when `p` is `dir` or below it (both normalised, absolute).
bool path_is_under(std::string_view p, std::string_view dir);

}  // namespace gs
