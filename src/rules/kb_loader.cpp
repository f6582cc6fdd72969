// Files -> kb_data. toml++ throws toml::parse_error on malformed TOML: caught here, at the
// parse boundary, and turned into an error with its position. Every other check reports the
// source position toml++ kept for the offending key or value, and goes on with the next rule.
#include "rules/kb_loader.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "rules/kb_parse.h"
#include "rules/text_template.h"

namespace gs {
namespace {

struct parsed_file {
  const kb_source* src;
  toml::table root;
};

bool valid_id(std::string_view id) {
  // GS-<AREA>-NNN: stable, never renumbered.
  if (id.size() < 8 || id.substr(0, 3) != "GS-") return false;
  size_t dash = id.find('-', 3);
  if (dash == std::string_view::npos || dash == 3 || id.size() - dash != 4) return false;
  for (size_t i = 3; i < dash; ++i)
    if (!std::isupper(static_cast<unsigned char>(id[i]))) return false;
  for (size_t i = dash + 1; i < id.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(id[i]))) return false;
  return true;
}

bool valid_derived_name(std::string_view k) {
  if (k.find('.') == std::string_view::npos || k.front() == '.' || k.back() == '.') return false;
  if (k.rfind("env.", 0) == 0 || k.rfind("pkg.", 0) == 0) return false;
  for (char c : k)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '.'))
      return false;
  return true;
}

/// Reject keys of `t` outside `allowed`, at the key's position.
bool check_keys(const toml::table& t, std::initializer_list<std::string_view> allowed, const char* what, kb_parse_ctx& ctx) {
  bool ok = true;
  for (auto&& [k, v] : t) {
    if (std::find(allowed.begin(), allowed.end(), k.str()) == allowed.end()) {
      std::string list;
      for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      ctx.error(k.source(), "unknown key '" + std::string(k.str()) + "' in " + what + " (known: " + list + ")");
      ok = false;
    }
  }
  return ok;
}

const std::string* get_string(const toml::table& t, std::string_view key, bool required, const toml::source_region& owner,
                              kb_parse_ctx& ctx, bool& ok) {
  const toml::node* n = t.get(key);
  if (!n) {
    if (required) {
      ctx.error(owner, "missing required key '" + std::string(key) + "'");
      ok = false;
    }
    return nullptr;
  }
  if (!n->is_string()) {
    ctx.error(n->source(), "'" + std::string(key) + "' must be a string");
    ok = false;
    return nullptr;
  }
  return &n->as_string()->get();
}

/// The highest N of a `match.N` fact the conditions read (0: none).
int captures_in(const std::vector<condition>& cs) {
  int n = 0;
  auto of = [](const std::string& key) { return capture_index(key.substr(0, std::min<size_t>(key.size(), 7))); };
  for (const condition& c : cs) {
    n = std::max(n, of(c.key));
    for (const operand& o : c.args)
      if (!o.fact.empty()) n = std::max(n, of(o.fact));
  }
  return n;
}

unsigned scopes_of(const std::vector<condition>& cs, const kb_data& kb) {
  unsigned s = 0;
  for (const condition& c : cs) {
    if (auto i = lookup_fact(c.key, &kb)) s |= i->scopes;
    for (const operand& o : c.args)
      if (!o.fact.empty())
        if (auto i = lookup_fact(o.fact, &kb)) s |= i->scopes;
  }
  return s;
}

bool parse_text_template(const toml::table& t, std::string_view key, bool required, const toml::source_region& owner,
                         kb_parse_ctx& ctx, text_template& out, unsigned& scopes, int& captures_used) {
  bool ok = true;
  const std::string* s = get_string(t, key, required, owner, ctx, ok);
  if (!s) return ok;
  const toml::source_region& where = t.get(key)->source();
  std::string err;
  size_t offset = 0;
  if (!parse_template(*s, out, err, offset)) {
    ctx.error(where, "bad " + std::string(key) + " template: " + err);
    return false;
  }
  for (const text_template::piece& p : out.pieces) {
    if (!p.is_fact) continue;
    if (int n = capture_index(p.text)) {  // checked against the rule's patterns once they are read
      captures_used = std::max(captures_used, n);
      continue;
    }
    auto info = lookup_fact(p.text, ctx.kb);
    if (!info) {
      ctx.error(where, "in " + std::string(key) + " template: " + unknown_fact_message(p.text, ctx.kb));
      ok = false;
    } else {
      scopes |= info->scopes;
    }
  }
  return ok;
}

