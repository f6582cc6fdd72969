// Reading the installed distributions of one site-packages directory without Python: every
// *.dist-info (METADATA, INSTALLER, direct_url.json) and *.egg-info (directory or file PKG-INFO).
#pragma once
#include <string_view>
#include <vector>

#include "core/facts.h"
#include "sys/sysroot.h"

namespace gs {

/// Add the distributions of `dir` to py.packages (key: PEP 503 name). The first directory that
/// provides a name wins, as Python's import system and importlib.metadata take the first on
/// sys.path; a second copy is an issue. Garbage METADATA is an issue and that package is
/// skipped. Returns false when the directory itself could not be listed (also an issue).
bool scan_site_packages(const sysroot& sys, std::string_view dir, python_info& py,
                        std::vector<detection_issue>& issues);

}  // namespace gs
