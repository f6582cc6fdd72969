// Reading and validating a golden-vector file; see golden.h. Everything is checked before any
// case is compared: every required key present with the right type, every array the length its
// shape implies, every integer in range. The JSON parser's exception stays inside this file.
#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "quant/golden.h"

namespace gs {
namespace {

using json = nlohmann::json;

// Python's json.dumps writes NaN, Infinity and -Infinity, which JSON does not have. Outside
// strings, those tokens become marker strings that number arrays accept.
constexpr const char* nan_marker = "\x01gs-nan";
constexpr const char* pinf_marker = "\x01gs-inf";
constexpr const char* ninf_marker = "\x01gs--inf";

bool ident_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

std::string normalise_nonfinite(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool in_string = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < s.size()) out += s[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    auto token = [&](std::string_view word) {
      return s.substr(i, word.size()) == word && (i + word.size() == s.size() || !ident_char(s[i + word.size()])) &&
             (i == 0 || !ident_char(s[i - 1]));
    };
    const char* marker = nullptr;
    size_t len = 0;
    if (token("NaN")) marker = nan_marker, len = 3;
    else if (token("-Infinity")) marker = ninf_marker, len = 9;
    else if (token("Infinity")) marker = pinf_marker, len = 8;
    if (marker) {
      // \u0001 keeps the marker a valid JSON string (control characters must be escaped).
      out += "\"\\u0001";
      out += marker + 1;
      out += '"';
      i += len - 1;
      continue;
    }
    out += c;
  }
  return out;
}

// Collects errors for one case; each getter returns false (after recording why) on a bad field.
class case_reader {
 public:
  case_reader(const json& c, long long index, std::vector<golden_error>& errors) : c_(c), index_(index), errors_(errors) {}

  bool fail(const std::string& field, const std::string& message) {
    errors_.push_back({index_, field, message});
    return false;
  }
  bool has(const char* key) const { return c_.contains(key); }

  const json* field(const char* key) {
    auto it = c_.find(key);
    if (it == c_.end()) {
      fail(key, "missing");
      return nullptr;
    }
    return &*it;
  }

  bool get_string(const char* key, std::string& out) {
    const json* v = field(key);
    if (!v) return false;
    if (!v->is_string()) return fail(key, "expected a string, got " + std::string(v->type_name()));
    out = v->get<std::string>();
    return true;
  }

  bool get_bool(const char* key, bool& out) {
    const json* v = field(key);
    if (!v) return false;
    if (!v->is_boolean()) return fail(key, "expected true or false, got " + std::string(v->type_name()));
    out = v->get<bool>();
    return true;
  }

  bool get_int(const char* key, long long lo, long long hi, long long& out) {
    const json* v = field(key);
    if (!v) return false;
    if (!integral(*v, out)) return fail(key, "expected an integer, got " + describe(*v));
    if (out < lo || out > hi) return fail(key, fmt::format("{} is outside [{}, {}]", out, lo, hi));
    return true;
  }

  bool get_number(const char* key, float& out) {
    const json* v = field(key);
    if (!v) return false;
    if (!number(*v, out)) return fail(key, "expected a number, got " + describe(*v));
    return true;
  }

  /// An array of `expected` numbers (float32 values; NaN/Infinity tokens allowed).
  bool get_floats(const char* key, size_t expected, std::vector<float>& out) {
    const json* v = array_of(key, expected);
    if (!v) return false;
    out.resize(v->size());
    for (size_t i = 0; i < v->size(); ++i)
      if (!number((*v)[i], out[i])) return fail(key, fmt::format("element {} is {}, not a number", i, describe((*v)[i])));
    return true;
  }

  /// An array of `expected` integers in [lo, hi].
  template <class T>
  bool get_ints(const char* key, size_t expected, long long lo, long long hi, std::vector<T>& out) {
    const json* v = array_of(key, expected);
    if (!v) return false;
    out.resize(v->size());
    for (size_t i = 0; i < v->size(); ++i) {
      long long x = 0;
      if (!integral((*v)[i], x)) return fail(key, fmt::format("element {} is {}, not an integer", i, describe((*v)[i])));
      if (x < lo || x > hi) return fail(key, fmt::format("element {} is {}, outside [{}, {}]", i, x, lo, hi));
      out[i] = T(x);
    }
    return true;
  }

