// The matrix file format (docs/matrix.md):
//
//   schema = 1
//   reports = ["<sha256 of a merged report>", ...]
//   [[stack]]
//   id = "<fingerprint_id>"          # informational, recomputed on load
//   note = "..."
//   [stack.fingerprint]
//   arch = "gfx1201"  ...            # a component left out reads as "*" (not recorded)
//   [[stack.cell]]
//   probe = "fla.native.stages2"  status = "hang"  date = "..."  runs = 1  detail = "..."
//
// Written by hand-rolled code rather than toml++'s formatter so the file stays ASCII (escapes
// for everything else), keeps its layout and comments, and reads well in a diff.
#include <toml++/toml.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "core/status.h"
#include "core/file_io.h"
#include "matrix/matrix.h"
#include "report/redact.h"

namespace gs {
namespace {

struct matrix_ctx {
  std::string_view path;
  std::vector<matrix_error>& errors;
  void error(const toml::source_region& at, std::string msg) {
    errors.push_back({std::string(path), int(at.begin.line), int(at.begin.column), std::move(msg)});
  }
};

/// Printable ASCII plus tab/CR/LF only: see parse_matrix in matrix.h for why.
bool ascii_guard(std::string_view path, std::string_view text, std::vector<matrix_error>& errors) {
  int line = 1, column = 1;
  for (unsigned char c : text) {
    if (c >= 0x80 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", c);
      errors.push_back({std::string(path), line, column,
                        std::string("byte ") + hex + ": a matrix file is printable ASCII (gpustack writes \\u escapes)"});
      return false;
    }
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return true;
}

bool get_str(const toml::table& t, const char* key, std::string& out, bool required, matrix_ctx& c) {
  const toml::node* n = t.get(key);
  if (!n) {
    if (required) c.error(t.source(), std::string("missing '") + key + "'");
    return !required;
  }
  if (!n->is_string()) {
    c.error(n->source(), std::string("'") + key + "' must be a string");
    return false;
  }
  out = n->as_string()->get();
  return true;
}

bool parse_cell(const toml::table& t, matrix_cell& cell, matrix_ctx& c) {
  bool ok = get_str(t, "probe", cell.probe, true, c) && get_str(t, "status", cell.status, true, c);
  ok = get_str(t, "date", cell.date, false, c) && ok;
  ok = get_str(t, "detail", cell.detail, false, c) && ok;
  if (ok && !parse_status(cell.status)) {
    c.error(t.get("status")->source(), "status '" + cell.status + "' is not one of pass, warn, fail, skip, hang, crash, error");
    ok = false;
  }
  if (const toml::node* r = t.get("runs")) {
    if (!r->is_integer() || r->as_integer()->get() < 0 || r->as_integer()->get() > 1000000000) {
      c.error(r->source(), "'runs' must be a non-negative integer");
      ok = false;
    } else {
      cell.runs = int(r->as_integer()->get());
    }
  } else {
    cell.runs = 1;
  }
  for (auto&& [k, v] : t)
    if (k != "probe" && k != "status" && k != "date" && k != "detail" && k != "runs") {
      c.error(k.source(), "unknown key '" + std::string(k.str()) + "' in a cell (known: probe, status, date, runs, detail)");
      ok = false;
    }
  return ok;
}

bool parse_row(const toml::table& t, matrix_row& row, matrix_ctx& c) {
  bool ok = get_str(t, "note", row.note, false, c);
  std::string id_ignored;
  ok = get_str(t, "id", id_ignored, false, c) && ok;
  const toml::node* fpn = t.get("fingerprint");
  if (!fpn || !fpn->is_table()) {
    c.error(fpn ? fpn->source() : t.source(), "a [[stack]] needs a [stack.fingerprint] table");
    return false;
  }
  for (auto&& [k, v] : *fpn->as_table()) {
    if (!v.is_string()) {
      c.error(v.source(), "fingerprint value '" + std::string(k.str()) + "' must be a string");
      ok = false;
      continue;
    }
    row.fp[std::string(k.str())] = v.as_string()->get();
  }
  // Components this file does not name (hand-written rows, older files) cover any value.
  for (const fingerprint_component& comp : fingerprint_components()) row.fp.try_emplace(comp.name, "*");
  if (const toml::node* cells = t.get("cell")) {
    const toml::array* arr = cells->as_array();
    if (!arr) {
      c.error(cells->source(), "'cell' must be an array of tables ([[stack.cell]])");
      return false;
    }
    for (const toml::node& n : *arr) {
      if (!n.is_table()) {
        c.error(n.source(), "a cell must be a table");
        ok = false;
        continue;
      }
      matrix_cell cell;
      if (!parse_cell(*n.as_table(), cell, c)) {
        ok = false;
        continue;
      }
      if (row.cell(cell.probe)) {
        c.error(n.source(), "probe '" + cell.probe + "' appears twice in one stack");
        ok = false;
        continue;
      }
      row.cells.push_back(std::move(cell));
    }
  }
  std::sort(row.cells.begin(), row.cells.end(), [](const matrix_cell& a, const matrix_cell& b) { return a.probe < b.probe; });
  for (auto&& [k, v] : t)
    if (k != "id" && k != "note" && k != "fingerprint" && k != "cell") {
      c.error(k.source(), "unknown key '" + std::string(k.str()) + "' in a stack (known: id, note, fingerprint, cell)");
      ok = false;
    }
  return ok;
}

/// A TOML basic string: ASCII, with \uXXXX / \UXXXXXXXX for everything else.
std::string quote(std::string_view raw) {
  std::string s = valid_utf8(raw), out = "\"";
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default:
          if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
          } else {
            out += char(c);
          }
      }
      ++i;
      continue;
    }
    size_t n = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : 4;  // valid_utf8 made it well-formed
    uint32_t cp = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    char buf[16];
    if (cp <= 0xFFFF) std::snprintf(buf, sizeof buf, "\\u%04X", unsigned(cp));
    else std::snprintf(buf, sizeof buf, "\\U%08X", unsigned(cp));
    out += buf;
    i += n;
  }
  return out + "\"";
}