std::optional<severity> get_severity(const toml::table& t, const toml::source_region& owner, kb_parse_ctx& ctx) {
  bool ok = true;
  const std::string* s = get_string(t, "severity", true, owner, ctx, ok);
  if (!s) return std::nullopt;
  auto sev = parse_severity(*s);
  if (!sev) ctx.error(t.get("severity")->source(), "bad severity '" + *s + "' (info, warn or fail)");
  return sev;
}

void load_packages(const parsed_file& f, kb_parse_ctx& ctx, kb_data& out) {
  const toml::node* n = f.root.get("packages");
  if (!n) return;
  const toml::table* t = n->as_table();
  if (!t) {
    ctx.error(n->source(), "'packages' must be a table of name = [distributions]");
    return;
  }
  for (auto&& [k, v] : *t) {
    std::string name = normalize_package_name(k.str());
    const toml::array* a = v.as_array();
    if (!a || a->empty()) {
      ctx.error(v.source(), "package group '" + name + "' must be a non-empty array of distribution names");
      continue;
    }
    if (out.package_groups.count(name)) {
      ctx.error(k.source(), "package group '" + name + "' is defined twice");
      continue;
    }
    std::vector<std::string> dists;
    bool ok = true;
    for (const toml::node& d : *a) {
      if (!d.is_string()) {
        ctx.error(d.source(), "distribution names are strings");
        ok = false;
      } else {
        dists.push_back(normalize_package_name(**d.as_string()));
      }
    }
    if (ok) out.package_groups[name] = std::move(dists);
  }
}

void load_derive(const toml::table& t, kb_parse_ctx& ctx, kb_data& out) {
  const toml::source_region& where = t.source();
  bool ok = check_keys(t, {"fact", "type", "doc", "from", "rows"}, "[[derive]]", ctx);
  derived_fact d;
  d.pos = ctx.pos(where);
  const std::string* key = get_string(t, "fact", true, where, ctx, ok);
  if (key) {
    d.key = *key;
    if (!valid_derived_name(d.key)) {
      ctx.error(t.get("fact")->source(), "derived fact name '" + d.key + "' must be lower_case.dotted and not under env. or pkg.");
      ok = false;
    } else if (lookup_fact(d.key, &out)) {
      ctx.error(t.get("fact")->source(), "fact '" + d.key + "' already exists");
      ok = false;
    }
  }
  if (const std::string* type = get_string(t, "type", false, where, ctx, ok)) {
    static const std::map<std::string, fact_type> types = {
        {"string", fact_type::string}, {"version", fact_type::version}, {"number", fact_type::number}, {"bool", fact_type::boolean}};
    auto it = types.find(*type);
    if (it == types.end()) {
      ctx.error(t.get("type")->source(), "bad type '" + *type + "' (string, version, number or bool)");
      ok = false;
    } else {
      d.type = it->second;
    }
  }
  if (const std::string* doc = get_string(t, "doc", false, where, ctx, ok)) d.doc = *doc;
  const std::string* from = get_string(t, "from", false, where, ctx, ok);
  if (from && !lookup_fact(*from, &out)) {
    ctx.error(t.get("from")->source(), unknown_fact_message(*from, &out));
    ok = false;
    from = nullptr;
  }
  const toml::array* rows = t.get("rows") ? t.get("rows")->as_array() : nullptr;
  if (!rows || rows->empty()) {
    ctx.error(t.get("rows") ? t.get("rows")->source() : where, "a [[derive]] needs a non-empty 'rows' array");
    return;
  }
  for (const toml::node& rn : *rows) {
    const toml::table* r = rn.as_table();
    if (!r) {
      ctx.error(rn.source(), "each row is a table { match = ..., when = {...}, value = ... }");
      ok = false;
      continue;
    }
    ok = check_keys(*r, {"match", "when", "value", "note"}, "a derive row", ctx) && ok;
    derived_fact::row row;
    if (const toml::node* m = r->get("match")) {
      if (!from) {
        ctx.error(m->source(), "'match' needs 'from' on the [[derive]]");
        ok = false;
      } else {
        ok = parse_shorthand(*from, *m, m->source(), ctx, row.when) && ok;
      }
    }
    if (const toml::node* w = r->get("when")) ok = parse_conditions(*w, ctx, row.when) && ok;
    const toml::node* value = r->get("value");
    if (!value) {
      ctx.error(rn.source(), "row without 'value'");
      ok = false;
      continue;
    }
    if (value->is_string()) row.value = **value->as_string();
    else if (value->is_integer()) row.value = std::to_string(**value->as_integer());
    else if (value->is_floating_point()) row.value = std::to_string(**value->as_floating_point());
    else if (value->is_boolean()) row.value = **value->as_boolean() ? "true" : "false";
    if (d.type == fact_type::version && !version::parse(row.value)) {
      ctx.error(value->source(), "'" + row.value + "' is not a version");
      ok = false;
    }
    d.scopes |= scopes_of(row.when, out);
    d.rows.push_back(std::move(row));
  }
  if (ok) out.derived.push_back(std::move(d));
}

