// libFuzzer target for the compatibility-matrix loader (parse_matrix) and what runs on a loaded
// matrix: serialise, re-parse (a written matrix must read back), render, locate a stack.
// parse_matrix refuses anything but printable ASCII before toml++ sees it: toml++ 3.3 reaches
// undefined behaviour on some non-ASCII input (U+00A1 in its whitespace check) and asserts on
// control bytes in keys, so validating UTF-8 alone would not be enough.
// Run: scripts/fuzz.sh build-asan 20 (seeds in fuzz/seeds/matrix_toml_fuzz/).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "matrix/matrix.h"
#include "matrix/matrix_render.h"
#include "matrix/stack_position.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gs::compat_matrix m;
  std::vector<gs::matrix_error> errors;
  if (!gs::parse_matrix("fuzz.toml", text, m, errors)) return 0;
  std::string out = gs::serialize_matrix(m, "fuzz");
  gs::compat_matrix back;
  std::vector<gs::matrix_error> errors2;
  if (!gs::parse_matrix("fuzz2.toml", out, back, errors2)) std::abort();  // we wrote something we cannot read
  if (gs::serialize_matrix(back, "fuzz") != out) std::abort();            // and the format is stable
  (void)gs::render_matrix_html(m, "fuzz");
  (void)gs::render_matrix_markdown(m, "fuzz");
  (void)gs::render_matrix_human(m, "fuzz", true);
  gs::fingerprint live;
  if (!m.rows.empty()) live = m.rows.front().fp;
  gs::stack_position p = gs::locate_stack(m, live);
  (void)gs::position_line(gs::position_json(p, live));
  return 0;
}
