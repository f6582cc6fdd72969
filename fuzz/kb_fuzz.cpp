// libFuzzer target for the knowledge-base loader (`--rules FILE`): a rule file is loaded beside
// the built-in ones, then evaluated on a fixed machine and matched against its own text (the
// matcher runs every pattern the file declares on the file itself).
// toml++ 3.3 has undefined behaviour on some non-ASCII input (see matrix_toml_fuzz.cpp), which
// is toml++'s to fuzz: inputs with bytes outside printable ASCII and newlines are skipped here.
// Run: scripts/fuzz.sh build-asan 20 (seeds: matrix/rules/).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/facts.h"
#include "rules/knowledge_base.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (size_t i = 0; i < size; ++i)
    if ((data[i] < 0x20 && data[i] != '\n' && data[i] != '\t') || data[i] > 0x7e) return 0;
  std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<gs::kb_source> sources{{"fuzz.toml", text}};
  std::vector<gs::kb_error> errors;
  gs::knowledge_base kb = gs::knowledge_base::load(sources, errors);
  gs::machine_facts live;
  gs::gpu_info g;
  g.vendor = "amd";
  g.arch = "gfx1201";
  live.gpus.push_back(g);
  live.env["HSA_OVERRIDE_GFX_VERSION"] = "11.0.0";
  (void)kb.evaluate(live);
  (void)kb.match_error_text(text, live);
  gs::machine_facts pasted;
  pasted.coverage.partial = true;
  (void)kb.evaluate(pasted);
  (void)kb.match_error_text(text, pasted);
  return 0;
}
