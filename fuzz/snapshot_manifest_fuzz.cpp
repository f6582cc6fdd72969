// libFuzzer target for the manifest of a snapshot replayed with `check --sysroot DIR`
// (.gpustack-snapshot.toml: errors, devices, groups, env, links, owners): the input is written
// as the manifest of an empty captured tree, which is then opened and asked what `check` asks.
// Inputs outside printable ASCII are skipped for the reason kb_fuzz.cpp gives (toml++ 3.3).
// Run: scripts/fuzz.sh build-asan 20 (seeds: tests/fixtures/machines/*/.gpustack-snapshot.toml).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "sys/sysroot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (size_t i = 0; i < size; ++i)
    if ((data[i] < 0x20 && data[i] != '\n' && data[i] != '\t') || data[i] > 0x7e) return 0;
  static const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("gs-manifest-fuzz-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir / std::string(gs::sysroot::kManifest), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  gs::sysroot s = gs::sysroot::captured(dir.string());
  (void)s.open_device("/dev/kfd");
  (void)s.stat("/dev/dri/renderD128");
  for (gid_t g : s.process_groups()) (void)s.group_name(g);
  (void)s.environment();
  (void)s.readlink("/opt/rocm");
  (void)s.realpath("/opt/rocm/lib/libamdhip64.so");  // [links] may chain or loop
  return 0;
}
