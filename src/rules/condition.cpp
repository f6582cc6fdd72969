// Condition evaluation. Loading has already checked that each operator fits the fact's type,
// so here a mismatch can only mean an unset fact, which is answered, never thrown.
#include "rules/condition.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

#include "core/text_scan.h"
#include "rules/fact_resolver.h"

namespace gs {
namespace {

// std::regex in libstdc++ recurses per character; a long probe log could exhaust the stack.
// Values rules look at (env vars, error lines) are short; longer text is cut.
constexpr size_t kRegexInputLimit = 4096;

bool regex_search_safe(const std::regex& re, std::string_view text) {
  std::string s(text.substr(0, kRegexInputLimit));
  try {
    return std::regex_search(s, re);
  } catch (const std::regex_error&) {
    return false;  // complexity/stack limits: no match rather than a crash
  }
}

int three_way(double a, double b) { return a < b ? -1 : (a > b ? 1 : 0); }

bool from_order(cond_op op, int c) {
  switch (op) {
    case cond_op::eq: return c == 0;
    case cond_op::ne: return c != 0;
    case cond_op::lt: return c < 0;
    case cond_op::le: return c <= 0;
    case cond_op::gt: return c > 0;
    case cond_op::ge: return c >= 0;
    default: return false;
  }
}

using scan::iequals;

/// Fact against fact: both must be known, and are compared in their common type.
bool compare_facts(cond_op op, const fact_value& l, const fact_value& r) {
  if (l.ver && r.ver) return from_order(op, compare(*l.ver, *r.ver, false));
  if (l.type == fact_type::number && r.type == fact_type::number) return from_order(op, three_way(l.number, r.number));
  if (l.type == fact_type::boolean && r.type == fact_type::boolean) return from_order(op, l.flag == r.flag ? 0 : 1);
  if (op == cond_op::eq) return iequals(l.text, r.text);
  if (op == cond_op::ne) return !iequals(l.text, r.text);
  int c = l.text.compare(r.text);
  return from_order(op, c < 0 ? -1 : (c > 0 ? 1 : 0));
}

/// Fact against a literal of the fact's own type (checked at load).
bool compare_literal(cond_op op, const fact_value& l, const operand& r) {
  if (r.range && l.ver) return r.range->contains(*l.ver);
  if (l.type == fact_type::number && r.number) return from_order(op, three_way(l.number, *r.number));
  if (l.type == fact_type::boolean && r.flag) return from_order(op, l.flag == *r.flag ? 0 : 1);
  if (op == cond_op::eq) return l.text == r.text;
  if (op == cond_op::ne) return l.text != r.text;
  int c = l.text.compare(r.text);
  return from_order(op, c < 0 ? -1 : (c > 0 ? 1 : 0));
}

bool negative(cond_op op) {
  return op == cond_op::ne || op == cond_op::not_glob || op == cond_op::not_regex || op == cond_op::not_in;
}

}  // namespace

bool glob_match(std::string_view p, std::string_view t) {
  // Iterative matcher with one backtrack point for '*': linear in practice, no recursion.
  size_t pi = 0, ti = 0, star = std::string_view::npos, mark = 0;
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  auto class_match = [&](size_t& i, char c) -> std::optional<bool> {
    size_t j = i + 1;
    bool invert = j < p.size() && (p[j] == '!' || p[j] == '^');
    if (invert) ++j;
    bool hit = false;
    size_t first = j;
    while (j < p.size() && (p[j] != ']' || j == first)) {
      if (j + 2 < p.size() && p[j + 1] == '-' && p[j + 2] != ']') {
        hit = hit || (lower(c) >= lower(p[j]) && lower(c) <= lower(p[j + 2]));
        j += 3;
      } else {
        hit = hit || lower(c) == lower(p[j]);
        ++j;
      }
    }
    if (j >= p.size()) return std::nullopt;  // no closing ']': treat '[' literally
    i = j + 1;
    return hit != invert;
  };
  while (ti < t.size()) {
    if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = ti;
      continue;
    }
    if (pi < p.size()) {
      if (p[pi] == '[') {
        size_t next = pi;
        auto m = class_match(next, t[ti]);
        if (m.has_value()) {
          if (*m) {
            pi = next;
            ++ti;
            continue;
          }
        } else if (lower(t[ti]) == '[') {
          ++pi;
          ++ti;
          continue;
        }
      } else if (p[pi] == '?' || lower(p[pi]) == lower(t[ti])) {
        ++pi;
        ++ti;
        continue;
      }
    }
    if (star == std::string_view::npos) return false;
    pi = star + 1;
    ti = ++mark;
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

std::optional<double> parse_size(std::string_view text) {
  std::string s(text);
  if (s.empty() || s.size() > 64) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !std::isfinite(v) || v < 0) return std::nullopt;
  std::string unit(end);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static constexpr std::pair<std::string_view, double> units[] = {
      {"", 1},       {"b", 1},          {"kib", 1024.0},     {"mib", 1048576.0}, {"gib", 1073741824.0},
      {"tib", 1099511627776.0}, {"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9},     {"tb", 1e12}};
  for (auto [u, mult] : units)
    if (unit == u) return v * mult;
  return std::nullopt;
}

namespace {

/// A paste that names some GPUs shows a lower bound on the counts, not the counts: "at least
/// one NVIDIA GPU" is known from one `GPU: RTX 4070 Ti` line, "exactly one" is not.
bool count_lower_bound_holds(const condition& c, const std::optional<fact_value>& l) {
  return c.key.rfind("gpus.", 0) == 0 && (c.op == cond_op::ge || c.op == cond_op::gt) && l && c.args.size() == 1 &&
         c.args[0].fact.empty() && compare_literal(c.op, *l, c.args[0]);
}

}  // namespace

truth condition_truth(const condition& c, const fact_context& ctx) {
  std::optional<fact_value> l = resolve_fact(c.key, ctx);
  if (count_lower_bound_holds(c, l)) return truth::yes;
  if (fact_is_unknown(c.key, ctx, l.has_value())) return truth::unknown;
  if (c.args.size() == 1 && !c.args[0].fact.empty()) {
    std::optional<fact_value> r = resolve_fact(c.args[0].fact, ctx);
    if (fact_is_unknown(c.args[0].fact, ctx, r.has_value())) return truth::unknown;
  }
  return condition_holds(c, ctx) ? truth::yes : truth::no;
}

truth conditions_truth(const std::vector<condition>& cs, const fact_context& ctx, std::vector<std::string>* unknown_keys) {
  truth all = truth::yes;
  for (const condition& c : cs) {
    truth t = condition_truth(c, ctx);
    if (t == truth::no) return truth::no;
    if (t == truth::unknown) {
      all = truth::unknown;
      if (unknown_keys) unknown_keys->push_back(c.key);
    }
  }
  return all;
}

bool condition_holds(const condition& c, const fact_context& ctx) {
  std::optional<fact_value> l = resolve_fact(c.key, ctx);
  if (count_lower_bound_holds(c, l)) return true;
  if (fact_is_unknown(c.key, ctx, l.has_value())) return false;
  if (c.op == cond_op::set) return l.has_value() == c.want_set;
  if (c.args.size() == 1 && !c.args[0].fact.empty()) {
    std::optional<fact_value> r = resolve_fact(c.args[0].fact, ctx);
    if (fact_is_unknown(c.args[0].fact, ctx, r.has_value())) return false;
    return l && r && compare_facts(c.op, *l, *r);
  }
  if (!l) return negative(c.op);
  switch (c.op) {
    case cond_op::eq: case cond_op::ne: case cond_op::lt: case cond_op::le: case cond_op::gt: case cond_op::ge:
      return !c.args.empty() && compare_literal(c.op, *l, c.args[0]);
    case cond_op::glob: case cond_op::not_glob: {
      bool any = false;
      for (const operand& a : c.args) any = any || glob_match(a.text, l->text);
      return any == (c.op == cond_op::glob);
    }
    case cond_op::regex: case cond_op::not_regex:
      return c.re && regex_search_safe(*c.re, l->text) == (c.op == cond_op::regex);
    case cond_op::in: case cond_op::not_in: {
      bool any = false;
      for (const operand& a : c.args) any = any || compare_literal(cond_op::eq, *l, a);
      return any == (c.op == cond_op::in);
    }
    case cond_op::version:
      return c.range && l->ver && c.range->contains(*l->ver);
    case cond_op::set:
      break;
  }
  return false;
}

bool conditions_hold(const std::vector<condition>& cs, const fact_context& ctx) {
  for (const condition& c : cs)
    if (!condition_holds(c, ctx)) return false;
  return true;
}

}  // namespace gs
