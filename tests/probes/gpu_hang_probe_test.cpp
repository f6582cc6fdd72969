// selftest.gpu_hang through the built binary on the cpu backend: the spin kernel's CPU row waits
// forever at 0 % CPU, the watchdog classifies it `hang` (in `launch` here: cpu launches are
// synchronous; `sync` on a GPU), exits 3, and the probe
// named after it still runs and passes (the device is checked usable, not written off).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/files.h"
#include "support/run_binary.h"

namespace gs {
namespace {

namespace fs = std::filesystem;

TEST(GpuHangSelftest, HangsInSyncAndTheNextProbeStillRuns) {
  fs::path dir = fs::temp_directory_path() / ("gs-gpu-hang-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  testing::run_output r = testing::run_gpustack(
      "probe selftest.gpu_hang tensor.vector_add --device cpu --timeout 2 --json -o '" + (dir / "r.json").string() + "'",
      testing::run_options{.dir = dir, .env = "GPUSTACK_CACHE_DIR='" + (dir / "jit").string() + "'"});
  EXPECT_EQ(r.rc, 3) << r.err;
  EXPECT_LT(r.seconds, 15.0);

  std::string text = gs::test::read_file(dir / "r.json");
  nlohmann::json report = nlohmann::json::parse(text, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << text;
  bool saw_hang = false, saw_next = false;
  for (const auto& p : report["probes"]) {
    if (p["id"] == "selftest.gpu_hang") {
      EXPECT_EQ(p["status"], "hang");
      // The cpu backend runs a launch to completion inside launch() (no queue), so the wait is
      // seen there; on a GPU the launch returns at once and the wait is in phase sync.
      EXPECT_EQ(p["phase"], "launch");
      saw_hang = true;
    }
    if (p["id"] == "tensor.vector_add") {
      EXPECT_EQ(p["status"], "pass") << p.dump();
      saw_next = true;
    }
  }
  EXPECT_TRUE(saw_hang);
  EXPECT_TRUE(saw_next);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gs