  /// A shape: an array of `rank` (0: any rank >= 1) non-negative integers; its product in n.
  bool get_shape(const char* key, size_t rank, std::vector<long long>& dims, size_t& n) {
    const json* v = field(key);
    if (!v) return false;
    if (!v->is_array() || v->empty()) return fail(key, "expected a non-empty array of dimensions, got " + describe(*v));
    if (rank && v->size() != rank) return fail(key, fmt::format("expected {} dimensions, got {}", rank, v->size()));
    dims.clear();
    unsigned long long prod = 1;
    for (size_t i = 0; i < v->size(); ++i) {
      long long d = 0;
      if (!integral((*v)[i], d) || d < 0) return fail(key, fmt::format("dimension {} is {}, not a non-negative integer", i, describe((*v)[i])));
      // Arrays in the file hold every element, so anything near 2^40 is already inconsistent.
      if (d > 0 && prod > (1ULL << 40) / (unsigned long long)d) return fail(key, "the shape's element count is implausibly large");
      prod *= (unsigned long long)d;
      dims.push_back(d);
    }
    n = size_t(prod);
    return true;
  }

 private:
  const json* array_of(const char* key, size_t expected) {
    const json* v = field(key);
    if (!v) return nullptr;
    if (!v->is_array()) {
      fail(key, "expected an array, got " + describe(*v));
      return nullptr;
    }
    if (v->size() != expected) {
      fail(key, fmt::format("expected {} elements, got {}", expected, v->size()));
      return nullptr;
    }
    return v;
  }

  static bool integral(const json& v, long long& out) {
    if (v.is_number_integer()) {
      if (v.is_number_unsigned() && v.get<unsigned long long>() > (unsigned long long)std::numeric_limits<long long>::max())
        return false;
      out = v.get<long long>();
      return true;
    }
    return false;
  }

  static bool number(const json& v, float& out) {
    if (v.is_number()) {
      out = float(v.get<double>());  // values written from float32 tensors come back exactly
      return true;
    }
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      if (s == nan_marker) out = std::numeric_limits<float>::quiet_NaN();
      else if (s == pinf_marker) out = std::numeric_limits<float>::infinity();
      else if (s == ninf_marker) out = -std::numeric_limits<float>::infinity();
      else return false;
      return true;
    }
    return false;
  }

  static std::string describe(const json& v) {
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      if (s == nan_marker || s == pinf_marker || s == ninf_marker) return "a non-finite number";
      return "a string";
    }
    if (v.is_number()) return v.dump();
    return std::string("a") + (v.is_array() || v.is_object() ? "n " : " ") + v.type_name();
  }

  const json& c_;
  long long index_;
  std::vector<golden_error>& errors_;
};

size_t blocks(size_t n, long long bs) { return (n + size_t(bs) - 1) / size_t(bs); }

bool read_quant4(case_reader& r, const std::string& kind, golden_quant4& q) {
  q.kind = kind == "nf4" ? quant4_kind::nf4 : quant4_kind::fp4;
  long long bs = 0;
  bool ok = r.get_int("blocksize", 1, 1 << 20, bs);
  if (ok && !quant4_blocksize_valid(bs)) ok = r.fail("blocksize", fmt::format("{} is not one of 32, 64, ..., 4096", bs));
  q.blocksize = int(bs);
  ok = r.get_bool("nested", q.nested) && ok;
  if (!r.get_shape("shape", 0, q.shape, q.n) || !ok) return false;
  ok = r.get_floats("input", q.n, q.input);
  ok = r.get_ints("packed_u8", (q.n + 1) / 2, 0, 255, q.packed) && ok;
  ok = r.get_floats("dequant", q.n, q.dequant) && ok;
  const size_t nb = blocks(q.n, bs);
  if (!q.nested) return r.get_floats("absmax", nb, q.absmax) && ok;
  long long bs2 = 0;
  ok = r.get_ints("absmax_u8", nb, 0, 255, q.absmax_u8) && ok;
  ok = r.get_number("offset", q.offset) && ok;
  ok = r.get_floats("code2", 256, q.code2) && ok;
  if (!r.get_int("blocksize2", 1, 1 << 20, bs2)) return false;
  q.blocksize2 = int(bs2);
  return r.get_floats("absmax2", blocks(nb, bs2), q.absmax2) && ok;
}

