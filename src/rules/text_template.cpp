// Template parsing and rendering for evidence and remediation lines.
#include "rules/text_template.h"

#include <cstdio>

#include "rules/fact_resolver.h"

namespace gs {

int capture_index(std::string_view key) {
  if (key.size() == 7 && key.rfind("match.", 0) == 0 && key[6] >= '1' && key[6] <= '9') return key[6] - '0';
  return 0;
}

bool valid_template_format(std::string_view f) { return f.empty() || f == "gib" || f == "mib"; }

bool parse_template(std::string_view text, text_template& out, std::string& error, size_t& offset) {
  out.pieces.clear();
  out.source = std::string(text);
  std::string literal;
  auto flush = [&] {
    if (!literal.empty()) out.pieces.push_back({false, std::move(literal), ""});
    literal.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char ch = text[i];
    if (ch == '{' && i + 1 < text.size() && text[i + 1] == '{') {
      literal += '{';
      ++i;
    } else if (ch == '}' && i + 1 < text.size() && text[i + 1] == '}') {
      literal += '}';
      ++i;
    } else if (ch == '{') {
      size_t close = text.find('}', i + 1);
      if (close == std::string_view::npos) {
        error = "'{' without a closing '}'";
        offset = i;
        return false;
      }
      std::string_view inner = text.substr(i + 1, close - i - 1);
      std::string_view key = inner, format;
      if (size_t colon = inner.find(':'); colon != std::string_view::npos) {
        key = inner.substr(0, colon);
        format = inner.substr(colon + 1);
      }
      if (key.empty() || key.find('{') != std::string_view::npos) {
        error = "empty or nested placeholder '{" + std::string(inner) + "}'";
        offset = i;
        return false;
      }
      if (!valid_template_format(format)) {
        error = "unknown placeholder format ':" + std::string(format) + "' (known: gib, mib)";
        offset = i;
        return false;
      }
      flush();
      out.pieces.push_back({true, std::string(key), std::string(format)});
      i = close;
    } else if (ch == '}') {
      error = "'}' without an opening '{' (write '}}' for a literal brace)";
      offset = i;
      return false;
    } else {
      literal += ch;
    }
  }
  flush();
  return true;
}

std::string render_template(const text_template& t, const fact_context& ctx, std::vector<std::string>* unknown) {
  std::string out;
  for (const text_template::piece& p : t.pieces) {
    if (!p.is_fact) {
      out += p.text;
      continue;
    }
    if (int n = capture_index(p.text)) {
      const std::vector<std::string>* c = ctx.captures;
      if (c && static_cast<size_t>(n) <= c->size() && !(*c)[n - 1].empty()) {
        out += (*c)[n - 1];
      } else {
        out += "(not shown)";
        if (unknown) unknown->push_back(p.text);
      }
      continue;
    }
    std::optional<fact_value> v = resolve_fact(p.text, ctx);
    if (fact_is_unknown(p.text, ctx, v.has_value()) && p.text.rfind("gpus.", 0) == 0 && v && v->number >= 1) {
      out += "at least " + v->text;  // a paste that names GPUs shows a lower bound on the counts
    } else if (fact_is_unknown(p.text, ctx, v.has_value())) {
      out += "(not shown)";
      if (unknown) unknown->push_back(p.text);
    } else if (!v) {
      out += p.text.rfind("env.", 0) == 0 ? "(unset)" : p.text.rfind("pkg.", 0) == 0 ? "(not installed)" : "(unknown)";
    } else if (!p.format.empty() && v->type == fact_type::number) {
      char buf[64];
      double div = p.format == "gib" ? 1073741824.0 : 1048576.0;
      std::snprintf(buf, sizeof buf, "%.1f %s", v->number / div, p.format == "gib" ? "GiB" : "MiB");
      out += buf;
    } else {
      out += v->text;
    }
  }
  return out;
}

}  // namespace gs
