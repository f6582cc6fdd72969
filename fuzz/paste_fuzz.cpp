// libFuzzer target for the pasted-text reader and the explain pipeline behind `gpustack
// explain`: normalisation, every extractor (tool outputs, package lists, env forms, prose, an
// embedded gpustack JSON report), the partial-fact rule evaluation and the error-signature
// matcher over the whole built-in knowledge base. Seeds: fuzz/seeds/paste_fuzz/ (real shapes).
// Run: scripts/fuzz.sh build-asan 20
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "explain/explain.h"
#include "explain/explain_report.h"
#include "rules/error_findings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gs::explain_result r = gs::explain_text(text, gs::builtin_knowledge_base());
  nlohmann::json rep = gs::explain_report(r, false, "2026-12-03T00:00:00Z");
  std::string human = gs::render_explain_human(rep, false, 80);
  (void)human;
  return 0;
}
