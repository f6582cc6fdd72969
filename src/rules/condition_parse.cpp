// `when` tables -> conditions. A table whose keys are all operator names is an operator table
// ({ glob = "gfx12*" }); any other table is a namespace step of a dotted key (`gpu.arch = ...`
// parses as when.gpu.arch). Every operand is checked against the fact's type here, once, so
// evaluation never meets a type it cannot compare.
#include <algorithm>
#include <cstdio>

#include "rules/condition.h"

#include "core/edit_distance.h"
#include "rules/kb_loader.h"
#include "rules/kb_parse.h"

namespace gs {
namespace {

struct op_name {
  std::string_view name;
  cond_op op;
};
constexpr op_name kOps[] = {{"set", cond_op::set},         {"eq", cond_op::eq},           {"ne", cond_op::ne},
                            {"lt", cond_op::lt},           {"le", cond_op::le},           {"gt", cond_op::gt},
                            {"ge", cond_op::ge},           {"glob", cond_op::glob},       {"not_glob", cond_op::not_glob},
                            {"regex", cond_op::regex},     {"not_regex", cond_op::not_regex}, {"in", cond_op::in},
                            {"not_in", cond_op::not_in},   {"version", cond_op::version}};

std::optional<cond_op> find_op(std::string_view n) {
  for (const op_name& o : kOps)
    if (o.name == n) return o.op;
  return std::nullopt;
}

bool is_operator_table(const toml::table& t) {
  if (t.empty()) return false;
  for (auto&& [k, v] : t)
    if (!find_op(k.str())) return false;
  return true;
}

bool ordered(fact_type t) { return t == fact_type::version || t == fact_type::number; }

std::string version_op_prefix(cond_op op) {
  switch (op) {
    case cond_op::eq: return "==";
    case cond_op::ne: return "!=";
    case cond_op::lt: return "<";
    case cond_op::le: return "<=";
    case cond_op::gt: return ">";
    case cond_op::ge: return ">=";
    default: return "==";
  }
}

/// A literal of the fact's type (or { fact = "other.key" }) for a comparison operator.
bool parse_operand(const condition& c, const toml::node& v, kb_parse_ctx& ctx, operand& out) {
  if (const toml::table* t = v.as_table()) {
    auto f = t->get("fact");
    if (t->size() != 1 || !f || !f->is_string()) {
      ctx.error(v.source(), "a fact operand is written { fact = \"some.key\" }");
      return false;
    }
    out.fact = **f->as_string();
    auto info = lookup_fact(out.fact, ctx.kb);
    if (!info) {
      ctx.error(f->source(), unknown_fact_message(out.fact, ctx.kb));
      return false;
    }
    if (info->type != c.type) {
      ctx.error(f->source(), "cannot compare " + std::string(to_string(c.type)) + " fact '" + c.key + "' with " +
                                 std::string(to_string(info->type)) + " fact '" + out.fact + "'");
      return false;
    }
    return true;
  }
  switch (c.type) {
    case fact_type::boolean:
      if (!v.is_boolean()) break;
      out.flag = **v.as_boolean();
      out.text = *out.flag ? "true" : "false";
      return true;
    case fact_type::number:
      if (v.is_integer()) {
        out.number = static_cast<double>(**v.as_integer());
        out.text = std::to_string(**v.as_integer());
      } else if (v.is_floating_point()) {
        out.number = **v.as_floating_point();
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", *out.number);
        out.text = buf;
      } else if (v.is_string()) {
        out.number = parse_size(**v.as_string());
        out.text = **v.as_string();
      }
      if (!out.number) break;
      return true;
    case fact_type::version: {
      if (!v.is_string()) break;
      out.text = **v.as_string();
      std::string err;
      out.range = version_range::parse(version_op_prefix(c.op) + out.text, &err);
      if (!out.range) {
        ctx.error(v.source(), "bad version for '" + c.key + "': " + err);
        return false;
      }
      return true;
    }
    case fact_type::string:
      if (!v.is_string()) break;
      out.text = **v.as_string();
      return true;
  }
  ctx.error(v.source(), "'" + c.key + "' is a " + std::string(to_string(c.type)) +
                            " fact; this value does not fit it" + (c.type == fact_type::number ? " (use a number or a size like \"16GiB\")" : ""));
  return false;
}

bool parse_string_list(const condition& c, const toml::node& v, kb_parse_ctx& ctx, std::vector<operand>& out) {
  auto one = [&](const toml::node& n) {
    if (!n.is_string()) {
      ctx.error(n.source(), "expected a string pattern for '" + c.key + "'");
      return false;
    }
    out.push_back({});
    out.back().text = **n.as_string();
    return true;
  };
  if (const toml::array* a = v.as_array()) {
    if (a->empty()) {
      ctx.error(v.source(), "empty pattern list for '" + c.key + "'");
      return false;
    }
    bool ok = true;
    for (const toml::node& n : *a) ok = one(n) && ok;
    return ok;
  }
  return one(v);
}

bool parse_op(const std::string& key, const fact_info& info, cond_op op, const toml::node& v, kb_parse_ctx& ctx,
              std::vector<condition>& out) {
  condition c;
  c.key = key;
  c.type = info.type;
  c.op = op;
  c.pos = ctx.pos(v.source());
  const std::string tname(to_string(info.type));
  switch (op) {
    case cond_op::set:
      if (!v.is_boolean()) {
        ctx.error(v.source(), "'set' takes true or false");
        return false;
      }
      c.want_set = **v.as_boolean();
      break;
    case cond_op::lt: case cond_op::le: case cond_op::gt: case cond_op::ge:
      if (!ordered(info.type)) {
        ctx.error(v.source(), "'" + key + "' is a " + tname + " fact; lt/le/gt/ge need a number or version fact");
        return false;
      }
      [[fallthrough]];
    case cond_op::eq: case cond_op::ne: {
      operand o;
      if (!parse_operand(c, v, ctx, o)) return false;
      c.args.push_back(std::move(o));
      break;
    }
    case cond_op::glob: case cond_op::not_glob:
      if (info.type == fact_type::number || info.type == fact_type::boolean) {
        ctx.error(v.source(), "glob needs a string or version fact; '" + key + "' is a " + tname + " fact");
        return false;
      }
      if (!parse_string_list(c, v, ctx, c.args)) return false;
      break;
    case cond_op::regex: case cond_op::not_regex: {
      if (!v.is_string()) {
        ctx.error(v.source(), "regex takes one string");
        return false;
      }
      c.args.push_back({});
      c.args.back().text = **v.as_string();  // kept for docs/findings.md
      try {
        c.re = std::make_shared<const std::regex>(**v.as_string(), std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        ctx.error(v.source(), "bad regex for '" + key + "': " + e.what());
        return false;
      }
      break;
    }
    case cond_op::in: case cond_op::not_in: {
      const toml::array* a = v.as_array();
      if (!a || a->empty()) {
        ctx.error(v.source(), "'in' takes a non-empty array");
        return false;
      }
      condition eq = c;
      eq.op = cond_op::eq;
      for (const toml::node& n : *a) {
        operand o;
        if (n.is_table()) {
          ctx.error(n.source(), "'in' takes literals, not facts");
          return false;
        }
        if (!parse_operand(eq, n, ctx, o)) return false;
        c.args.push_back(std::move(o));
      }
      break;
    }
    case cond_op::version: {
      if (info.type != fact_type::version) {
        ctx.error(v.source(), "'version' needs a version fact; '" + key + "' is a " + tname + " fact");
        return false;
      }
      if (!v.is_string()) {
        ctx.error(v.source(), "'version' takes a range string such as \">=3.4.0,<3.7.1\"");
        return false;
      }
      std::string err;
      c.range = version_range::parse(**v.as_string(), &err);
      if (!c.range) {
        ctx.error(v.source(), "bad version range for '" + key + "': " + err);
        return false;
      }
      break;
    }
  }
  out.push_back(std::move(c));
  return true;
}

bool parse_entry(const std::string& key, const toml::node& v, const toml::source_region& key_pos, kb_parse_ctx& ctx,
                 std::vector<condition>& out) {
  const toml::table* t = v.as_table();
  auto info = lookup_fact(key, ctx.kb);
  // An operator table needs a known fact in front of it. Otherwise this is a namespace step,
  // which also covers keys whose last part is an operator name: `rocm.version = ">=7.2"` inside
  // an inline table arrives as rocm = { version = ">=7.2" }.
  bool op_table = t && is_operator_table(*t);
  if (op_table && !info) {
    bool all_known = true;
    for (auto&& [k, sub] : *t) all_known = all_known && lookup_fact(key + "." + std::string(k.str()), ctx.kb).has_value();
    if (!all_known) {
      ctx.error(key_pos, unknown_fact_message(key, ctx.kb));
      return false;
    }
    op_table = false;
  }
  if (t && !op_table) {
    if (t->empty()) {
      ctx.error(v.source(), "empty condition for '" + key + "'");
      return false;
    }
    bool ok = true;  // a namespace step: when.gpu = { arch = ... } or dotted keys
    for (auto&& [k, sub] : *t) ok = parse_entry(key + "." + std::string(k.str()), sub, k.source(), ctx, out) && ok;
    return ok;
  }
  if (!info) {
    ctx.error(key_pos, unknown_fact_message(key, ctx.kb));
    return false;
  }
  if (!t) return parse_shorthand(key, v, key_pos, ctx, out);
  bool ok = true;
  for (auto&& [k, opv] : *t) ok = parse_op(key, *info, *find_op(k.str()), opv, ctx, out) && ok;
  return ok;
}

}  // namespace

const std::vector<std::string_view>& condition_operator_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> out;
    for (const op_name& o : kOps) out.push_back(o.name);
    return out;
  }();
  return names;
}

