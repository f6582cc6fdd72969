// The HTML page of `gpustack matrix show --html` in a real browser: headless Chromium renders it
// to a PNG (size and dimensions checked) and dumps the DOM it built (the grid cells must be
// there after parsing, not just in our bytes). Skips, saying why, where chromium is absent;
// scripts/install-deps.sh installs it, so CI runs it. GPUSTACK_REGEN_DOCS=1 also copies the PNG
// to docs/matrix-screenshot.png.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "matrix/matrix.h"
#include "matrix_test_util.h"

#include "support/files.h"
#include "support/run_binary.h"

namespace gs {
namespace {

namespace fs = std::filesystem;


std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    std::string cmd = std::string("command -v ") + name + " >/dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) return name;
  }
  return "";
}

uint32_t be32(const std::string& s, size_t at) {
  return (uint32_t(uint8_t(s[at])) << 24) | (uint32_t(uint8_t(s[at + 1])) << 16) | (uint32_t(uint8_t(s[at + 2])) << 8) |
         uint32_t(uint8_t(s[at + 3]));
}

TEST(MatrixScreenshot, HeadlessChromiumRendersTheGrid) {
  std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh installs Debian's chromium)";
  fs::path dir = fs::temp_directory_path() / ("gs-matrix-shot-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // A user matrix next to the shipped one: the H200 example reports, merged by the CLI.
  std::string m = (dir / "m.toml").string(), html = (dir / "matrix.html").string(), png = (dir / "shot.png").string();
  std::string ex = std::string(GPUSTACK_SOURCE_DIR) + "/reports/examples/";
  gs::testing::run_output merge =
      gs::testing::run_gpustack("matrix merge --matrix '" + m + "' '" + ex + "h200-probe.json' '" + ex + "h200-quant-probes.json'");
  ASSERT_EQ(merge.rc, 0) << merge.err;
  gs::testing::run_output show = gs::testing::run_gpustack("matrix show --html --matrix '" + m + "' -o '" + html + "'");
  ASSERT_EQ(show.rc, 0) << show.err;
  // --no-sandbox: CI runs as root, where Chromium refuses its sandbox. A private profile
  // directory keeps runs independent; `timeout` keeps a wedged browser from stalling the suite.
  std::string common = "timeout 120 " + chromium + " --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir='" +
                       (dir / "profile").string() + "' ";
  std::string shot = common + "--screenshot='" + png + "' --window-size=1600,1000 'file://" + html + "' >/dev/null 2>&1";
  ASSERT_EQ(std::system(shot.c_str()), 0) << shot;
  std::string img = gs::test::read_file(png);
  ASSERT_GT(img.size(), 20000u) << "a blank page compresses to a few KB; the grid is colourful";
  ASSERT_LT(img.size(), 20000000u);
  ASSERT_EQ(img.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  ASSERT_EQ(img.substr(12, 4), "IHDR");
  EXPECT_EQ(be32(img, 16), 1600u);
  EXPECT_EQ(be32(img, 20), 1000u);

  std::string dom_file = (dir / "dom.html").string();
  std::string dump = common + "--dump-dom 'file://" + html + "' >'" + dom_file + "' 2>/dev/null";
  ASSERT_EQ(std::system(dump.c_str()), 0);
  std::string dom = gs::test::read_file(dom_file);
  EXPECT_NE(dom.find("<table class=\"grid\" id=\"grid\">"), std::string::npos);
  EXPECT_NE(dom.find("class=\"cell s-hang\""), std::string::npos);  // the gfx1201 deadlock
  EXPECT_NE(dom.find("class=\"cell s-pass\""), std::string::npos);
  EXPECT_NE(dom.find("data-probe=\"train_smoke.qwen3.5-0.8b\""), std::string::npos);
  EXPECT_NE(dom.find("gfx1201"), std::string::npos);
  EXPECT_NE(dom.find("sm_90"), std::string::npos);

  if (const char* regen = std::getenv("GPUSTACK_REGEN_DOCS"); regen && std::string(regen) == "1")
    fs::copy_file(png, std::string(GPUSTACK_SOURCE_DIR) + "/docs/matrix-screenshot.png", fs::copy_options::overwrite_existing);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gs
