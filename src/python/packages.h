// The Python distributions that matter for GPU fine-tuning, and lookups that know their aliases:
// one import module can come from several distributions (the `triton` module ships as triton,
// pytorch-triton-rocm, triton-rocm or pytorch-triton). facts.python.packages keeps the real
// distribution names (PEP 503 normalised); rules ask for the logical name through find_package.
#pragma once
#include <string_view>
#include <vector>

#include "core/facts.h"

namespace gs {

struct package_interest {
  std::string_view logical;               ///< the name rules use ("triton")
  std::vector<std::string_view> names;    ///< distributions providing it, preferred first
  bool same_module = false;               ///< the names install the same import module (conflict if >1)
  std::string_view why;                   ///< why triage cares
};

/// The documented list (packages.cpp). Detection still records every installed distribution.
const std::vector<package_interest>& packages_of_interest();

/// The installed distribution for a logical name or alias ("triton", "fla", "flash_attn"); a
/// name that is not in the table is looked up as itself (PEP 503 normalised). nullptr if absent.
const python_package* find_package(const python_info& py, std::string_view logical);
/// Every installed distribution that provides the logical name (several = a conflict to report).
std::vector<const python_package*> find_all_packages(const python_info& py, std::string_view logical);
/// Installed distributions whose normalised name starts with `prefix` ("nvidia-").
std::vector<const python_package*> find_packages_with_prefix(const python_info& py, std::string_view prefix);

}  // namespace gs
