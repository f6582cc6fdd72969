// What `gpustack probe fla` does after its steps for the ones that failed: --emit-repro DIR
// writes each failing triton/fla step as a standalone script (fla_repro.h), --sanitize runs it
// under the vendor's memory checker (fla_sanitize.h) and attaches the findings to the step.
#pragma once
#include <string>
#include <vector>

#include "core/probe_result.h"

namespace gs {

class redactor;

struct fla_follow_up_options {
  std::string repro_dir;          ///< --emit-repro DIR ("" = none)
  bool sanitize = false;          ///< --sanitize
  std::string python;             ///< the interpreter the steps ran
  double sanitize_timeout_s = 300;
};

/// For every failed step of the triton or fla backend: the reproducer (data["repro"]), the
/// sanitizer's findings (data["sanitizer"]). Returns the lines to show the user, including the
/// hint to use --sanitize when a memory fault could be located and it was not asked for.
std::vector<std::string> follow_up_fla_failures(std::vector<probe_result>& results, const fla_follow_up_options& o,
                                                const redactor& scrub);

}  // namespace gs
