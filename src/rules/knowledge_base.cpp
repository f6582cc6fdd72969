// Evaluating the knowledge base: each rule runs once per combination of the scope elements it
// uses (a rule about gpu.arch runs per GPU, one about dev.error per device node), so a finding
// names the GPU or node it is about; identical findings are merged.
#include "rules/knowledge_base.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "core/assets.h"
#include "core/text_scan.h"
#include "rules/condition.h"
#include "rules/fact_resolver.h"
#include "rules/kb_loader.h"
#include "rules/rule.h"
#include "rules/text_template.h"

namespace gs {
namespace {

// A probe's stderr can be megabytes; matching is per line, and only this much is looked at.
constexpr size_t kMaxMatchText = 1 << 20;
constexpr size_t kMaxMatchLine = 4096;

/// Calls fn once per combination of the scope elements `scopes` asks for. A scope that is
/// used but empty on this machine contributes one null element, so "no such thing" can
/// still be tested (e.g. `gpu.vendor = { set = false }`).
void for_each_context(unsigned scopes, const machine_facts& facts, const kb_data& kb,
                      const std::vector<alloc_entry>& allocs, const std::function<void(const fact_context&)>& fn) {
  auto uses = [&](fact_scope s) { return (scopes & static_cast<unsigned>(s)) != 0; };
  size_t n_gpu = uses(fact_scope::gpu) ? std::max<size_t>(1, facts.gpus.size()) : 1;
  size_t n_dev = uses(fact_scope::dev) ? std::max<size_t>(1, facts.access.size()) : 1;
  size_t n_issue = uses(fact_scope::issue) ? std::max<size_t>(1, facts.issues.size()) : 1;
  size_t n_alloc = uses(fact_scope::alloc) ? std::max<size_t>(1, allocs.size()) : 1;
  for (size_t g = 0; g < n_gpu; ++g)
    for (size_t d = 0; d < n_dev; ++d)
      for (size_t i = 0; i < n_issue; ++i)
        for (size_t a = 0; a < n_alloc; ++a) {
          fact_context ctx;
          ctx.facts = &facts;
          ctx.kb = &kb;
          if (uses(fact_scope::gpu) && g < facts.gpus.size()) {
            ctx.gpu = &facts.gpus[g];
            ctx.gpu_index = static_cast<int>(g);
          }
          if (uses(fact_scope::dev) && d < facts.access.size()) ctx.dev = &facts.access[d];
          if (uses(fact_scope::issue) && i < facts.issues.size()) ctx.issue = &facts.issues[i];
          if (uses(fact_scope::alloc) && a < allocs.size()) ctx.alloc = &allocs[a];
          fn(ctx);
        }
}

finding make_finding(const rule& r, const fact_context& ctx) {
  finding f;
  f.id = r.id;
  f.level = r.level;
  f.title = r.title;
  const text_template* evidence = &r.evidence;
  for (const escalation& e : r.escalate) {
    if (conditions_hold(e.when, ctx)) {
      f.level = e.level;
      if (e.evidence) evidence = &*e.evidence;
      break;
    }
  }
  f.evidence = render_template(*evidence, ctx);
  // A fix that needs a fact the input did not show is not printed with a hole in it: the
  // finding says which fact is missing instead (pasted text only; live facts are complete).
  std::vector<std::string> missing;
  f.remediation = render_template(r.remediation, ctx, &missing);
  if (!missing.empty()) {
    f.remediation.clear();
    for (std::string& k : missing)
      if (std::find(f.unknown_facts.begin(), f.unknown_facts.end(), k) == f.unknown_facts.end())
        f.unknown_facts.push_back(std::move(k));
  }
  f.refs = r.refs;
  f.rule_source = r.pos.path + ":" + std::to_string(r.pos.line);
  return f;
}

/// Every context in which the rule fires.
void fire(const rule& r, const machine_facts& facts, const kb_data& kb, const std::vector<alloc_entry>& allocs,
          std::vector<finding>& out) {
  for_each_context(r.scopes, facts, kb, allocs, [&](const fact_context& ctx) {
    if (!conditions_hold(r.when, ctx)) return;
    if (!r.unless.empty() && conditions_hold(r.unless, ctx)) return;
    // A facts_alone text rule fires here without its text: what it needs shown must be shown too.
    if (!r.when_shown.empty() && conditions_truth(r.when_shown, ctx) != truth::yes) return;
    out.push_back(make_finding(r, ctx));
  });
}

void sort_and_dedupe(std::vector<finding>& fs) {
  std::stable_sort(fs.begin(), fs.end(), [](const finding& a, const finding& b) {
    if (severity_rank(a.level) != severity_rank(b.level)) return severity_rank(a.level) < severity_rank(b.level);
    if (a.id != b.id) return a.id < b.id;
    return a.evidence < b.evidence;
  });
  std::set<std::string> seen;
  std::vector<finding> out;
  for (finding& f : fs) {
    std::string key = f.id + '\x1f' + std::string(to_string(f.level)) + '\x1f' + f.evidence + '\x1f' + f.remediation;
    if (seen.insert(key).second) out.push_back(std::move(f));
  }
  fs = std::move(out);
}

using scan::lower;

std::string trimmed_evidence(std::string_view line) {
  std::string s(line);
  s.erase(0, s.find_first_not_of(" \t\r"));
  s.erase(s.find_last_not_of(" \t\r") + 1);
  if (s.size() > 200) s = s.substr(0, 197) + "...";
  return s;
}

/// The text with each wrapped log line also given whole. Log formatters (rich, loguru, Python's
/// logging with a column layout) wrap a long message onto continuation lines indented to the
/// message column, so "Error loading" and '"...\\fbgemm.dll" or one of its dependencies.' land on
/// two lines and no one-line pattern sees both. A line followed by one indented 12 columns or more
/// (a traceback indents 2 and 4) gets, after that continuation, one more line: the two joined.
/// The originals stay, so nothing that matched before stops matching.
std::string with_wrapped_lines_joined(std::string_view text) {
  auto indent = [](std::string_view l) {
    size_t n = 0;
    while (n < l.size() && (l[n] == ' ' || l[n] == '\t')) n += l[n] == '\t' ? 8 : 1;
    return n;
  };
  std::vector<std::string_view> lines = scan::split(text, '\n');
  std::string out;
  out.reserve(text.size() + 256);
  for (size_t i = 0; i < lines.size(); ++i) {
    out.append(lines[i]);
    if (i + 1 < lines.size()) out.push_back('\n');
    if (i == 0) continue;
    std::string_view prev = lines[i - 1], cur = lines[i];
    std::string_view prev_t = scan::trim(prev), cur_t = scan::trim(cur);
    if (prev_t.empty() || cur_t.empty() || indent(cur) < 12 || indent(prev) >= indent(cur)) continue;
    out.append(prev_t).push_back(' ');
    out.append(cur_t);
    if (i + 1 < lines.size()) out.push_back('\n');
  }
  return out;
}

/// The first line of `text` a pattern matches (at most kMaxMatchLine bytes); nullopt when none does.
/// Substrings are searched in the whole lower-cased text at once; a regex only runs on lines
/// that hold its anchor (text_pattern::anchor, a literal every match contains), because
/// std::regex costs microseconds a line and a pasted training log has tens of thousands.
std::optional<std::string> match_line(const text_pattern& p, std::string_view text, std::string_view lowered) {
  auto line_at = [&](size_t at, size_t& begin, size_t& end) {
    size_t nl = text.rfind('\n', at);
    begin = nl == std::string_view::npos ? 0 : nl + 1;
    end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
  };
  auto regex_hits = [&](std::string_view line) {
    std::string l(line.substr(0, kMaxMatchLine));
    try {
      return std::regex_search(l, *p.re);
    } catch (const std::regex_error&) {
      return false;  // complexity limits: no match rather than a crash
    }
  };
  if (p.re && p.anchors.empty()) {  // a regex with no anchor: every line
    for (size_t pos = 0; pos <= text.size();) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      if (regex_hits(text.substr(pos, end - pos))) return std::string(text.substr(pos, std::min(end - pos, kMaxMatchLine)));
      if (end == text.size()) break;
      pos = end + 1;
    }
    return std::nullopt;
  }
  // The earliest matching line over every needle (a substring pattern has one: itself).
  const std::vector<std::string> needles = p.re ? p.anchors : std::vector<std::string>{lower(p.text)};
  size_t best_begin = std::string_view::npos, best_end = 0;
  for (const std::string& needle : needles) {
    for (size_t at = lowered.find(needle); at != std::string_view::npos && at < best_begin;) {
      size_t begin = 0, end = 0;
      line_at(at, begin, end);
      if (!p.re || regex_hits(text.substr(begin, end - begin))) {
        best_begin = begin;
        best_end = end;
        break;
      }
      at = end >= lowered.size() ? std::string_view::npos : lowered.find(needle, end + 1);
    }
  }
  if (best_begin == std::string_view::npos) return std::nullopt;
  return std::string(text.substr(best_begin, std::min(best_end - best_begin, kMaxMatchLine)));
}

/// Groups 1..N of `p`'s regex on the matched line, each trimmed and cut to a phrase's length
/// (a capture is printed inside a sentence: a symbol, a package, a version).
std::vector<std::string> captures_of(const text_pattern& p, const std::string& line) {
  std::vector<std::string> out;
  if (!p.re) return out;
  std::smatch m;
  try {
    if (!std::regex_search(line, m, *p.re)) return out;
  } catch (const std::regex_error&) {
    return out;
  }
  for (size_t g = 1; g < m.size(); ++g) {
    std::string c = m[g].matched ? trimmed_evidence(m[g].str()) : "";
    // An issue body's Markdown around a value ("**148**", "`gfx1032`") is no part of it: a fix
    // that prints the capture must not carry the asterisks into a command.
    while (c.size() >= 2 && (c.front() == '*' || c.front() == '`') && c.back() == c.front())
      c = c.substr(1, c.size() - 2);
    if (c.size() > 120) c = c.substr(0, 117) + "...";
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

std::string kb_error::to_string() const {
  return path + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

std::vector<kb_source> builtin_kb_sources() {
  std::vector<kb_source> out;
  for (const asset& a : assets_under("matrix/rules/"))
    if (std::string_view(a.path).ends_with(".toml")) out.push_back({a.path, std::string(a.text)});
  return out;
}

knowledge_base::knowledge_base() : data_(std::make_unique<kb_data>()) {}
knowledge_base::~knowledge_base() = default;
knowledge_base::knowledge_base(knowledge_base&& o) noexcept : data_(std::move(o.data_)) {
  o.data_ = std::make_unique<kb_data>();
}
knowledge_base& knowledge_base::operator=(knowledge_base&& o) noexcept {
  std::swap(data_, o.data_);
  return *this;
}

knowledge_base knowledge_base::load(const std::vector<kb_source>& sources, std::vector<kb_error>& errors) {
  knowledge_base kb;
  load_kb(sources, *kb.data_, errors);
  return kb;
}

knowledge_base knowledge_base::load_builtin(std::vector<kb_error>& errors) { return load(builtin_kb_sources(), errors); }

std::vector<finding> knowledge_base::evaluate(const machine_facts& facts) const {
  std::vector<alloc_entry> allocs = alloc_entries(facts);
  std::vector<finding> out;
  for (const rule& r : data_->rules)
    if (!r.when.empty() && (r.match_text.empty() || r.facts_alone)) fire(r, facts, *data_, allocs, out);
  sort_and_dedupe(out);
  drop_superseded(out);
  drop_last_resorts(out);
  return out;
}

void knowledge_base::drop_superseded(std::vector<finding>& fs) const {
  std::set<std::string> dropped;
  for (const finding& f : fs)
    for (const rule& r : data_->rules)
      if (r.id == f.id) dropped.insert(r.supersedes.begin(), r.supersedes.end());
  if (dropped.empty()) return;
  std::erase_if(fs, [&](const finding& f) { return dropped.count(f.id) > 0; });
}

void knowledge_base::drop_last_resorts(std::vector<finding>& fs) const {
  std::set<std::string> last;
  for (const rule& r : data_->rules)
    if (r.last_resort) last.insert(r.id);
  if (last.empty()) return;
  const bool specific = std::any_of(fs.begin(), fs.end(), [&](const finding& f) {
    return !last.count(f.id) && (f.level == severity::fail || f.level == severity::warn);
  });
  if (specific) std::erase_if(fs, [&](const finding& f) { return last.count(f.id) > 0; });
}

std::vector<finding> knowledge_base::match_error_text(std::string_view text, const machine_facts& facts) const {
  const std::string joined = with_wrapped_lines_joined(text.substr(0, kMaxMatchText));
  text = joined;
  std::string lowered = lower(text);
  std::vector<alloc_entry> allocs = alloc_entries(facts);
  auto anywhere = [&](const text_pattern& p) { return match_line(p, text, lowered).has_value(); };
  std::vector<finding> out;
  std::map<std::string, std::string> fallback_line;  // fallback rule id -> the line it matched (one per rule)
  std::set<std::string> specific_lines;              // lines that a rule other than a fallback matched
  for (const rule& r : data_->rules) {
    std::optional<std::string> line;
    const text_pattern* hit = nullptr;
    for (const text_pattern& p : r.match_text) {
      if ((line = match_line(p, text, lowered))) {
        hit = &p;
        break;
      }
    }
    if (!hit) continue;
    if (!std::all_of(r.match_requires.begin(), r.match_requires.end(), anywhere)) continue;
    if (std::any_of(r.match_excludes.begin(), r.match_excludes.end(), anywhere)) continue;
    std::string matched = "error text matched \"" + hit->text + "\": " + trimmed_evidence(*line);
    std::vector<std::string> captures = r.captures_used ? captures_of(*hit, *line) : std::vector<std::string>{};
    // The text is the evidence; the rule's conditions can only take it back. A condition the
    // facts show to be false silences the rule (a gfx12 pipeliner rule on an NVIDIA card); one
    // they cannot decide (pasted text that does not name the GPU) leaves it standing, listed as
    // unknown so the user knows what would confirm it.
    for_each_context(r.scopes, facts, *data_, allocs, [&](const fact_context& scoped) {
      fact_context ctx = scoped;
      ctx.captures = &captures;  // match.N facts: what the line itself says
      std::vector<std::string> unknown;
      truth when = conditions_truth(r.when, ctx, &unknown);
      if (when == truth::no) return;
      if (!r.when_shown.empty() && conditions_truth(r.when_shown, ctx) != truth::yes) return;
      if (!r.unless.empty() && conditions_truth(r.unless, ctx) == truth::yes) return;
      finding f = make_finding(r, ctx);
      if (r.fallback)
        fallback_line[r.id] = *line;
      else
        specific_lines.insert(*line);
      // The rule's own evidence is shown when its conditions were seen to hold or when it is
      // built from the match itself ({match.N}); otherwise the matched line says it all.
      bool own = (when == truth::yes && !r.when.empty()) || r.captures_used > 0;
      f.evidence = own ? f.evidence + "; " + matched : matched;
      for (std::string& k : unknown)
        if (std::find(f.unknown_facts.begin(), f.unknown_facts.end(), k) == f.unknown_facts.end())
          f.unknown_facts.push_back(std::move(k));
      out.push_back(std::move(f));
    });
  }
  // A fallback reads a kind of line generically; a rule that matched the very same line knows it better.
  std::erase_if(out, [&](const finding& f) {
    auto fb = fallback_line.find(f.id);
    return fb != fallback_line.end() && specific_lines.count(fb->second) > 0;
  });
  sort_and_dedupe(out);
  drop_superseded(out);
  drop_last_resorts(out);
  return out;
}

size_t knowledge_base::size() const { return data_->rules.size(); }
const std::vector<rule>& knowledge_base::rules() const { return data_->rules; }

}  // namespace gs
