// Golden vectors for the quantization references (GUIDE "Golden vectors"): reading a file of
// bitsandbytes outputs ({"meta": {...}, "cases": [...]}, nf4 / fp4 / int8 cases) and comparing
// every case with the CPU references in kernels/ref/. The Python-side probes emit the same
// format from the user's own bitsandbytes, so this one comparer serves `gpustack selftest
// --vectors` and those probes alike. A malformed file is a list of errors naming the case and
// the field, never an exception or a crash.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/ref/quant4_ref.h"

namespace gs {

/// A 4-bit case (kind nf4 | fp4).
struct golden_quant4 {
  quant4_kind kind = quant4_kind::nf4;
  int blocksize = 64;
  bool nested = false;
  std::vector<long long> shape;
  size_t n = 0;                  ///< product of shape
  std::vector<float> input;      ///< n float32, row-major
  std::vector<uint8_t> packed;   ///< packed_u8, (n + 1) / 2 bytes
  std::vector<float> absmax;     ///< not nested: ceil(n / blocksize)
  std::vector<uint8_t> absmax_u8;///< nested: ceil(n / blocksize)
  float offset = 0;              ///< nested
  std::vector<float> absmax2;    ///< nested: ceil(absmax_u8.size() / blocksize2)
  std::vector<float> code2;      ///< nested: 256 entries
  int blocksize2 = 256;          ///< nested
  std::vector<float> dequant;    ///< n float32
};

/// An int8 (LLM.int8) case.
struct golden_int8 {
  float threshold = 0;
  int M = 0, K = 0, N = 0;        ///< shape_A = [M, K], shape_W = [N, K]
  std::vector<float> A, W;        ///< fp16 values
  std::vector<int8_t> CA, CW;
  std::vector<float> SCA, SCW;
  std::vector<int> outlier_cols;
  std::vector<int32_t> acc_i32;   ///< M x N
  std::vector<float> out;         ///< M x N fp16 values
  std::vector<float> bias;        ///< optional, N
  std::vector<float> linear8bitlt_out;  ///< optional, M x N
};

struct golden_case {
  size_t index = 0;
  std::string kind;  ///< "nf4" | "fp4" | "int8"
  std::optional<golden_quant4> q4;
  std::optional<golden_int8> i8;
  /// "nf4 bs64 [4, 256]", "int8 t=6 A[8, 64] W[32, 64]".
  std::string label() const;
};

/// One problem with the file: which case (-1: the file itself), which field, what.
struct golden_error {
  long long case_index = -1;
  std::string field;
  std::string message;
  /// "case 2 (int8), field CA: expected 512 elements, got 511".
  std::string describe() const;
};

struct golden_file {
  nlohmann::json meta = nlohmann::json::object();
  std::vector<golden_case> cases;
};

/// Parse and validate (types, lengths, shapes, ranges). Accepts the NaN / Infinity / -Infinity
/// tokens Python's json module writes. False when anything is wrong; `errors` lists every
/// problem found (at most a few per case).
bool parse_golden(std::string_view text, golden_file& out, std::vector<golden_error>& errors);

/// One compared field of a case.
struct golden_field_result {
  std::string field;        ///< "packed_u8", "dequant", "CA", ...
  size_t elements = 0;
  size_t matching = 0;      ///< bit-exact
  size_t tolerated = 0;     ///< different, within the stated tolerance
  long long first_mismatch = -1;
  std::string tolerance;    ///< the rule and its reason, when the field has one
  bool ok() const { return matching + tolerated == elements; }
};

struct golden_case_result {
  size_t index = 0;
  std::string kind;
  std::string label;
  std::vector<golden_field_result> fields;
  bool ok() const;
  size_t elements() const;
  size_t matching() const;   ///< bit-exact plus tolerated
};

/// Compare one validated case with the references.
golden_case_result compare_golden_case(const golden_case& c);

/// What comparing a whole file found.
struct golden_report {
  std::vector<golden_error> errors;  ///< non-empty: the file is malformed, no case was compared
  nlohmann::json meta = nlohmann::json::object();
  std::vector<golden_case_result> cases;
  bool malformed() const { return !errors.empty(); }
  bool all_match() const;
  /// 0 every case matches, 1 some element differs, 2 the file is malformed.
  int exit_code() const;
  nlohmann::json to_json() const;
};

/// parse_golden, then compare_golden_case for every case.
golden_report compare_golden(std::string_view json_text);

}  // namespace gs