bool bare_key(std::string_view k) {
  if (k.empty()) return false;
  for (char ch : k)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_')) return false;
  return true;
}

}  // namespace

std::string matrix_error::to_string() const {
  return path + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

bool parse_matrix(std::string_view path, std::string_view text, compat_matrix& out, std::vector<matrix_error>& errors) {
  size_t before = errors.size();
  if (!ascii_guard(path, text, errors)) return false;
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    errors.push_back({std::string(path), int(e.source().begin.line), int(e.source().begin.column), std::string(e.description())});
    return false;
  }
  matrix_ctx c{path, errors};
  const toml::node* schema = root.get("schema");
  if (!schema || !schema->is_integer() || schema->as_integer()->get() != 1) {
    c.error(schema ? schema->source() : root.source(), "this gpustack reads matrix files with schema = 1");
    return false;
  }
  compat_matrix m;
  if (const toml::node* reps = root.get("reports")) {
    const toml::array* arr = reps->as_array();
    if (!arr) c.error(reps->source(), "'reports' must be an array of hashes");
    else
      for (const toml::node& h : *arr) {
        if (h.is_string()) m.reports.insert(h.as_string()->get());
        else c.error(h.source(), "'reports' must hold strings");
      }
  }
  if (const toml::node* stacks = root.get("stack")) {
    const toml::array* arr = stacks->as_array();
    if (!arr) {
      c.error(stacks->source(), "'stack' must be an array of tables ([[stack]])");
    } else {
      for (const toml::node& n : *arr) {
        matrix_row row;
        if (!n.is_table()) {
          c.error(n.source(), "a stack must be a table");
          continue;
        }
        if (!parse_row(*n.as_table(), row, c)) continue;
        if (m.find(row.fp)) {
          c.error(n.source(), "a second stack with the same fingerprint (" + fingerprint_id(row.fp) + ")");
          continue;
        }
        m.rows.push_back(std::move(row));
      }
    }
  }
  for (auto&& [k, v] : root)
    if (k != "schema" && k != "reports" && k != "stack")
      c.error(k.source(), "unknown top-level key '" + std::string(k.str()) + "' (known: schema, reports, stack)");
  if (errors.size() != before) return false;
  out = std::move(m);
  return true;
}

