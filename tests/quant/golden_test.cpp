// The golden-vector reader and comparer (src/quant/golden*.cpp): the references against the
// bitsandbytes CUDA outputs in tests/fixtures/golden/bitsandbytes-vectors.json (a copy of
// golden/bitsandbytes-vectors.json), synthetic nested and Linear8bitLt cases, differences
// caught and counted, and every kind of malformed file reported with its case and field.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kernels/gs_device.h"
#include "kernels/ref/double_quant_ref.h"
#include "kernels/ref/int8_ref.h"
#include "quant/golden.h"

namespace {

using json = nlohmann::json;

std::string fixture_text() {
  std::ifstream f(GPUSTACK_TEST_FIXTURES "/golden/bitsandbytes-vectors.json");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

json fixture() { return json::parse(fixture_text()); }

const gs::golden_field_result* field(const gs::golden_case_result& c, const std::string& name) {
  for (const auto& f : c.fields)
    if (f.field == name) return &f;
  return nullptr;
}

TEST(Golden, BitsandbytesVectorsMatchTheReferences) {
  const gs::golden_report r = gs::compare_golden(fixture_text());
  ASSERT_FALSE(r.malformed()) << r.errors[0].describe();
  ASSERT_EQ(r.cases.size(), 3u);
  EXPECT_TRUE(r.all_match());
  EXPECT_EQ(r.exit_code(), 0);
  EXPECT_EQ(r.cases[0].kind, "nf4");
  EXPECT_EQ(r.cases[0].label, "nf4 bs64 [4, 256]");
  const gs::golden_field_result* packed = field(r.cases[0], "packed_u8");
  ASSERT_NE(packed, nullptr);
  EXPECT_EQ(packed->elements, 1024u);
  EXPECT_EQ(packed->matching, 1024u) << "bit-exact, none merely tolerated";
  EXPECT_EQ(field(r.cases[0], "dequant")->matching, 1024u);
  EXPECT_EQ(field(r.cases[0], "absmax")->matching, 16u);
  EXPECT_EQ(field(r.cases[1], "packed_u8")->matching, 1024u);
  for (const char* f : {"outlier_cols", "SCA", "CA", "SCW", "CW", "acc_i32", "out"}) {
    ASSERT_NE(field(r.cases[2], f), nullptr) << f;
    EXPECT_TRUE(field(r.cases[2], f)->ok()) << f;
  }
  EXPECT_EQ(field(r.cases[2], "out")->elements, 256u);
  EXPECT_NE(r.meta.value("source", std::string()).find("H200"), std::string::npos);
  const json j = r.to_json();
  EXPECT_EQ(j["summary"]["matching_cases"], 3);
  EXPECT_EQ(j["summary"]["exit_code"], 0);
}

TEST(Golden, DifferencesAreCountedWithTheirIndex) {
  json d = fixture();
  d["cases"][0]["dequant"][5] = 7.25;            // was 7.5
  d["cases"][1]["packed_u8"][3] = 0x00;          // two codes changed
  d["cases"][2]["acc_i32"][10] = 1;
  d["cases"][2]["out"][0] = -4.5;
  const gs::golden_report r = gs::compare_golden(d.dump());
  ASSERT_FALSE(r.malformed());
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_FALSE(r.cases[0].ok());
  EXPECT_EQ(field(r.cases[0], "dequant")->matching, 1023u);
  EXPECT_EQ(field(r.cases[0], "dequant")->first_mismatch, 5);
  EXPECT_EQ(field(r.cases[1], "packed_u8")->first_mismatch, 6);
  EXPECT_EQ(field(r.cases[2], "acc_i32")->first_mismatch, 10);
  EXPECT_EQ(field(r.cases[2], "out")->first_mismatch, 0);
  EXPECT_EQ(r.cases[0].matching() + 1, r.cases[0].elements());
}

TEST(Golden, NegativeZeroIsNotZero) {
  json d = fixture();
  // The all-zero block of the NF4 case dequantizes to -0.0 (code 0 times absmax 0).
  ASSERT_TRUE(std::signbit(d["cases"][0]["dequant"][512].get<double>()));
  d["cases"][0]["dequant"][512] = 0.0;
  const gs::golden_report r = gs::compare_golden(d.dump());
  EXPECT_EQ(field(r.cases[0], "dequant")->first_mismatch, 512);
}

// A nested (double-quantized) case built from the references and the NF4 input.
json nested_case() {
  json c = fixture()["cases"][0];
  const std::vector<float> input = c["input"].get<std::vector<float>>();
  const gs::quant4_packed q = gs::quant4_quantize_ref(gs::quant4_kind::nf4, input, 64);
  const auto& code2 = gs::dynamic_map_avx2();
  const float offset = gs::absmax_mean(q.absmax);
  const gs::nested_absmax nq = gs::double_quant_ref(q.absmax, code2, offset);
  const std::vector<float> absmax = gs::nested_absmax_dequant_ref(nq.q, nq.absmax2, code2, offset);
  std::vector<float> deq(input.size());
  gs::quant4_dequant_ref_f32(gs::quant4_kind::nf4, q.packed, absmax, input.size(), 64, deq.data());
  c.erase("absmax");
  c["nested"] = true;
  c["absmax_u8"] = nq.q;
  c["offset"] = offset;
  c["absmax2"] = nq.absmax2;
  c["code2"] = std::vector<float>(code2.begin(), code2.end());
  c["blocksize2"] = 256;
  c["dequant"] = deq;
  return c;
}

TEST(Golden, NestedCaseMatchesAndCatchesAWrongAbsmax2) {
  json d = fixture();
  d["cases"] = json::array({nested_case()});
  gs::golden_report r = gs::compare_golden(d.dump());
  ASSERT_FALSE(r.malformed()) << r.errors[0].describe();
  EXPECT_TRUE(r.all_match());
  EXPECT_EQ(r.cases[0].label, "nf4 bs64 nested [4, 256]");
  EXPECT_NE(field(r.cases[0], "absmax_u8"), nullptr);
  EXPECT_NE(field(r.cases[0], "absmax2"), nullptr);
  d["cases"][0]["absmax2"][0] = d["cases"][0]["absmax2"][0].get<double>() * 1.5;
  r = gs::compare_golden(d.dump());
  EXPECT_FALSE(r.all_match());
  EXPECT_FALSE(field(r.cases[0], "absmax2")->ok());
  EXPECT_FALSE(field(r.cases[0], "dequant")->ok()) << "the reconstruction uses the file's absmax2";
}

TEST(Golden, Linear8bitLtOutWithinTwoUlpIsTolerated) {
  json d = fixture();
  json& c = d["cases"][2];
  const int M = 8, N = 32, K = 64;
  std::vector<int8_t> cw;
  for (const auto& v : c["CW"]) cw.push_back(int8_t(v.get<int>()));
  const std::vector<uint16_t> lin = gs::linear8bitlt_forward_ref(
      c["A"].get<std::vector<float>>(), cw, c["SCW"].get<std::vector<float>>(), {}, M, N, K, 6.0f);
  std::vector<float> want(lin.size());
  for (size_t i = 0; i < lin.size(); ++i) want[i] = gs_f16_to_f32(lin[i]);
  c["linear8bitlt_out"] = want;
  EXPECT_TRUE(gs::compare_golden(d.dump()).all_match());
  // One fp16 ulp off: what cuBLAS's summation order can do. Tolerated, not bit-exact.
  c["linear8bitlt_out"][3] = gs_f16_to_f32(uint16_t(lin[3] + 1));
  gs::golden_report r = gs::compare_golden(d.dump());
  EXPECT_TRUE(r.all_match());
  EXPECT_EQ(field(r.cases[2], "linear8bitlt_out")->tolerated, 1u);
  // Ten ulps off is a real difference.
  c["linear8bitlt_out"][3] = gs_f16_to_f32(uint16_t(lin[3] + 10));
  r = gs::compare_golden(d.dump());
  EXPECT_FALSE(r.all_match());
}

TEST(Golden, PythonNanAndInfinityTokensAreNumbers) {
  json d = fixture();
  std::string text = d.dump();
  // json.dumps writes NaN bare; the first input value becomes NaN, so its code (0) no longer
  // matches bitsandbytes' code for the original value: a mismatch, not a parse error.
  const std::string first = "\"input\":[" + d["cases"][0]["input"][0].dump();
  ASSERT_NE(text.find(first), std::string::npos);
  text.replace(text.find(first), first.size(), "\"input\":[NaN");
  gs::golden_report r = gs::compare_golden(text);
  ASSERT_FALSE(r.malformed()) << r.errors[0].describe();
  EXPECT_EQ(r.exit_code(), 1);
  EXPECT_EQ(field(r.cases[0], "packed_u8")->first_mismatch, 0);
  // A string that merely says NaN is not a number.
  r = gs::compare_golden(R"({"cases":[{"kind":"int8","threshold":"NaN"}]})");
  ASSERT_TRUE(r.malformed());
  EXPECT_EQ(r.errors[0].field, "threshold");
  // Infinity where a finite threshold is needed.
  r = gs::compare_golden(R"({"cases":[{"kind":"int8","threshold":Infinity}]})");
  ASSERT_TRUE(r.malformed());
  EXPECT_NE(r.errors[0].message.find("finite"), std::string::npos) << r.errors[0].message;
}

// Malformed files: exit 2 and an error naming the case and the field.
struct malformed_case {
  const char* name;
  std::function<void(json&)> mutate;
  long long want_case;
  const char* want_field;
  const char* want_words;
};

TEST(Golden, MalformedFilesNameTheCaseAndField) {
  const std::vector<malformed_case> cases = {
      {"missing key", [](json& d) { d["cases"][0].erase("dequant"); }, 0, "dequant", "missing"},
      {"short array", [](json& d) { d["cases"][0]["packed_u8"].erase(0); }, 0, "packed_u8", "expected 512 elements, got 511"},
      {"shape mismatch", [](json& d) { d["cases"][1]["shape"] = {4, 255}; }, 1, "input", "expected 1020 elements"},
      {"string element", [](json& d) { d["cases"][0]["input"][3] = "abc"; }, 0, "input", "element 3 is a string"},
      {"null element", [](json& d) { d["cases"][1]["absmax"][2] = nullptr; }, 1, "absmax", "element 2"},
      {"byte out of range", [](json& d) { d["cases"][0]["packed_u8"][7] = 256; }, 0, "packed_u8", "outside [0, 255]"},
      {"float byte", [](json& d) { d["cases"][0]["packed_u8"][7] = 1.5; }, 0, "packed_u8", "not an integer"},
      {"bad blocksize", [](json& d) { d["cases"][0]["blocksize"] = 48; }, 0, "blocksize", "not one of"},
      {"unknown kind", [](json& d) { d["cases"][1]["kind"] = "nf3"; }, 1, "kind", "not one of"},
      {"kind not a string", [](json& d) { d["cases"][1]["kind"] = 4; }, 1, "kind", "expected a string"},
      {"nested not bool", [](json& d) { d["cases"][0]["nested"] = "no"; }, 0, "nested", "true or false"},
      {"nested without pieces", [](json& d) { d["cases"][0]["nested"] = true; }, 0, "absmax_u8", "missing"},
      {"int8 code range", [](json& d) { d["cases"][2]["CA"][0] = 200; }, 2, "CA", "outside [-128, 127]"},
      {"inner dims differ", [](json& d) { d["cases"][2]["shape_W"] = {32, 63}; }, 2, "shape_W", "inner dimension"},
      {"shape rank", [](json& d) { d["cases"][2]["shape_A"] = {8, 64, 1}; }, 2, "shape_A", "expected 2 dimensions"},
      {"outlier col range", [](json& d) { d["cases"][2]["outlier_cols"][0] = 64; }, 2, "outlier_cols", "outside"},
      {"outlier col twice", [](json& d) { d["cases"][2]["outlier_cols"] = {3, 3}; }, 2, "outlier_cols", "twice"},
      {"acc beyond int32", [](json& d) { d["cases"][2]["acc_i32"][1] = 3000000000LL; }, 2, "acc_i32", "outside"},
      {"negative threshold", [](json& d) { d["cases"][2]["threshold"] = -1; }, 2, "threshold", ">= 0"},
      {"bias length", [](json& d) { d["cases"][2]["bias"] = {1.0, 2.0}; }, 2, "bias", "expected 32 elements"},
      {"case not object", [](json& d) { d["cases"][1] = 7; }, 1, "", "expected an object"},
      {"cases not array", [](json& d) { d["cases"] = json::object(); }, -1, "cases", "expected an array"},
      {"no cases", [](json& d) { d["cases"] = json::array(); }, -1, "cases", "no cases"},
      {"cases missing", [](json& d) { d.erase("cases"); }, -1, "cases", "missing"},
      {"meta not object", [](json& d) { d["meta"] = 3; }, -1, "meta", "expected an object"},
      {"huge shape", [](json& d) { d["cases"][0]["shape"] = {1LL << 30, 1LL << 30}; }, 0, "shape", "implausibly large"},
  };
  for (const malformed_case& m : cases) {
    json d = fixture();
    m.mutate(d);
    const gs::golden_report r = gs::compare_golden(d.dump());
    ASSERT_TRUE(r.malformed()) << m.name;
    EXPECT_EQ(r.exit_code(), 2) << m.name;
    EXPECT_TRUE(r.cases.empty()) << m.name << ": nothing is compared in a malformed file";
    bool found = false;
    for (const gs::golden_error& e : r.errors)
      found = found || (e.case_index == m.want_case && e.field == m.want_field &&
                        e.message.find(m.want_words) != std::string::npos);
    EXPECT_TRUE(found) << m.name << ": got " << r.errors[0].describe();
  }
}

TEST(Golden, NotJsonAtAll) {
  const std::string text = fixture_text();
  for (const std::string& bad : {text.substr(0, text.size() / 2), std::string(""), std::string("[1, 2]"),
                                 std::string("{\"cases\": [}"), std::string("\x01\x02garbage")}) {
    const gs::golden_report r = gs::compare_golden(bad);
    ASSERT_TRUE(r.malformed());
    EXPECT_EQ(r.errors[0].case_index, -1);
    EXPECT_EQ(r.exit_code(), 2);
    EXPECT_FALSE(r.errors[0].describe().empty());
  }
  EXPECT_NE(gs::compare_golden(text.substr(0, 1000)).errors[0].message.find("not valid JSON"), std::string::npos);
}

TEST(Golden, StringsContainingNanAreLeftAlone) {
  json d = fixture();
  d["meta"]["note"] = "NaN Infinity -Infinity inside a string";
  const gs::golden_report r = gs::compare_golden(d.dump());
  ASSERT_FALSE(r.malformed());
  EXPECT_EQ(r.meta["note"], "NaN Infinity -Infinity inside a string");
}

}  // namespace
