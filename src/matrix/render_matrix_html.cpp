// One self-contained HTML page (inline CSS, no script, no network): a colour grid with a column
// per probe (grouped by family, the id's first segment) and a row per stack (grouped by GPU
// arch), each cell coloured by its latest status with the detail, run count and date in its
// tooltip; then the stacks' full fingerprints. Plain ASCII out: non-ASCII text becomes
// numeric character references, so the page is the same bytes whatever the locale.
#include <map>

#include "matrix/matrix_render.h"
#include "report/redact.h"

namespace gs {
namespace {

std::string esc(const std::string& raw) {
  std::string s = valid_utf8(raw), out;
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        case '\n': out += "&#10;"; break;
        default: out += (c < 0x20 || c == 0x7f) ? ' ' : char(c);
      }
      ++i;
      continue;
    }
    size_t n = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : 4;
    uint32_t cp = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    out += "&#" + std::to_string(cp) + ";";
    i += n;
  }
  return out;
}

/// Short marks that read without colour too (and need no special font).
const char* mark(const std::string& status) {
  if (status == "pass") return "ok";
  if (status == "warn") return "!";
  if (status == "fail") return "X";
  if (status == "hang") return "H";
  if (status == "crash") return "C";
  if (status == "error") return "E";
  if (status == "skip") return "-";
  return "?";
}

std::string family_of(const std::string& probe) { return probe.substr(0, probe.find('.')); }

