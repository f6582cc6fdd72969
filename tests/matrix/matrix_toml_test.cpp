// The matrix file: round trip, ASCII escapes, errors with positions, corrupt files left alone,
// atomic writes, the recording entry point, and the shipped matrix/compat.toml.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "matrix/matrix.h"
#include "matrix/matrix_record.h"
#include "matrix_test_util.h"

#include "support/files.h"

namespace gs {
namespace {

namespace fs = std::filesystem;
using gs::testing::example_report;
using gs::testing::tiny_report;
using nlohmann::json;


class MatrixFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gs-matrix-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

bool same(const compat_matrix& a, const compat_matrix& b) {
  if (a.reports != b.reports || a.rows.size() != b.rows.size()) return false;
  for (const matrix_row& r : a.rows) {
    const matrix_row* o = const_cast<compat_matrix&>(b).find(r.fp);
    if (!o || o->note != r.note || o->cells.size() != r.cells.size()) return false;
    for (size_t i = 0; i < r.cells.size(); ++i) {
      const matrix_cell &x = r.cells[i], &y = o->cells[i];
      if (x.probe != y.probe || x.status != y.status || x.date != y.date || x.runs != y.runs || x.detail != y.detail) return false;
    }
  }
  return true;
}

TEST(MatrixToml, RoundTripOfRealReports) {
  compat_matrix m;
  merge_report(m, example_report("h200-probe.json"));
  merge_report(m, tiny_report("gfx1201", {{"triton", "3.6.0"}}, {{"fla.native.stages2", "hang"}}));
  m.rows[0].note = "a \"quoted\" note\twith a tab\\ and a newline\n";
  std::string text = serialize_matrix(m, "line one\nline two");
  EXPECT_EQ(text.rfind("# line one\n# line two\nschema = 1\n", 0), 0u);
  compat_matrix back;
  std::vector<matrix_error> errors;
  ASSERT_TRUE(parse_matrix("t.toml", text, back, errors)) << (errors.empty() ? "" : errors[0].to_string());
  EXPECT_TRUE(same(m, back));
  EXPECT_EQ(serialize_matrix(back, "line one\nline two"), text);  // stable: a no-op merge changes no byte
}

TEST(MatrixToml, NonAsciiIsEscapedAndSurvives) {
  compat_matrix m;
  merge_report(m, tiny_report("sm_90", json::object(), {{"p", "pass"}}));
  m.rows[0].cells[0].detail = "46.4 \xC2\xB5s, 3710 GB/s \xE2\x86\x92 ok \xF0\x9F\x98\x80 bad:\xFF";
  std::string text = serialize_matrix(m);
  for (unsigned char c : text) ASSERT_LT(c, 0x80) << "the file must be ASCII";
  EXPECT_NE(text.find("\\u00B5"), std::string::npos);
  EXPECT_NE(text.find("\\U0001F600"), std::string::npos);
  compat_matrix back;
  std::vector<matrix_error> errors;
  ASSERT_TRUE(parse_matrix("t.toml", text, back, errors));
  EXPECT_EQ(back.rows[0].cells[0].detail, "46.4 \xC2\xB5s, 3710 GB/s \xE2\x86\x92 ok \xF0\x9F\x98\x80 bad:\xEF\xBF\xBD");
}

TEST(MatrixToml, ErrorsCitePositions) {
  struct c {
    const char* text;
    int line;
    const char* says;
  } cases[] = {
      {"schema = 1\n[[stack]]\nnote = \"x\"\n", 2, "fingerprint"},
      {"schema = 2\n", 1, "schema = 1"},
      {"schema = 1\nbogus = 3\n", 2, "unknown top-level key"},
      {"schema = 1\n[[stack]]\n[stack.fingerprint]\narch = \"x\"\n[[stack.cell]]\nprobe = \"p\"\nstatus = \"sideways\"\n", 7,
       "not one of"},
      {"schema = 1\n[[stack]]\n[stack.fingerprint]\narch = 3\n", 4, "must be a string"},
      {"schema = 1\n[[stack]]\n[stack.fingerprint]\narch = \"x\"\n[[stack.cell]]\nprobe = \"p\"\nstatus = \"pass\"\nruns = -1\n", 8,
       "runs"},
      {"schema = 1\nreports = [\n", 2, "end-of-file"},  // toml++'s own words, at the open array
      {"schema = 1\nnote = \"caf\xC3\xA9\"\n", 2, "printable ASCII"},
      {"schema = 1\n\x01\n", 2, "printable ASCII"},
  };
  for (const c& k : cases) {
    compat_matrix m;
    std::vector<matrix_error> errors;
    EXPECT_FALSE(parse_matrix("m.toml", k.text, m, errors)) << k.text;
    ASSERT_FALSE(errors.empty()) << k.text;
    EXPECT_EQ(errors[0].line, k.line) << k.text << " -> " << errors[0].to_string();
    EXPECT_NE(errors[0].to_string().find(k.says), std::string::npos) << errors[0].to_string();
    EXPECT_EQ(errors[0].to_string().rfind("m.toml:", 0), 0u);
  }
}

TEST(MatrixToml, OmittedComponentsReadAsAny) {
  compat_matrix m;
  std::vector<matrix_error> errors;
  ASSERT_TRUE(parse_matrix("m.toml", "schema = 1\n[[stack]]\n[stack.fingerprint]\narch = \"gfx1201\"\n", m, errors));
  EXPECT_EQ(m.rows[0].fp.at("arch"), "gfx1201");
  EXPECT_EQ(m.rows[0].fp.at("triton"), "*");
}

TEST_F(MatrixFile, AbsentCorruptAndAtomicWrite) {
  compat_matrix m;
  std::string msg;
  EXPECT_EQ(load_matrix_file((dir_ / "none.toml").string(), m, msg), load_status::absent);
  fs::path p = dir_ / "deep" / "er" / "matrix.toml";
  merge_report(m, tiny_report("sm_90", json::object(), {{"p", "pass"}}));
  ASSERT_TRUE(save_matrix_file(p.string(), m, msg)) << msg;
  for (const auto& e : fs::directory_iterator(p.parent_path())) EXPECT_EQ(e.path().filename(), "matrix.toml");  // no tmp left
  compat_matrix back;
  EXPECT_EQ(load_matrix_file(p.string(), back, msg), load_status::ok);
  EXPECT_EQ(back.rows.size(), 1u);
  std::ofstream(p) << "schema = 1\n[[stack\n";
  EXPECT_EQ(load_matrix_file(p.string(), back, msg), load_status::error);
  EXPECT_NE(msg.find(p.string() + ":2:"), std::string::npos) << msg;
}

TEST_F(MatrixFile, RecordingAddsAndDedupes) {
  matrix_options o;
  o.path = (dir_ / "m.toml").string();
  json r = example_report("h200-quant-probes.json");
  ASSERT_TRUE(record_report_in_matrix(r, o));
  ASSERT_TRUE(record_report_in_matrix(r, o));  // the same report again: nothing changes
  compat_matrix m;
  std::string msg;
  ASSERT_EQ(load_matrix_file(o.path, m, msg), load_status::ok) << msg;
  ASSERT_EQ(m.rows.size(), 1u);
  EXPECT_EQ(m.rows[0].cell("quant.int8")->runs, 1);
  EXPECT_EQ(gs::test::read_file(o.path).rfind("# gpustack compatibility matrix", 0), 0u);
  o.disabled = true;
  fs::path other = dir_ / "other.toml";
  o.path = other.string();
  EXPECT_TRUE(record_report_in_matrix(r, o));
  EXPECT_FALSE(fs::exists(other));  // --no-matrix writes nothing
}

TEST_F(MatrixFile, CorruptMatrixIsNeverOverwritten) {
  matrix_options o;
  o.path = (dir_ / "m.toml").string();
  const std::string corrupt = "schema = 1\n[[stack]]\nthis is not toml\n";
  std::ofstream(o.path) << corrupt;
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(record_report_in_matrix(example_report("h200-quant-probes.json"), o));
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("left as it is"), std::string::npos) << err;
  EXPECT_NE(err.find("m.toml:3:"), std::string::npos) << err;
  EXPECT_EQ(gs::test::read_file(o.path), corrupt);
}

TEST(MatrixToml, DefaultPathFollowsXdg) {
  const char* old_xdg = std::getenv("XDG_DATA_HOME");
  std::string keep = old_xdg ? old_xdg : "";
  ::setenv("XDG_DATA_HOME", "/x/data", 1);
  EXPECT_EQ(default_matrix_path(), "/x/data/gpustack/matrix.toml");
  ::setenv("XDG_DATA_HOME", "relative", 1);  // XDG: a relative path is ignored
  const char* home = std::getenv("HOME");
  if (home && *home) {
    EXPECT_EQ(default_matrix_path(), std::string(home) + "/.local/share/gpustack/matrix.toml");
  }
  if (old_xdg) ::setenv("XDG_DATA_HOME", keep.c_str(), 1);
  else ::unsetenv("XDG_DATA_HOME");
}

TEST(MatrixToml, ShippedMatrixHoldsTheKnownStacks) {
  const compat_matrix& m = shipped_matrix();
  int gfx1201 = 0, h200 = 0;
  for (const matrix_row& r : m.rows) {
    if (r.fp.at("arch") == "gfx1201") {
      ++gfx1201;
      EXPECT_EQ(r.fp.at("triton"), "3.6.0");
      EXPECT_EQ(r.fp.at("flash-linear-attention"), "0.5.0");
      const matrix_cell* c = r.cell("train_smoke.qwen3.5-0.8b");
      ASSERT_NE(c, nullptr);
      EXPECT_EQ(c->status, r.fp.at("num_stages_cap") == "1" ? "pass" : "hang");
    }
    if (r.fp.at("arch") == "sm_90") {
      EXPECT_EQ(r.fp.at("driver"), "580.159.04");
      // Not every H200 report ran the suite (the probe fla one has only fla.* cells).
      if (const matrix_cell* torch = r.cell("py.torch")) {
        ++h200;
        EXPECT_EQ(torch->status, "pass");
      }
    }
  }
  EXPECT_EQ(gfx1201, 2);
  EXPECT_GE(h200, 1);
  EXPECT_GE(m.reports.size(), 3u);  // generated with `matrix merge` from reports/examples
}

}  // namespace
}  // namespace gs