/// match_text, match_requires and match_excludes share one form: an array of patterns.
bool load_match_text(const toml::node& n, std::string_view key, kb_parse_ctx& ctx, std::vector<text_pattern>& out) {
  const toml::array* a = n.as_array();
  if (!a || a->empty()) {
    ctx.error(n.source(), "'" + std::string(key) + "' is a non-empty array of strings or { regex = \"...\" }");
    return false;
  }
  bool ok = true;
  for (const toml::node& p : *a) {
    text_pattern tp;
    if (p.is_string()) {
      tp.text = **p.as_string();
    } else if (const toml::table* t = p.as_table(); t && t->size() == 1 && t->get("regex") && t->get("regex")->is_string()) {
      tp.text = **t->get("regex")->as_string();
      tp.anchors = regex_anchors(tp.text);
      try {
        tp.re = std::make_shared<const std::regex>(tp.text, std::regex::ECMAScript | std::regex::icase);
      } catch (const std::regex_error& e) {
        ctx.error(t->get("regex")->source(), std::string("bad regex: ") + e.what());
        ok = false;
        continue;
      }
    } else {
      ctx.error(p.source(), "a match_text pattern is a string or { regex = \"...\" }");
      ok = false;
      continue;
    }
    if (tp.text.empty()) {
      ctx.error(p.source(), "empty match_text pattern");
      ok = false;
      continue;
    }
    out.push_back(std::move(tp));
  }
  return ok;
}

