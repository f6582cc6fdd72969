// libFuzzer target for what reads a saved report (`report show`, `report diff`, `matrix merge`):
// parse_report_text (JSON, or the ```json block of a Markdown report), then the diff against
// itself rendered both ways, the matrix fingerprint and a merge into an empty matrix.
// Run: scripts/fuzz.sh build-asan 20 (seeds: reports/examples/).
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "matrix/matrix.h"
#include "report/report_diff.h"
#include "report/report_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::json report;
  std::string error;
  if (!gs::parse_report_text(text, "fuzz.json", report, error)) return 0;
  gs::report_diff d = gs::diff_reports(report, report);
  (void)gs::render_diff_human(d, false);
  (void)gs::render_diff_markdown(d);
  (void)gs::diff_json(d);
  (void)gs::fingerprint_id(gs::fingerprint_of(report));
  gs::compat_matrix m;
  (void)gs::merge_report(m, report);
  (void)gs::serialize_matrix(m);
  return 0;
}