std::string serialize_matrix(const compat_matrix& m, std::string_view header) {
  std::ostringstream o;
  std::istringstream hs{std::string(header)};
  for (std::string line; std::getline(hs, line);) o << "# " << line << "\n";
  o << "schema = 1\n";
  o << "reports = [";
  bool first = true;
  for (const std::string& h : m.reports) {
    o << (first ? "\n  " : ",\n  ") << quote(h);
    first = false;
  }
  o << (m.reports.empty() ? "]\n" : ",\n]\n");
  // Stable order: arch, then id, so a merge that adds nothing changes nothing.
  std::vector<const matrix_row*> rows;
  for (const matrix_row& r : m.rows) rows.push_back(&r);
  std::sort(rows.begin(), rows.end(), [](const matrix_row* a, const matrix_row* b) {
    auto ka = std::make_pair(a->fp.count("arch") ? a->fp.at("arch") : "", fingerprint_id(a->fp));
    auto kb = std::make_pair(b->fp.count("arch") ? b->fp.at("arch") : "", fingerprint_id(b->fp));
    return ka < kb;
  });
  for (const matrix_row* r : rows) {
    o << "\n[[stack]]\nid = " << quote(fingerprint_id(r->fp)) << "\n";
    if (!r->note.empty()) o << "note = " << quote(r->note) << "\n";
    o << "[stack.fingerprint]\n";
    // Table order first (reads like the docs), then anything a newer gpustack added.
    for (const fingerprint_component& c : fingerprint_components())
      if (auto it = r->fp.find(c.name); it != r->fp.end()) o << (bare_key(c.name) ? c.name : quote(c.name)) << " = " << quote(it->second) << "\n";
    for (const auto& [k, v] : r->fp) {
      // A named copy for the lambda: clang 15 (the fuzz build's) cannot capture a structured binding.
      const std::string& key = k;
      bool known = std::any_of(fingerprint_components().begin(), fingerprint_components().end(),
                               [&](const fingerprint_component& c) { return c.name == key; });
      if (!known) o << (bare_key(k) ? k : quote(k)) << " = " << quote(v) << "\n";
    }
    for (const matrix_cell& c : r->cells) {
      o << "[[stack.cell]]\nprobe = " << quote(c.probe) << "\nstatus = " << quote(c.status) << "\n";
      if (!c.date.empty()) o << "date = " << quote(c.date) << "\n";
      o << "runs = " << c.runs << "\n";
      if (!c.detail.empty()) o << "detail = " << quote(c.detail) << "\n";
    }
  }
  return o.str();
}

load_status load_matrix_file(const std::string& path, compat_matrix& out, std::string& message) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    out = {};
    return load_status::absent;
  }
  std::string text;
  if (!read_whole_file(path, text, message)) return load_status::error;
  std::vector<matrix_error> errors;
  if (!parse_matrix(path, text, out, errors)) {
    message = errors.empty() ? path + ": not a matrix file" : errors.front().to_string();
    if (errors.size() > 1) message += " (and " + std::to_string(errors.size() - 1) + " more)";
    return load_status::error;
  }
  return load_status::ok;
}

bool save_matrix_file(const std::string& path, const compat_matrix& m, std::string& message, std::string_view header) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  return write_file_atomically(path, serialize_matrix(m, header), message);
}

}  // namespace gs
