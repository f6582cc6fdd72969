// libFuzzer target for the model registry loader (matrix/models/*.toml, `--models FILE`): load,
// then for every model that loads, shrink it and write its HF config, as train-smoke does.
// Inputs outside printable ASCII are skipped for the reason kb_fuzz.cpp gives (toml++ 3.3).
// Run: scripts/fuzz.sh build-asan 20 (seeds: matrix/models/).
#include <cstddef>
#include <cstdint>
#include <string>

#include "models/model_registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (size_t i = 0; i < size; ++i)
    if ((data[i] < 0x20 && data[i] != '\n' && data[i] != '\t') || data[i] > 0x7e) return 0;
  gs::model_registry reg = gs::load_model_registry({{"fuzz.toml", std::string(reinterpret_cast<const char*>(data), size)}});
  for (const gs::model_spec& m : reg.models) {
    std::string err;
    (void)gs::to_hf_config_json(m);
    if (auto small = gs::shrink(m, 0, 0.5, &err)) (void)gs::to_hf_config_json(*small);
    (void)gs::shrink(m, 4, 1.0, &err);
  }
  return 0;
}
