// Comparing golden cases with the CPU references; see golden.h. Each field is compared element
// by element: bit-exact counts as matching; a difference the field's stated tolerance explains
// counts as tolerated (only where bitsandbytes' CUDA arithmetic is not IEEE: the fast-math
// reciprocal of the 4-bit and 8-bit quantizers, __fdividef in the int8 quantizer, and the
// summation order of cuBLAS in the Linear8bitLt outlier product); anything else is a mismatch.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <set>

#include "kernels/gs_device.h"
#include "kernels/ref/double_quant_ref.h"
#include "kernels/ref/int8_ref.h"
#include "quant/golden.h"

namespace gs {
namespace {

constexpr const char* reciprocal_rule =
    "codes may differ where x * (1/absmax) lies within 2 ulp of a threshold: bitsandbytes' CUDA build "
    "takes 1/absmax with the --use_fast_math approximate reciprocal";
constexpr const char* fdividef_rule =
    "codes may differ by 1 where x * scale lies within 2 ulp of a .5 boundary: the kernel's scale is "
    "__fdividef(127, absmax), an approximate division";
constexpr const char* addmm_rule =
    "within 2 fp16 ulp: the outlier product A[:, O] @ W[:, O]^T is summed by cuBLAS in an order of its own";

bool same_bits(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return true;  // JSON NaN tokens carry no payload
  uint32_t x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  return x == y;
}

// Tallies one field. `tolerated(i)` is asked only for elements that differ.
template <class Equal, class Tol>
golden_field_result tally(const char* name, size_t n, Equal equal, Tol tolerated, const char* rule = "") {
  golden_field_result f;
  f.field = name;
  f.elements = n;
  f.tolerance = rule;
  for (size_t i = 0; i < n; ++i) {
    if (equal(i)) {
      ++f.matching;
    } else if (tolerated(i)) {
      ++f.tolerated;
    } else if (f.first_mismatch < 0) {
      f.first_mismatch = (long long)i;
    }
  }
  return f;
}

auto never = [](size_t) { return false; };

golden_field_result floats_field(const char* name, const std::vector<float>& got, const std::vector<float>& want) {
  return tally(name, want.size(), [&](size_t i) { return same_bits(got[i], want[i]); }, never);
}

void compare_quant4(const golden_quant4& g, golden_case_result& r) {
  const quant4_packed ref = quant4_quantize_ref(g.kind, g.input, g.blocksize);
  const size_t bs = size_t(g.blocksize);

  // absmax: exact (a max is exact whatever the arithmetic).
  std::vector<float> absmax_used;  // what the golden dequant was scaled with
  if (!g.nested) {
    r.fields.push_back(floats_field("absmax", ref.absmax, g.absmax));
    absmax_used = g.absmax;
  } else {
    // Double quantization of our absmax with the file's offset and map: the offset is a torch
    // mean whose reduction order is the device's, so it is taken from the state (reported apart).
    const std::span<const float, 256> code2(g.code2.data(), 256);
    const nested_absmax nq = double_quant_ref(ref.absmax, code2, g.offset, g.blocksize2);
    std::vector<float> y(ref.absmax.size());
    for (size_t i = 0; i < y.size(); ++i) y[i] = ref.absmax[i] - g.offset;
    r.fields.push_back(tally(
        "absmax_u8", g.absmax_u8.size(), [&](size_t i) { return nq.q[i] == g.absmax_u8[i]; },
        [&](size_t i) {
          return dynamic_code_tolerated(code2, y[i], nq.absmax2[i / size_t(g.blocksize2)], g.absmax_u8[i]);
        },
        reciprocal_rule));
    r.fields.push_back(floats_field("absmax2", nq.absmax2, g.absmax2));
    absmax_used = nested_absmax_dequant_ref(g.absmax_u8, g.absmax2, code2, g.offset, g.blocksize2);
  }

  // Codes, nibble by nibble (the padding nibble of an odd count included).
  const size_t nibbles = g.packed.size() * 2;
  r.fields.push_back(tally(
      "packed_u8", nibbles,
      [&](size_t i) { return quant4_nibble(ref.packed, i) == quant4_nibble(g.packed, i); },
      [&](size_t i) {
        const float x = i < g.n ? g.input[i] : 0.0f;
        return quant4_code_tolerated(g.kind, x, ref.absmax[i / bs], quant4_nibble(g.packed, i));
      },
      reciprocal_rule));

  // Dequantize the file's own codes and absmax: exact (one IEEE multiply per element).
  std::vector<float> deq(g.n);
  quant4_dequant_ref_f32(g.kind, g.packed, absmax_used, g.n, g.blocksize, deq.data());
  r.fields.push_back(floats_field("dequant", deq, g.dequant));
}

float fp16_ulp(float v) {
  // Spacing of fp16 values at |v|: 2^(e - 10) for normals, 2^-24 for subnormals.
  const float a = std::fabs(v);
  if (!(a >= 6.103515625e-05f)) return 5.9604645e-08f;
  int e = 0;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  return std::ldexp(1.0f, e - 11);
}

void compare_int8(const golden_int8& g, golden_case_result& r) {
  const size_t M = size_t(g.M), N = size_t(g.N), K = size_t(g.K);
  const int8_quant qa = int8_vectorwise_quant_ref(g.A, g.M, g.K, g.threshold);
  const int8_quant qw = int8_vectorwise_quant_ref(g.W, g.N, g.K, 0.0f);  // weights: no decomposition

  std::set<int> ref_cols(qa.outlier_cols.begin(), qa.outlier_cols.end());
  std::set<int> file_cols(g.outlier_cols.begin(), g.outlier_cols.end());
  r.fields.push_back(tally(
      "outlier_cols", K, [&](size_t c) { return ref_cols.count(int(c)) == file_cols.count(int(c)); }, never));
  r.fields.push_back(floats_field("SCA", qa.stats, g.SCA));
  r.fields.push_back(tally(
      "CA", M * K, [&](size_t i) { return qa.q[i] == g.CA[i]; },
      [&](size_t i) {
        if (ref_cols.count(int(i % K))) return false;  // an outlier column is 0, whatever the scale
        return int8_code_tolerated(g.A[i], qa.stats[i / K], g.CA[i]);
      },
      fdividef_rule));
  r.fields.push_back(floats_field("SCW", qw.stats, g.SCW));
  r.fields.push_back(tally(
      "CW", N * K, [&](size_t i) { return qw.q[i] == g.CW[i]; },
      [&](size_t i) { return int8_code_tolerated(g.W[i], qw.stats[i / K], g.CW[i]); }, fdividef_rule));

  // The GEMM and the dequant from the file's own int8 operands: both exact.
  const std::vector<int32_t> acc = int8_gemm_i32_ref(g.CA, g.CW, g.M, g.N, g.K);
  r.fields.push_back(tally("acc_i32", M * N, [&](size_t i) { return acc[i] == g.acc_i32[i]; }, never));
  const std::vector<uint16_t> out = int8_mm_dequant_ref(g.acc_i32, g.SCA, g.SCW, g.bias, g.M, g.N);
  r.fields.push_back(tally("out", M * N, [&](size_t i) { return same_bits(gs_f16_to_f32(out[i]), g.out[i]); }, never));

  if (!g.linear8bitlt_out.empty()) {
    const std::vector<uint16_t> lin =
        linear8bitlt_forward_ref(g.A, g.CW, g.SCW, g.bias, g.M, g.N, g.K, g.threshold);
    r.fields.push_back(tally(
        "linear8bitlt_out", M * N, [&](size_t i) { return same_bits(gs_f16_to_f32(lin[i]), g.linear8bitlt_out[i]); },
        [&](size_t i) {
          const float got = gs_f16_to_f32(lin[i]), want = g.linear8bitlt_out[i];
          return std::isfinite(got) && std::isfinite(want) &&
                 std::fabs(got - want) <= 2.0f * fp16_ulp(std::fmax(std::fabs(got), std::fabs(want)));
        },
        addmm_rule));
  }
}

}  // namespace

bool golden_case_result::ok() const {
  for (const golden_field_result& f : fields)
    if (!f.ok()) return false;
  return !fields.empty();
}

size_t golden_case_result::elements() const {
  size_t n = 0;
  for (const golden_field_result& f : fields) n += f.elements;
  return n;
}

size_t golden_case_result::matching() const {
  size_t n = 0;
  for (const golden_field_result& f : fields) n += f.matching + f.tolerated;
  return n;
}

golden_case_result compare_golden_case(const golden_case& c) {
  golden_case_result r;
  r.index = c.index;
  r.kind = c.kind;
  r.label = c.label();
  if (c.q4) compare_quant4(*c.q4, r);
  if (c.i8) compare_int8(*c.i8, r);
  return r;
}

bool golden_report::all_match() const {
  if (malformed() || cases.empty()) return false;
  for (const golden_case_result& c : cases)
    if (!c.ok()) return false;
  return true;
}

int golden_report::exit_code() const { return malformed() ? 2 : all_match() ? 0 : 1; }

nlohmann::json golden_report::to_json() const {
  nlohmann::json j;
  j["meta"] = meta;
  if (malformed()) {
    j["errors"] = nlohmann::json::array();
    for (const golden_error& e : errors)
      j["errors"].push_back({{"case", e.case_index}, {"field", e.field}, {"message", e.message}});
  }
  j["cases"] = nlohmann::json::array();
  size_t matching = 0;
  for (const golden_case_result& c : cases) {
    nlohmann::json jc = {{"index", c.index}, {"kind", c.kind}, {"label", c.label}, {"match", c.ok()},
                         {"elements", c.elements()}, {"matching", c.matching()}};
    jc["fields"] = nlohmann::json::array();
    for (const golden_field_result& f : c.fields) {
      nlohmann::json jf = {{"field", f.field}, {"elements", f.elements}, {"matching", f.matching},
                           {"tolerated", f.tolerated}, {"match", f.ok()}};
      if (f.first_mismatch >= 0) jf["first_mismatch"] = f.first_mismatch;
      if (!f.tolerance.empty()) jf["tolerance"] = f.tolerance;
      jc["fields"].push_back(std::move(jf));
    }
    matching += c.ok();
    j["cases"].push_back(std::move(jc));
  }
  j["summary"] = {{"cases", cases.size()}, {"matching_cases", matching}, {"malformed", malformed()},
                  {"exit_code", exit_code()}};
  return j;
}

golden_report compare_golden(std::string_view json_text) {
  golden_report rep;
  golden_file f;
  if (!parse_golden(json_text, f, rep.errors)) {
    rep.meta = f.meta;
    return rep;  // no case is compared in a file that is not all well-formed
  }
  rep.meta = f.meta;
  for (const golden_case& c : f.cases) rep.cases.push_back(compare_golden_case(c));
  return rep;
}

}  // namespace gs