std::string unknown_fact_message(const std::string& key, const kb_data* kb) {
  std::string best;
  size_t best_d = 3;
  auto consider = [&](std::string_view cand) {
    size_t d = edit_distance(key, cand);
    if (d < best_d) {
      best_d = d;
      best = std::string(cand);
    }
  };
  for (const builtin_fact_doc& d : builtin_fact_docs()) consider(d.key);
  if (kb)
    for (const derived_fact& d : kb->derived) consider(d.key);
  std::string msg = "unknown fact '" + key + "'";
  if (!best.empty()) msg += " (did you mean '" + best + "'?)";
  return msg;
}

bool parse_shorthand(const std::string& key, const toml::node& v, const toml::source_region& key_pos, kb_parse_ctx& ctx,
                     std::vector<condition>& out) {
  auto info = lookup_fact(key, ctx.kb);
  if (!info) {
    ctx.error(key_pos, unknown_fact_message(key, ctx.kb));
    return false;
  }
  // What a bare value means depends on the fact's type (docs/knowledge-base.md "Shorthands").
  if (v.is_boolean()) {
    if (info->type == fact_type::boolean) return parse_op(key, *info, cond_op::eq, v, ctx, out);
    return parse_op(key, *info, cond_op::set, v, ctx, out);
  }
  if (v.is_array()) {
    if (info->type == fact_type::string) return parse_op(key, *info, cond_op::glob, v, ctx, out);
    return parse_op(key, *info, cond_op::in, v, ctx, out);
  }
  if (v.is_string()) {
    if (info->type == fact_type::version) return parse_op(key, *info, cond_op::version, v, ctx, out);
    if (info->type == fact_type::string) return parse_op(key, *info, cond_op::glob, v, ctx, out);
  }
  if ((v.is_integer() || v.is_floating_point()) && info->type == fact_type::number)
    return parse_op(key, *info, cond_op::eq, v, ctx, out);
  ctx.error(v.source(), "this value does not fit '" + key + "', a " + std::string(to_string(info->type)) +
                            " fact; write an operator table such as { eq = ... }");
  return false;
}

bool parse_conditions(const toml::node& when, kb_parse_ctx& ctx, std::vector<condition>& out) {
  const toml::table* t = when.as_table();
  if (!t) {
    ctx.error(when.source(), "expected a table of conditions");
    return false;
  }
  if (t->empty()) {
    ctx.error(when.source(), "empty table of conditions");
    return false;
  }
  bool ok = true;
  for (auto&& [k, v] : *t) ok = parse_entry(std::string(k.str()), v, k.source(), ctx, out) && ok;
  return ok;
}

}  // namespace gs
