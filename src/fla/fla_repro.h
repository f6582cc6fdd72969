// `gpustack probe fla --emit-repro DIR`: a failing step of the triton or fla backend as one
// standalone Python file (the kernels, the shapes, the launch options, the check) that needs
// torch, triton (and FLA for the fla backend) but nothing of gpustack, ready to attach to an
// upstream Triton or FLA issue. `--sanitize` runs the same file under the vendor's sanitizer.
#pragma once
#include <optional>
#include <string>

#include "core/probe_result.h"

namespace gs {

class redactor;

struct fla_repro {
  std::string file_name;  ///< "repro_fla_triton_stages1.py"
  std::string text;       ///< the whole script
};

/// The reproducer of one step, from what the step recorded (backend, stage, its case: shape,
/// seed, dtype; num_warps; versions; the error). nullopt and *why when there is none: the native
/// backend (it runs gpustack's own runtime), or a step that stopped before it had a case.
/// Paths and identifiers in the quoted error go through `scrub`.
std::optional<fla_repro> fla_repro_for(const probe_result& step, const redactor& scrub, std::string* why);

}  // namespace gs