void load_rule(const toml::table& t, kb_parse_ctx& ctx, kb_data& out, std::map<std::string, source_pos>& ids) {
  const toml::source_region& where = t.source();
  bool ok = check_keys(t, {"id", "severity", "title", "evidence", "remediation", "refs", "why", "when", "unless",
                           "escalate", "match_text", "match_requires", "match_excludes", "facts_alone", "when_shown",
                           "supersedes", "fallback", "last_resort"}, "[[rule]]", ctx);
  rule r;
  r.pos = ctx.pos(where);
  if (const std::string* id = get_string(t, "id", true, where, ctx, ok)) {
    r.id = *id;
    if (!valid_id(r.id)) {
      ctx.error(t.get("id")->source(), "bad id '" + r.id + "' (GS-<AREA>-NNN, e.g. GS-ENV-001)");
      ok = false;
    } else if (auto prev = ids.find(r.id); prev != ids.end()) {
      ctx.error(t.get("id")->source(), "duplicate id '" + r.id + "' (first at " + prev->second.path + ":" +
                                           std::to_string(prev->second.line) + ")");
      ok = false;
    } else {
      ids[r.id] = r.pos;
    }
  }
  auto sev = get_severity(t, where, ctx);
  ok = ok && sev.has_value();
  if (sev) r.level = *sev;
  if (const std::string* title = get_string(t, "title", true, where, ctx, ok)) r.title = *title;
  if (const std::string* why = get_string(t, "why", false, where, ctx, ok)) r.why = *why;
  ok = parse_text_template(t, "evidence", true, where, ctx, r.evidence, r.scopes, r.captures_used) && ok;
  ok = parse_text_template(t, "remediation", true, where, ctx, r.remediation, r.scopes, r.captures_used) && ok;
  if (const toml::node* refs = t.get("refs")) {
    const toml::array* a = refs->as_array();
    if (!a) {
      ctx.error(refs->source(), "'refs' is an array of strings");
      ok = false;
    } else {
      for (const toml::node& n : *a) {
        if (n.is_string()) r.refs.push_back(**n.as_string());
        else {
          ctx.error(n.source(), "'refs' is an array of strings");
          ok = false;
        }
      }
    }
  }
  if (const toml::node* sup = t.get("supersedes")) {
    const toml::array* a = sup->as_array();
    bool good = a != nullptr;
    if (a)
      for (const toml::node& n : *a) {
        if (n.is_string() && valid_id(**n.as_string()) && **n.as_string() != r.id) {
          r.supersedes.push_back(**n.as_string());
        } else {
          good = false;
          ctx.error(n.source(), "'supersedes' names other rules' ids (GS-<AREA>-NNN), not this rule's own");
        }
      }
    else ctx.error(sup->source(), "'supersedes' is an array of rule ids");
    ok = good && ok;
  }
  if (const toml::node* w = t.get("when")) ok = parse_conditions(*w, ctx, r.when) && ok;
  if (const toml::node* u = t.get("unless")) ok = parse_conditions(*u, ctx, r.unless) && ok;
  if (const toml::node* w = t.get("when_shown")) {
    ok = parse_conditions(*w, ctx, r.when_shown) && ok;
    if (!t.get("match_text")) {
      ctx.error(w->source(), "'when_shown' narrows 'match_text': the rule has none (use 'when')");
      ok = false;
    }
  }
  if (const toml::node* m = t.get("match_text")) ok = load_match_text(*m, "match_text", ctx, r.match_text) && ok;
  if (const toml::node* m = t.get("match_requires"))
    ok = load_match_text(*m, "match_requires", ctx, r.match_requires) && ok;
  if (const toml::node* m = t.get("match_excludes"))
    ok = load_match_text(*m, "match_excludes", ctx, r.match_excludes) && ok;
  if (!t.get("when") && !t.get("match_text")) {
    ctx.error(where, "a rule needs 'when' conditions, 'match_text' patterns, or both");
    ok = false;
  }
  // The rule's boolean switches: each is true or false, some only beside 'match_text' (and 'when').
  auto flag = [&](const char* key, bool& into, bool needs_text, bool needs_when, const char* needs) {
    const toml::node* n = t.get(key);
    if (!n) return;
    if (!n->is_boolean() || (needs_text && !t.get("match_text")) || (needs_when && !t.get("when"))) {
      ctx.error(n->source(), std::string("'") + key + "' is true or false" + needs);
      ok = false;
      return;
    }
    into = **n->as_boolean();
  };
  flag("facts_alone", r.facts_alone, true, true, ", for a rule with both 'when' and 'match_text'");
  flag("fallback", r.fallback, true, false, ", for a rule with 'match_text'");
  flag("last_resort", r.last_resort, false, false, "");
  if ((t.get("match_requires") || t.get("match_excludes")) && !t.get("match_text")) {
    ctx.error(where, "'match_requires' and 'match_excludes' narrow 'match_text': the rule has none");
    ok = false;
  }
  if (const toml::node* e = t.get("escalate")) {
    const toml::array* a = e->as_array();
    if (!a) {
      ctx.error(e->source(), "'escalate' is an array of tables ([[rule.escalate]])");
      ok = false;
    } else {
      for (const toml::node& en : *a) {
        const toml::table* et = en.as_table();
        if (!et) {
          ctx.error(en.source(), "each escalation is a table with 'when' and 'severity'");
          ok = false;
          continue;
        }
        ok = check_keys(*et, {"when", "severity", "evidence"}, "an escalation", ctx) && ok;
        escalation esc;
        auto es = get_severity(*et, et->source(), ctx);
        ok = ok && es.has_value();
        if (es) esc.level = *es;
        if (const toml::node* w = et->get("when")) ok = parse_conditions(*w, ctx, esc.when) && ok;
        else {
          ctx.error(et->source(), "missing required key 'when'");
          ok = false;
        }
        if (et->get("evidence")) {
          esc.evidence.emplace();
          ok = parse_text_template(*et, "evidence", false, et->source(), ctx, *esc.evidence, r.scopes, r.captures_used) && ok;
        }
        r.scopes |= scopes_of(esc.when, out);
        r.escalate.push_back(std::move(esc));
      }
    }
  }
  r.scopes |= scopes_of(r.when, out) | scopes_of(r.unless, out) | scopes_of(r.when_shown, out);
  for (const std::vector<condition>* cs : {&r.when, &r.unless, &r.when_shown})
    r.captures_used = std::max(r.captures_used, captures_in(*cs));
  for (const escalation& e : r.escalate) r.captures_used = std::max(r.captures_used, captures_in(e.when));
  // {match.N} names what the error text captured, so every pattern that can fire the rule must
  // be a regex with at least N groups, and the rule cannot fire from facts alone.
  if (r.captures_used > 0) {
    std::string why;
    if (r.match_text.empty() || r.facts_alone) why = "it needs 'match_text' and no 'facts_alone'";
    for (const text_pattern& p : r.match_text)
      if (why.empty() && (!p.re || static_cast<int>(p.re->mark_count()) < r.captures_used))
        why = "match_text pattern \"" + p.text + "\" has fewer than " + std::to_string(r.captures_used) + " capture groups";
    if (!why.empty()) {
      ctx.error(where, "{match." + std::to_string(r.captures_used) + "} is a capture group of the matching regex: " + why);
      ok = false;
    }
  }
  if (ok) out.rules.push_back(std::move(r));
}

