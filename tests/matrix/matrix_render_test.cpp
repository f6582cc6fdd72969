// The three views of the matrix: structure, not bytes (the styling may change).
#include <gtest/gtest.h>

#include <regex>

#include "matrix/matrix_render.h"
#include "matrix_test_util.h"

namespace gs {
namespace {

using gs::testing::example_report;
using gs::testing::tiny_report;
using nlohmann::json;

compat_matrix sample() {
  compat_matrix m;
  merge_report(m, example_report("h200-probe.json"));
  json r = tiny_report("gfx1201", {{"triton", "3.6.0"}}, {{"fla.native.stages2", "hang"}, {"fla.native.stages1", "pass"}});
  r["probes"][0]["detail"] = "<script>alert(1)</script> & \"quotes\" | pipe \xC2\xB5s";
  merge_report(m, r);
  m.rows.back().note = "field note";
  return m;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(MatrixRender, Human) {
  compat_matrix m = sample();
  std::string t = render_matrix_human(m, "test.toml", false);
  EXPECT_NE(t.find("2 stacks, 24 probes, 2 reports merged"), std::string::npos) << t;
  for (const matrix_row& r : m.rows) EXPECT_NE(t.find("stack " + fingerprint_id(r.fp)), std::string::npos);
  EXPECT_NE(t.find("gfx1201  stack"), std::string::npos);
  EXPECT_NE(t.find("known bad"), std::string::npos);
  EXPECT_NE(t.find("Triton 3.6.0"), std::string::npos);
  EXPECT_NE(t.find("note: field note"), std::string::npos);
  EXPECT_EQ(t.find("\x1b["), std::string::npos);
  EXPECT_NE(render_matrix_human(m, "x", true).find("\x1b[31mhang"), std::string::npos);
  EXPECT_NE(render_matrix_human(compat_matrix{}, "x", false).find("empty"), std::string::npos);
}

TEST(MatrixRender, Markdown) {
  compat_matrix m = sample();
  std::string t = render_matrix_markdown(m, "test.toml");
  EXPECT_EQ(t.rfind("# gpustack compatibility matrix\n", 0), 0u);
  EXPECT_EQ(count(t, "\n## Stack `"), 2u);
  EXPECT_NE(t.find("| `fla.native.stages2` | **hang** | 1 |"), std::string::npos) << t;
  EXPECT_NE(t.find("\\| pipe"), std::string::npos);  // a pipe in a detail does not break the table
  // Every table row has the same number of unescaped pipes as its header.
  std::regex row("^\\| `[0-9a-f]{10}` \\|.*$");
  int rows = 0;
  std::istringstream in(t);
  for (std::string line; std::getline(in, line);)
    if (std::regex_match(line, row)) {
      ++rows;
      EXPECT_EQ(count(line, " | ") + 2, 7u) << line;
    }
  EXPECT_EQ(rows, 2);
}

TEST(MatrixRender, HtmlIsSelfContainedAsciiAndEscaped) {
  compat_matrix m = sample();
  std::string h = render_matrix_html(m, "test.toml");
  EXPECT_EQ(h.rfind("<!DOCTYPE html>", 0), 0u);
  for (unsigned char c : h) ASSERT_LT(c, 0x80);
  EXPECT_EQ(h.find("<script"), std::string::npos);  // the detail's markup is text, not markup
  EXPECT_NE(h.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(h.find("&#181;s"), std::string::npos);
  EXPECT_EQ(h.find("http://"), std::string::npos);  // nothing to fetch
  EXPECT_EQ(h.find("https://"), std::string::npos);
  // One grid row per stack, one cell per probe column in each.
  EXPECT_EQ(count(h, "<tr class=\"stack-row\""), 2u);
  EXPECT_EQ(count(h, "<td class=\"cell "), 2u * 24u);
  EXPECT_EQ(count(h, "class=\"cell s-hang\""), 1u);
  EXPECT_EQ(count(h, "class=\"cell s-fail\""), 2u);  // quant.nf4, quant.fp4 on the H200
  EXPECT_EQ(count(h, "<tr class=\"arch\">"), 2u);
  EXPECT_NE(h.find("<th class=\"family\" colspan=\"2\" title=\"fla\">fla</th>"), std::string::npos);
  EXPECT_EQ(count(h, "<col style=\"width:28px\">"), 24u);
}

}  // namespace
}  // namespace gs
