// libFuzzer target for `gpustack check --container`: kind detection, the four spec readers
// (Dockerfile, compose YAML, run lines, Kubernetes YAML) and the facts and rules of each container
// they read. Seeds: fuzz/seeds/container_spec_fuzz/ (the real specs of tests/fixtures/container).
// Run: scripts/fuzz.sh build-asan 20
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "container/container_facts.h"
#include "container/container_spec.h"
#include "rules/error_findings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  gs::machine_facts host;
  std::string detected = gs::container_spec_kind("spec", text);
  for (const char* kind : {"dockerfile", "compose", "run", "kubernetes"}) {
    if (detected != kind && size > 4096) continue;  // long inputs: only the reader the content picks
    gs::container_spec spec = gs::read_container_spec(text, kind);
    for (const gs::container_info& c : spec.containers) (void)gs::container_findings(host, c, gs::builtin_knowledge_base());
  }
  return 0;
}
