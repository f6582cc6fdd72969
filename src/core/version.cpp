// PEP 440 versions and specifier sets, hand-parsed with a cursor (no std::regex: this runs on
// every package of an environment and on fuzzed input, and must never backtrack or throw).
#include "core/version.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "core/text_scan.h"

namespace gs {
namespace {

struct cursor {
  std::string_view s;
  size_t i = 0;
  bool done() const { return i >= s.size(); }
  char peek(size_t ahead = 0) const { return i + ahead < s.size() ? s[i + ahead] : '\0'; }
  bool digit() const { return !done() && std::isdigit(static_cast<unsigned char>(s[i])); }
  bool eat(char c) {
    if (peek() != c) return false;
    ++i;
    return true;
  }
  bool eat(std::string_view word) {
    if (s.substr(i, word.size()) != word) return false;
    i += word.size();
    return true;
  }
  /// Decimal digits; saturates instead of overflowing (a 30-digit "version" is junk, not UB).
  uint64_t number() {
    uint64_t n = 0;
    while (digit()) {
      uint64_t d = static_cast<uint64_t>(s[i++] - '0');
      n = n > (std::numeric_limits<uint64_t>::max() - d) / 10 ? std::numeric_limits<uint64_t>::max()
                                                               : n * 10 + d;
    }
    return n;
  }
  void skip_space() {
    while (!done() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
};

bool is_sep(char c) { return c == '-' || c == '_' || c == '.'; }

using scan::lower;

/// Optional separator, then one of `labels`, then optional separator and number. Rewinds and
/// returns false when no label follows (so "1.0-1" can still be read as a post-release).
bool labelled_number(cursor& c, std::initializer_list<std::string_view> labels, std::string_view& label,
                     std::optional<uint64_t>& number) {
  size_t start = c.i;
  if (is_sep(c.peek())) ++c.i;
  for (std::string_view l : labels) {
    if (c.eat(l)) {
      label = l;
      size_t after_label = c.i;
      if (is_sep(c.peek())) ++c.i;
      if (c.digit()) {
        number = c.number();
      } else {
        c.i = after_label;  // a separator with no number after it belongs to the next part
        number.reset();
      }
      return true;
    }
  }
  c.i = start;
  return false;
}

void split_local(std::string_view s, std::vector<std::string>& out) {
  std::string cur;
  for (char ch : s) {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    } else if (!cur.empty()) {
      out.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

int cmp_u(uint64_t a, uint64_t b) { return a < b ? -1 : (a > b ? 1 : 0); }

int compare_release(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  size_t n = std::max(a.size(), b.size());
  for (size_t k = 0; k < n; ++k) {
    int c = cmp_u(k < a.size() ? a[k] : 0, k < b.size() ? b[k] : 0);
    if (c) return c;
  }
  return 0;
}

/// PEP 440 local ordering: numeric segments sort above alphanumeric ones; a longer label wins
/// a tie on the shared prefix.
int compare_local(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (size_t k = 0; k < std::min(a.size(), b.size()); ++k) {
    bool na = all_digits(a[k]), nb = all_digits(b[k]);
    if (na != nb) return na ? 1 : -1;
    if (na) {
      std::string x = a[k].substr(std::min(a[k].find_first_not_of('0'), a[k].size()));
      std::string y = b[k].substr(std::min(b[k].find_first_not_of('0'), b[k].size()));
      if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
      if (int c = x.compare(y)) return c < 0 ? -1 : 1;
    } else if (int c = a[k].compare(b[k])) {
      return c < 0 ? -1 : 1;
    }
  }
  return cmp_u(a.size(), b.size());
}

// Sort keys of packaging.version._cmpkey: rank 0 = -infinity, 1 = a real value, 2 = +infinity.
struct part_key {
  int rank;
  uint64_t a, b;
};
int cmp_key(part_key x, part_key y) {
  if (x.rank != y.rank) return x.rank < y.rank ? -1 : 1;
  if (int c = cmp_u(x.a, y.a)) return c;
  return cmp_u(x.b, y.b);
}
part_key pre_key(const version& v) {
  if (!v.pre_phase && !v.post && v.dev) return {0, 0, 0};  // 1.0.dev0 sorts before 1.0a0
  if (!v.pre_phase) return {2, 0, 0};
  return {1, static_cast<uint64_t>(v.pre_phase), v.pre_number};
}
part_key post_key(const version& v) { return v.post ? part_key{1, *v.post, 0} : part_key{0, 0, 0}; }
part_key dev_key(const version& v) { return v.dev ? part_key{1, *v.dev, 0} : part_key{2, 0, 0}; }

bool same_public_release(const version& a, const version& b) {
  return a.epoch == b.epoch && compare_release(a.release, b.release) == 0;
}

}  // namespace

std::optional<version> version::parse_pep440(std::string_view input) {
  std::string low = lower(input);
  cursor c{low};
  version v;
  v.text = std::string(input);
  c.skip_space();
  c.eat('v');
  if (!c.digit()) return std::nullopt;
  uint64_t first = c.number();
  if (c.eat('!')) {
    v.epoch = first;
    if (!c.digit()) return std::nullopt;
    first = c.number();
  }
  v.release.push_back(first);
  while (c.peek() == '.' && std::isdigit(static_cast<unsigned char>(c.peek(1)))) {
    ++c.i;
    v.release.push_back(c.number());
  }
  std::string_view label;
  std::optional<uint64_t> n;
  if (labelled_number(c, {"alpha", "a", "beta", "b", "preview", "pre", "c", "rc"}, label, n)) {
    v.pre_phase = (label == "alpha" || label == "a") ? 'a' : (label == "beta" || label == "b") ? 'b' : 'c';
    v.pre_number = n.value_or(0);
  }
  if (c.peek() == '-' && std::isdigit(static_cast<unsigned char>(c.peek(1)))) {
    ++c.i;
    v.post = c.number();  // "1.0-1" and ROCm's "7.2.0-43"
  } else if (labelled_number(c, {"post", "rev", "r"}, label, n)) {
    v.post = n.value_or(0);
  }
  if (labelled_number(c, {"dev"}, label, n)) v.dev = n.value_or(0);
  if (c.eat('+')) {
    size_t start = c.i;
    while (!c.done() && (std::isalnum(static_cast<unsigned char>(c.peek())) || is_sep(c.peek()))) ++c.i;
    std::string_view local = std::string_view(low).substr(start, c.i - start);
    if (local.empty() || is_sep(local.front()) || is_sep(local.back())) return std::nullopt;
    for (size_t k = 1; k < local.size(); ++k)
      if (is_sep(local[k]) && is_sep(local[k - 1])) return std::nullopt;
    split_local(local, v.local);
  }
  c.skip_space();
  if (!c.done()) return std::nullopt;
  return v;
}

std::optional<version> version::parse(std::string_view input) {
  if (auto v = parse_pep440(input)) return v;
  cursor c{input};
  c.skip_space();
  if (c.peek() == 'v' || c.peek() == 'V') ++c.i;
  if (!c.digit()) return std::nullopt;
  version v;
  v.text = std::string(input);
  v.release.push_back(c.number());
  while (c.peek() == '.' && std::isdigit(static_cast<unsigned char>(c.peek(1)))) {
    ++c.i;
    v.release.push_back(c.number());
  }
  split_local(input.substr(c.i), v.local);
  return v;
}

std::string version::normalized() const {
  std::string out;
  if (epoch) out += std::to_string(epoch) + "!";
  for (size_t k = 0; k < release.size(); ++k) out += (k ? "." : "") + std::to_string(release[k]);
  if (pre_phase) out += (pre_phase == 'c' ? std::string("rc") : std::string(1, pre_phase)) + std::to_string(pre_number);
  if (post) out += ".post" + std::to_string(*post);
  if (dev) out += ".dev" + std::to_string(*dev);
  for (size_t k = 0; k < local.size(); ++k) out += (k ? "." : "+") + local[k];
  return out;
}

int compare(const version& a, const version& b, bool with_local) {
  if (int c = cmp_u(a.epoch, b.epoch)) return c;
  if (int c = compare_release(a.release, b.release)) return c;
  if (int c = cmp_key(pre_key(a), pre_key(b))) return c;
  if (int c = cmp_key(post_key(a), post_key(b))) return c;
  if (int c = cmp_key(dev_key(a), dev_key(b))) return c;
  return with_local ? compare_local(a.local, b.local) : 0;
}

namespace {

bool prefix_match(const version& cand, const version& spec) {
  if (cand.epoch != spec.epoch) return false;
  for (size_t k = 0; k < spec.release.size(); ++k)
    if ((k < cand.release.size() ? cand.release[k] : 0) != spec.release[k]) return false;
  return true;
}

bool clause_holds(const version_clause& cl, const version& v) {
  using op = version_clause::op;
  switch (cl.kind) {
    case op::eq:
      if (cl.wildcard) return prefix_match(v, cl.v);
      return compare(v, cl.v, !cl.v.local.empty()) == 0;
    case op::ne:
      if (cl.wildcard) return !prefix_match(v, cl.v);
      return compare(v, cl.v, !cl.v.local.empty()) != 0;
    case op::le: return compare(v, cl.v, false) <= 0;
    case op::ge: return compare(v, cl.v, false) >= 0;
    case op::lt:
      // "<3.7.1" does not admit 3.7.1rc1 (PEP 440 exclusive ordered comparison).
      if (!cl.v.is_prerelease() && v.is_prerelease() && same_public_release(v, cl.v)) return false;
      return compare(v, cl.v, false) < 0;
    case op::gt:
      // ">1.7" does not admit 1.7.post2 unless the clause itself names a post-release.
      if (!cl.v.post && v.post && same_public_release(v, cl.v)) return false;
      return compare(v, cl.v, false) > 0;
    case op::compatible: {
      if (compare(v, cl.v, false) < 0) return false;
      version prefix = cl.v;
      prefix.release.pop_back();
      return prefix_match(v, prefix);
    }
    case op::arbitrary: {
      std::string a = lower(v.text), b = lower(cl.text);
      auto trim = [](std::string& s) {
        s.erase(0, s.find_first_not_of(" \t"));
        s.erase(s.find_last_not_of(" \t") + 1);
      };
      trim(a);
      trim(b);
      return a == b;
    }
  }
  return false;
}

bool fail(std::string* error, std::string msg) {
  if (error) *error = std::move(msg);
  return false;
}

bool parse_clause(std::string_view raw, version_clause& cl, std::string* error) {
  using op = version_clause::op;
  std::string_view s = scan::trim(raw);
  if (s.empty()) return fail(error, "empty clause in version range");
  static constexpr std::pair<std::string_view, op> ops[] = {
      {"===", op::arbitrary}, {"==", op::eq}, {"!=", op::ne}, {"<=", op::le}, {">=", op::ge},
      {"~=", op::compatible}, {"<", op::lt},  {">", op::gt}};
  cl.kind = op::eq;
  for (auto [tok, kind] : ops) {
    if (s.substr(0, tok.size()) == tok) {
      cl.kind = kind;
      s.remove_prefix(tok.size());
      break;
    }
  }
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  if (cl.kind == op::arbitrary) {
    if (s.empty()) return fail(error, "'===' needs a version");
    cl.text = std::string(s);
    return true;
  }
  if (s.empty()) return fail(error, "missing version after the operator in '" + std::string(raw) + "'");
  if (s.size() >= 2 && s.substr(s.size() - 2) == ".*") {
    if (cl.kind != op::eq && cl.kind != op::ne)
      return fail(error, "'.*' is only allowed with == and != in '" + std::string(raw) + "'");
    cl.wildcard = true;
    s.remove_suffix(2);
  }
  auto v = version::parse_pep440(s);
  if (!v) return fail(error, "'" + std::string(s) + "' is not a PEP 440 version");
  if (cl.wildcard && (v->pre_phase || v->post || v->dev || !v->local.empty()))
    return fail(error, "'.*' must follow a plain release number in '" + std::string(raw) + "'");
  if (!v->local.empty() && cl.kind != op::eq && cl.kind != op::ne)
    return fail(error, "a local label (+...) is only allowed with == and != in '" + std::string(raw) + "'");
  if (cl.kind == op::compatible && v->release.size() < 2)
    return fail(error, "'~=' needs at least two release numbers in '" + std::string(raw) + "'");
  cl.v = std::move(*v);
  return true;
}

}  // namespace

std::optional<version_range> version_range::parse(std::string_view text, std::string* error) {
  version_range r;
  r.text_ = std::string(text);
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string_view part = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    version_clause cl;
    if (!parse_clause(part, cl, error)) return std::nullopt;
    r.clauses_.push_back(std::move(cl));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return r;
}

bool version_range::contains(const version& v) const {
  for (const version_clause& cl : clauses_)
    if (!clause_holds(cl, v)) return false;
  return true;
}

}  // namespace gs
