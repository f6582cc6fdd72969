// Golden vectors a Python step sends back (py.bnb.int8, py.bnb.nf4): the user's own
// bitsandbytes outputs in the GUIDE's golden-vector format. They are compared here with
// gpustack's reference on the same inputs, and written to --set vectors_dir=DIR so
// `gpustack selftest --vectors` can re-check them later; the report keeps only the verdict.
#pragma once
#include "core/probe_result.h"
#include "probes/probe.h"

namespace gs {

/// Takes r.data["golden"] out of the result, compares it, records data.reference_check, and
/// turns a pass into fail when the reference disagrees.
void handle_golden_vectors(const probe_context& ctx, probe_result& r);

}  // namespace gs
