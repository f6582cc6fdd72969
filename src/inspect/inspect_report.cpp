// inspect_report.h.
#include "inspect/inspect_report.h"

#include <algorithm>
#include <fmt/format.h>

#include <set>

#include "core/byte_size.h"
#include "report/redact_scan.h"

namespace gs {
namespace {

std::string shown_path(const std::string& p, bool ids) { return ids ? p : scan::home_dirs(p); }

std::string human_size(uint64_t b) {
  if (b >= (1ull << 30)) return gib_text(double(b));
  if (b >= (1ull << 20)) return fmt::format("{:.1f} MiB", double(b) / double(1ull << 20));
  return fmt::format("{:.0f} KiB", double(b) / 1024.0);
}

/// "sm_80 sm_90 +PTX compute_90" / "gfx90a gfx1030 (CCOB v3 zstd)"
std::string codes_line(const inspected_library& l) {
  std::string s;
  for (const std::string& c : all_codes(l.summary)) s += (s.empty() ? "" : " ") + c;
  std::set<std::string> ccob;
  for (const offload_bundle& b : l.scan.bundles)
    if (b.compressed && !b.method.empty()) ccob.insert("CCOB v" + std::to_string(b.ccob_version) + " " + b.method);
  for (const std::string& c : ccob) s += " (" + c + ")";
  return s.empty() ? "-" : s;
}

std::string kind_of(const inspected_library& l) {
  bool amd = !l.scan.bundles.empty() || l.scan.code_object_isa.starts_with("gfx");
  bool nv = !l.scan.fatbins.empty() || l.scan.code_object_isa.starts_with("sm_");
  if (amd && nv) return "amd+nvidia";
  if (amd) return l.scan.format == "code-object" ? "amd code object" : "amd bundle";
  if (nv) return l.scan.format == "code-object" ? "cubin" : "nvidia fatbin";
  return "none";
}

}  // namespace

bool inspect_failed(const std::vector<inspected_library>& libs, const std::vector<inspect_gpu>& gpus) {
  for (const inspected_library& l : libs) {
    for (const inspect_gpu& g : gpus) {
      code_verdict v = judge_library(l.summary, g.target).verdict;
      if (v == code_verdict::none || v == code_verdict::error) return true;
    }
    if (gpus.empty() && !l.summary.error.empty()) return true;
  }
  return false;
}

nlohmann::json inspect_json(const std::vector<inspected_library>& libs, const std::vector<inspect_gpu>& gpus,
                            double elapsed_ms, bool ids) {
  using nlohmann::json;
  json doc = {{"tool", "gpustack"}, {"version", GPUSTACK_VERSION}, {"command", "inspect"}, {"schema_version", 1}};
  json jg = json::array();
  for (const inspect_gpu& g : gpus) jg.push_back({{"arch", g.target.text}, {"vendor", g.target.vendor}, {"source", g.source}, {"name", g.name}});
  doc["gpus"] = jg;
  json jl = json::array();
  std::map<std::string, int> counts;
  uint64_t bytes = 0;
  for (const inspected_library& l : libs) {
    const library_scan& s = l.scan;
    bytes += s.file_size;
    json j = {{"path", shown_path(s.path, ids)}, {"package", l.summary.package}, {"format", s.format},
              {"size_bytes", s.file_size}, {"scan_ms", s.elapsed_ms}, {"sections", s.sections},
              {"codes", all_codes(l.summary)}, {"error", l.summary.error}};
    int units = 0;
    json groups = json::array();
    for (const device_code_unit& u : l.summary.units) {
      units += u.count;
      groups.push_back({{"codes", u.codes}, {"count", u.count}});
    }
    j["units"] = units;
    j["unit_groups"] = groups;
    if (!s.bundles.empty()) {
      json jb = json::array();
      int compressed = 0;
      for (const offload_bundle& b : s.bundles) {
        compressed += b.compressed;
        if (jb.size() >= 64) continue;  // the first 64 in full; counts cover the rest
        json e = json::array();
        for (const code_object_entry& c : b.entries)
          e.push_back({{"id", c.id}, {"target", c.target}, {"size", c.size}, {"elf_isa", c.elf_isa},
                       {"comgr_isa", c.comgr_isa}, {"error", c.error}});
        jb.push_back({{"offset", b.offset}, {"size", b.size}, {"compressed", b.compressed},
                      {"ccob_version", b.ccob_version}, {"method", b.method},
                      {"uncompressed_size", b.uncompressed_size}, {"entries", e}, {"error", b.error}});
      }
      j["amd"] = {{"bundles", s.bundles.size()}, {"compressed_bundles", compressed}, {"detail", jb}};
    }
    if (!s.fatbins.empty()) {
      size_t entries = 0, compressed = 0;
      for (const fatbin_container& c : s.fatbins)
        for (const fatbin_entry& e : c.entries) entries++, compressed += !e.compression.empty();
      j["nvidia"] = {{"containers", s.fatbins.size()}, {"entries", entries}, {"compressed_entries", compressed}};
    }
    if (!s.code_object_isa.empty()) j["code_object_isa"] = s.code_object_isa;
    json verdicts = json::object();
    for (const inspect_gpu& g : gpus) {
      code_judgement cj = judge_library(l.summary, g.target);
      verdicts[g.target.text] = {{"verdict", verdict_name(cj.verdict)}, {"units_native", cj.units_native},
                                 {"units_jit", cj.units_jit}, {"runnable", cj.runnable}, {"detail", cj.detail}};
      counts[verdict_name(cj.verdict)]++;
    }
    j["verdicts"] = verdicts;
    jl.push_back(std::move(j));
  }
  doc["libraries"] = jl;
  json sum = {{"libraries", libs.size()}, {"bytes", bytes}, {"elapsed_ms", elapsed_ms}, {"failed", inspect_failed(libs, gpus)}};
  for (auto& [k, n] : counts) sum["verdicts"][k] = n;
  doc["summary"] = sum;
  return doc;
}

std::string inspect_human(const std::vector<inspected_library>& libs, const std::vector<inspect_gpu>& gpus,
                          double elapsed_ms, bool ids) {
  std::string out;
  if (gpus.empty()) out += "No GPU detected and no --gpu given: listing only.\n";
  for (const inspect_gpu& g : gpus)
    out += fmt::format("Judged for {}{} ({})\n", g.target.text, g.name.empty() ? "" : " " + g.name, g.source);
  out += "\n";
  std::string hdr = fmt::format("{:<34} {:<14} {:<9}", "LIBRARY", "KIND", "SIZE");
  // A verdict column is as wide as its longest word ("no-gpu-code") or the target's name.
  auto col = [](const inspect_gpu& g) { return std::max<size_t>(11, g.target.text.size()); };
  for (const inspect_gpu& g : gpus) hdr += fmt::format(" {:<{}}", g.target.text, col(g));
  out += hdr + " CODE\n";
  std::vector<std::string> notes;
  for (const inspected_library& l : libs) {
    std::string name = l.scan.path.substr(l.scan.path.rfind('/') + 1);
    if (name.size() > 34) name = name.substr(0, 31) + "...";
    std::string line = fmt::format("{:<34} {:<14} {:<9}", name, kind_of(l), human_size(l.scan.file_size));
    for (const inspect_gpu& g : gpus) {
      code_judgement cj = judge_library(l.summary, g.target);
      line += fmt::format(" {:<{}}", verdict_name(cj.verdict), col(g));
      if (!cj.detail.empty() && cj.verdict != code_verdict::error)
        notes.push_back(fmt::format("{} on {}: {}", name, g.target.text, cj.detail));
    }
    out += line + " " + codes_line(l) + "\n";
    if (!l.summary.error.empty()) notes.push_back(fmt::format("{}: {}", shown_path(l.scan.path, ids), l.summary.error));
  }
  if (!notes.empty()) {
    out += "\n";
    for (const std::string& n : notes) out += "  " + n + "\n";
  }
  uint64_t bytes = 0;
  for (const inspected_library& l : libs) bytes += l.scan.file_size;
  out += fmt::format("\n{} librar{}, {} scanned in {:.0f} ms (section and entry headers only)\n", libs.size(),
                     libs.size() == 1 ? "y" : "ies",
                     human_size(bytes), elapsed_ms);
  if (inspect_failed(libs, gpus)) out += "Some library has no code this GPU can run, or could not be read (exit 1).\n";
  return out;
}

}  // namespace gs
