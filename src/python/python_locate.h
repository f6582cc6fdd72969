// Which Python environment `check` inspects, found from the filesystem only (running Python
// would cost ~50 ms at best and hang at worst on a broken sitecustomize). Order: --python,
// --venv, VIRTUAL_ENV, CONDA_PREFIX, ./.venv (live machine or an explicit cwd only: under
// --sysroot the process cwd means nothing), python3 on PATH (through pyenv's shims when the
// first one is a shim).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/facts.h"
#include "detect/detect.h"
#include "sys/sysroot.h"

namespace gs {

struct python_location {
  bool found = false;
  std::string prefix;       ///< environment root, resolved ("/home/u/qlora/.venv", "/usr")
  std::string interpreter;  ///< as given or found ("/home/u/qlora/.venv/bin/python3")
  std::string how_found;    ///< "--python", "--venv", "VIRTUAL_ENV", "CONDA_PREFIX", "./.venv", "PATH", "pyenv"
  std::string kind;         ///< "venv" (has pyvenv.cfg), "conda" (has conda-meta/), "system"
};

/// The environment an interpreter belongs to: a venv or conda env when its bin/'s parent has
/// pyvenv.cfg or conda-meta/ (checked before following the link, since a venv's python is a
/// link to the base interpreter), else the prefix of the resolved file (/usr/bin/python3.12 -> /usr).
python_location location_for_interpreter(const sysroot& sys, std::string_view path, std::string_view how,
                                         std::vector<detection_issue>& issues);
/// An environment directory (--venv, VIRTUAL_ENV, CONDA_PREFIX, ./.venv).
python_location location_for_env_dir(const sysroot& sys, std::string_view dir, std::string_view how,
                                     std::vector<detection_issue>& issues);
/// Apply the search order. An explicit --python/--venv that fails stops the search (inspecting
/// another Python than the one asked for would mislead); a stale VIRTUAL_ENV does not.
python_location locate_python(const sysroot& sys, const detect_options& opts, std::vector<detection_issue>& issues);

/// "python3.12" / "python3.13t" -> "3.12" / "3.13"; "" when the name is not python3.X.
std::string python_xy_from_name(std::string_view name);

}  // namespace gs