/// Each element of the array-of-tables `name` in `root`, or an error when it is not one.
template <typename Fn>
void for_each_table(const toml::table& root, std::string_view name, kb_parse_ctx& ctx, Fn&& fn) {
  const toml::node* n = root.get(name);
  if (!n) return;
  const toml::array* a = n->as_array();
  if (!a) {
    ctx.error(n->source(), "'" + std::string(name) + "' must be an array of tables ([[" + std::string(name) + "]])");
    return;
  }
  for (const toml::node& e : *a) {
    if (const toml::table* t = e.as_table()) fn(*t);
    else ctx.error(e.source(), "'" + std::string(name) + "' entries must be tables");
  }
}

}  // namespace

void load_kb(const std::vector<kb_source>& sources, kb_data& out, std::vector<kb_error>& errors) {
  std::vector<parsed_file> files;
  for (const kb_source& src : sources) {
    kb_parse_ctx ctx{src.path, &errors, &out};
    toml::table root;
    try {
      root = toml::parse(src.text, src.path);
    } catch (const toml::parse_error& e) {
      errors.push_back({src.path, static_cast<int>(e.source().begin.line), static_cast<int>(e.source().begin.column),
                        "TOML parse error: " + std::string(e.description())});
      continue;
    }
    bool keys_ok = check_keys(root, {"schema", "rule", "derive", "packages"}, "the file's top level", ctx);
    const toml::node* schema = root.get("schema");
    if (!schema) {
      errors.push_back({src.path, 1, 1, "missing 'schema = 1' at the top of the file"});
      continue;
    }
    if (!schema->is_integer() || **schema->as_integer() != 1) {
      ctx.error(schema->source(), "unsupported schema (this gpustack reads schema = 1)");
      continue;
    }
    (void)keys_ok;  // unknown top-level keys are reported; the known parts still load
    files.push_back({&src, std::move(root)});
  }
  for (const parsed_file& f : files) {
    kb_parse_ctx ctx{f.src->path, &errors, &out};
    load_packages(f, ctx, out);
  }
  for (const parsed_file& f : files) {
    kb_parse_ctx ctx{f.src->path, &errors, &out};
    for_each_table(f.root, "derive", ctx, [&](const toml::table& t) { load_derive(t, ctx, out); });
  }
  std::map<std::string, source_pos> ids;
  for (const parsed_file& f : files) {
    kb_parse_ctx ctx{f.src->path, &errors, &out};
    for_each_table(f.root, "rule", ctx, [&](const toml::table& t) { load_rule(t, ctx, out, ids); });
  }
  // Only now are all ids known: a superseded id must exist (a typo would silently do nothing).
  for (const rule& r : out.rules)
    for (const std::string& id : r.supersedes)
      if (!ids.count(id))
        errors.push_back({r.pos.path, r.pos.line, r.pos.column,
                          r.id + ": 'supersedes' names " + id + ", which no rule has"});
}

}  // namespace gs