bool read_int8(case_reader& r, golden_int8& g) {
  std::vector<long long> sa, sw;
  size_t na = 0, nw = 0;
  bool ok = r.get_number("threshold", g.threshold);
  if (ok && !(g.threshold >= 0.0f && std::isfinite(g.threshold))) ok = r.fail("threshold", "must be a finite number >= 0");
  // Both read, so a file with two bad shapes reports both (a short-circuit && would stop at one).
  const bool a_ok = r.get_shape("shape_A", 2, sa, na);
  const bool w_ok = r.get_shape("shape_W", 2, sw, nw);
  const bool shapes = a_ok && w_ok;
  if (!shapes || !ok) return false;
  const long long lim = 1 << 24;
  if (sa[0] < 1 || sa[1] < 1 || sa[0] > lim || sa[1] > lim) return r.fail("shape_A", "dimensions must be in [1, 2^24]");
  if (sw[0] < 1 || sw[0] > lim) return r.fail("shape_W", "dimensions must be in [1, 2^24]");
  if (sw[1] != sa[1]) return r.fail("shape_W", fmt::format("inner dimension {} differs from shape_A's {}", sw[1], sa[1]));
  g.M = int(sa[0]), g.K = int(sa[1]), g.N = int(sw[0]);
  const size_t M = size_t(g.M), K = size_t(g.K), N = size_t(g.N);
  ok = r.get_floats("A", M * K, g.A);
  ok = r.get_floats("W", N * K, g.W) && ok;
  ok = r.get_ints("CA", M * K, -128, 127, g.CA) && ok;
  ok = r.get_floats("SCA", M, g.SCA) && ok;
  ok = r.get_ints("CW", N * K, -128, 127, g.CW) && ok;
  ok = r.get_floats("SCW", N, g.SCW) && ok;
  ok = r.get_ints("acc_i32", M * N, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), g.acc_i32) && ok;
  ok = r.get_floats("out", M * N, g.out) && ok;
  if (const json* oc = r.field("outlier_cols")) {
    if (!oc->is_array()) {
      ok = r.fail("outlier_cols", "expected an array of column indices");
    } else if (r.get_ints("outlier_cols", oc->size(), 0, g.K - 1, g.outlier_cols)) {
      std::set<int> seen(g.outlier_cols.begin(), g.outlier_cols.end());
      if (seen.size() != g.outlier_cols.size()) ok = r.fail("outlier_cols", "a column is listed twice");
    } else {
      ok = false;
    }
  } else {
    ok = false;
  }
  if (r.has("bias")) ok = r.get_floats("bias", N, g.bias) && ok;
  if (r.has("linear8bitlt_out")) ok = r.get_floats("linear8bitlt_out", M * N, g.linear8bitlt_out) && ok;
  return ok;
}

}  // namespace

std::string golden_error::describe() const {
  std::string s = case_index < 0 ? std::string("file") : fmt::format("case {}", case_index);
  if (!field.empty()) s += ", field " + field;
  return s + ": " + message;
}

std::string golden_case::label() const {
  if (q4) {
    std::string dims;
    for (size_t i = 0; i < q4->shape.size(); ++i) dims += (i ? ", " : "") + std::to_string(q4->shape[i]);
    return fmt::format("{} bs{}{} [{}]", kind, q4->blocksize, q4->nested ? " nested" : "", dims);
  }
  if (i8) return fmt::format("int8 t={} A[{}, {}] W[{}, {}]", i8->threshold, i8->M, i8->K, i8->N, i8->K);
  return kind;
}

bool parse_golden(std::string_view text, golden_file& out, std::vector<golden_error>& errors) {
  const size_t before = errors.size();
  json doc;
  try {
    doc = json::parse(normalise_nonfinite(text));
  } catch (const json::exception& e) {
    // The position refers to the normalised text, which differs from the file only where a
    // NaN/Infinity token was rewritten; the message keeps the parser's words.
    errors.push_back({-1, "", std::string("not valid JSON: ") + e.what()});
    return false;
  }
  if (!doc.is_object()) {
    errors.push_back({-1, "", std::string("expected a JSON object with \"meta\" and \"cases\", got ") + doc.type_name()});
    return false;
  }
  if (auto m = doc.find("meta"); m != doc.end()) {
    if (!m->is_object()) errors.push_back({-1, "meta", "expected an object"});
    else out.meta = *m;
  }
  auto cs = doc.find("cases");
  if (cs == doc.end()) {
    errors.push_back({-1, "cases", "missing"});
    return false;
  }
  if (!cs->is_array()) {
    errors.push_back({-1, "cases", std::string("expected an array, got ") + cs->type_name()});
    return false;
  }
  if (cs->empty()) errors.push_back({-1, "cases", "the file has no cases"});
  for (size_t i = 0; i < cs->size(); ++i) {
    const json& c = (*cs)[i];
    if (!c.is_object()) {
      errors.push_back({(long long)i, "", std::string("expected an object, got ") + c.type_name()});
      continue;
    }
    case_reader r(c, (long long)i, errors);
    golden_case g;
    g.index = i;
    if (!r.get_string("kind", g.kind)) continue;
    if (g.kind == "nf4" || g.kind == "fp4") {
      golden_quant4 q;
      if (read_quant4(r, g.kind, q)) g.q4 = std::move(q);
    } else if (g.kind == "int8") {
      golden_int8 q;
      if (read_int8(r, q)) g.i8 = std::move(q);
    } else {
      r.fail("kind", "'" + g.kind + "' is not one of nf4, fp4, int8");
      continue;
    }
    if (g.q4 || g.i8) out.cases.push_back(std::move(g));
  }
  return errors.size() == before;
}

}  // namespace gs