constexpr const char* kStyle = R"(
body{font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;margin:24px;color:#1d2330;background:#fff}
h1{font-size:20px;margin:0 0 4px}
p.meta{color:#5a6478;margin:0 0 14px;font-size:13px}
.legend span{display:inline-block;padding:2px 8px;margin-right:6px;border-radius:3px;font-size:12px}
table.grid{border-collapse:collapse;font-size:12px;margin-top:12px;table-layout:fixed}
table.grid th,table.grid td{border:1px solid #d5dae3}
th.family{background:#eef1f6;font-weight:600;padding:3px 2px;overflow:hidden;white-space:nowrap}
th.probe{height:150px;vertical-align:bottom;padding:4px 2px;white-space:nowrap;font-weight:normal}
th.probe div{writing-mode:vertical-rl;transform:rotate(180deg);font-family:"DejaVu Sans Mono",monospace}
tr.arch th{background:#1d2330;color:#fff;text-align:left;padding:4px 8px;font-size:13px}
th.stack{text-align:left;padding:4px 8px;font-weight:normal}
th.stack code{font-weight:600}
th.stack small{color:#5a6478;display:block}
td.cell{width:26px;height:26px;text-align:center;font-weight:600;font-size:11px}
.s-pass{background:#2e9d5b;color:#fff}.s-warn{background:#e0a526;color:#1d2330}
.s-fail{background:#d64545;color:#fff}.s-hang{background:#7b2cbf;color:#fff}
.s-crash{background:#8c1c1c;color:#fff}.s-error{background:#c2571a;color:#fff}
.s-skip{background:#e6e9ef;color:#5a6478}.s-none{background:#fff}
.verdict{display:inline-block;padding:0 6px;border-radius:3px;font-size:11px;margin-left:6px}
.v-good{background:#2e9d5b;color:#fff}.v-bad{background:#d64545;color:#fff}.v-unknown{background:#e6e9ef}
table.fp{border-collapse:collapse;font-size:12px;margin-top:8px}
table.fp th,table.fp td{border:1px solid #d5dae3;padding:3px 8px;text-align:left}
)";

}  // namespace

std::string render_matrix_html(const compat_matrix& m, const std::string& source) {
  std::vector<std::string> probes = probe_columns(m);
  std::vector<const matrix_row*> rows = display_order(m);
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>gpustack compatibility matrix</title>\n<style>";
  o += kStyle;
  o += "</style></head><body>\n<h1>gpustack compatibility matrix</h1>\n<p class=\"meta\">" + esc(source) + ": " +
       std::to_string(rows.size()) + " stacks, " + std::to_string(probes.size()) + " probes, " +
       std::to_string(m.reports.size()) + " reports merged. Hover a cell for its last detail.</p>\n";
  o += "<div class=\"legend\">";
  for (const char* s : {"pass", "warn", "fail", "hang", "crash", "error", "skip"})
    o += std::string("<span class=\"s-") + s + "\">" + mark(s) + " " + s + "</span>";
  // Fixed layout: every probe column is one cell wide whatever its family heading says.
  o += "</div>\n<table class=\"grid\" id=\"grid\">\n<colgroup><col style=\"width:440px\">";
  for (size_t i = 0; i < probes.size(); ++i) o += "<col style=\"width:28px\">";
  o += "</colgroup>\n<thead><tr><th rowspan=\"2\">stack</th>";
  // Family header row: consecutive probes with the same first segment share one cell.
  for (size_t i = 0; i < probes.size();) {
    size_t j = i;
    while (j < probes.size() && family_of(probes[j]) == family_of(probes[i])) ++j;
    // A one-column family is named by its rotated probe id below; its heading would not fit.
    std::string fam = family_of(probes[i]);
    o += "<th class=\"family\" colspan=\"" + std::to_string(j - i) + "\" title=\"" + esc(fam) + "\">" + (j - i > 1 ? esc(fam) : "") + "</th>";
    i = j;
  }
  o += "</tr>\n<tr>";
  for (const std::string& p : probes) o += "<th class=\"probe\"><div>" + esc(p) + "</div></th>";
  o += "</tr></thead>\n<tbody>\n";
  std::string arch_open = "\x01";
  for (const matrix_row* r : rows) {
    auto a = r->fp.find("arch");
    std::string arch = a == r->fp.end() || a->second.empty() ? "(no GPU)" : a->second;
    if (arch != arch_open) {
      o += "<tr class=\"arch\"><th colspan=\"" + std::to_string(probes.size() + 1) + "\">" + esc(arch) + "</th></tr>\n";
      arch_open = arch;
    }
    std::string id = fingerprint_id(r->fp);
    std::string v(to_string(verdict_of(*r)));
    o += "<tr class=\"stack-row\" data-stack=\"" + id + "\"><th class=\"stack\"><code>" + id + "</code><span class=\"verdict v-" + v +
         "\">" + (v == "good" ? "known good" : v == "bad" ? "known bad" : "unknown") + "</span><small>" +
         esc(components_text(*r)) + "</small>";
    if (!r->note.empty()) o += "<small>" + esc(r->note) + "</small>";
    o += "</th>";
    for (const std::string& p : probes) {
      const matrix_cell* c = r->cell(p);
      if (!c) {
        o += "<td class=\"cell s-none\" data-probe=\"" + esc(p) + "\"></td>";
        continue;
      }
      std::string tip = p + ": " + c->status + ", " + std::to_string(c->runs) + (c->runs == 1 ? " run" : " runs") +
                        (c->date.empty() ? "" : ", last " + c->date) + (c->detail.empty() ? "" : "\n" + c->detail);
      o += "<td class=\"cell s-" + esc(c->status) + "\" data-probe=\"" + esc(p) + "\" data-status=\"" + esc(c->status) +
           "\" title=\"" + esc(tip) + "\">" + mark(c->status) + "</td>";
    }
    o += "</tr>\n";
  }
  o += "</tbody></table>\n<h2 style=\"font-size:16px;margin-top:24px\">Stack fingerprints</h2>\n<table class=\"fp\"><tr><th>stack</th>";
  for (const fingerprint_component& c : fingerprint_components()) o += "<th>" + esc(c.label) + "</th>";
  o += "</tr>\n";
  for (const matrix_row* r : rows) {
    o += "<tr><td><code>" + fingerprint_id(r->fp) + "</code></td>";
    for (const fingerprint_component& c : fingerprint_components()) {
      auto it = r->fp.find(c.name);
      std::string v = it == r->fp.end() ? "*" : it->second;
      o += "<td>" + (v.empty() ? std::string("&ndash;") : esc(v)) + "</td>";
    }
    o += "</tr>\n";
  }
  o += "</table>\n<p class=\"meta\">&ndash; absent on that machine; * not recorded (any). Made by <code>gpustack matrix show --html</code>.</p>\n</body></html>\n";
  return o;
}

}  // namespace gs
