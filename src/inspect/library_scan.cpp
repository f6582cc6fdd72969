// library_scan.h.
#include "inspect/library_scan.h"

#include <chrono>
#include <map>
#include <set>

#include "inspect/mapped_file.h"
#include "inspect/elf_sections.h"
#include "runtime/code_object.h"

namespace gs {
namespace {

constexpr std::string_view kAmdSections[] = {".hip_fatbin"};
constexpr std::string_view kNvSections[] = {".nv_fatbin", "__nv_relfatbin"};

void scan_section(std::string_view bytes, const elf_section& sec, bool amd, const scan_options& opts, library_scan& out) {
  out.sections.push_back(sec.name);
  if (sec.offset > bytes.size() || sec.size > bytes.size() - sec.offset) {
    out.error = sec.name + " runs past the end of the file (truncated: section ends at byte " +
                std::to_string(sec.offset + sec.size) + ", file has " + std::to_string(bytes.size()) + ")";
    if (sec.offset > bytes.size()) return;
  }
  std::string_view body = bytes.substr(static_cast<size_t>(sec.offset), static_cast<size_t>(sec.size));
  if (amd) {
    bundle_options bo;
    bo.full_decompress = opts.deep;
    bo.isa_namer = opts.isa_namer;
    for (offload_bundle& b : scan_offload_bundles(body, bo)) {
      b.offset += sec.offset;
      out.bundles.push_back(std::move(b));
    }
  } else {
    fatbin_options fo;
    fo.deep = opts.deep;
    for (fatbin_container& c : scan_nv_fatbins(body, fo)) {
      c.offset += sec.offset;
      for (fatbin_entry& e : c.entries) e.offset += sec.offset;
      out.fatbins.push_back(std::move(c));
    }
  }
}

}  // namespace

library_scan scan_library_bytes(std::string_view bytes, const scan_options& opts) {
  library_scan out;
  out.file_size = bytes.size();
  if (bytes.starts_with("__CLANG_OFFLOAD_BUNDLE__") || bytes.starts_with("CCOB")) {
    out.format = bytes.starts_with("CCOB") ? "ccob" : "offload-bundle";
    bundle_options bo;
    bo.full_decompress = opts.deep;
    bo.isa_namer = opts.isa_namer;
    out.bundles = scan_offload_bundles(bytes, bo);
    if (out.bundles.empty()) out.error = "not a valid offload bundle";
    return out;
  }
  if (bytes.size() >= 4 && bytes.substr(0, 4) == std::string_view("\x50\xed\x55\xba", 4)) {
    out.format = "fatbin";
    out.fatbins = scan_nv_fatbins(bytes);
    if (out.fatbins.empty()) out.error = "not a valid fatbin";
    return out;
  }
  elf_sections elf = read_elf_sections(bytes);
  if (!elf.is_elf) {
    out.format = "other";
    if (!elf.error.empty()) out.error = elf.error;
    return out;
  }
  out.format = "elf";
  if (elf.machine == kEmAmdgpu || elf.machine == kEmCuda) {  // a bare code object or cubin
    out.format = "code-object";
    code_object_info info = inspect_code_object(bytes);
    out.code_object_isa = info.arch.empty() ? "" : info.arch + info.features;
    if (out.code_object_isa.empty()) out.error = "code object of an unknown arch";
    else if (opts.isa_namer && elf.machine == kEmAmdgpu) {
      std::string comgr = opts.isa_namer(bytes);
      size_t dd = comgr.find("--");  // "amdgcn-amd-amdhsa--gfx90a:xnack-"
      if (dd != std::string::npos) out.code_object_isa = comgr.substr(dd + 2);
    }
    return out;
  }
  if (!elf.error.empty()) out.error = elf.error;
  for (const elf_section& s : elf.sections) {
    for (std::string_view n : kAmdSections)
      if (s.name == n) scan_section(bytes, s, true, opts, out);
    for (std::string_view n : kNvSections)
      if (s.name == n) scan_section(bytes, s, false, opts, out);
  }
  return out;
}

library_scan scan_library_file(const std::string& path, const scan_options& opts) {
  auto t0 = std::chrono::steady_clock::now();
  mapped_file f;
  library_scan out;
  if (!f.open(path)) {
    out.error = "cannot read: " + f.error();
  } else {
    out = scan_library_bytes(f.bytes(), opts);
  }
  out.path = path;
  out.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

device_code_library summarize_scan(const library_scan& s, std::string package) {
  device_code_library lib;
  lib.path = s.path;
  lib.package = std::move(package);
  std::map<std::set<std::string>, int> groups;
  std::vector<std::string> errors;
  if (!s.error.empty()) errors.push_back(s.error);
  for (const offload_bundle& b : s.bundles) {
    std::set<std::string> codes;
    for (const code_object_entry& e : b.entries) {
      if (e.target.empty()) continue;
      // Trust the code object's own header over the id when they disagree (clr does for old ids).
      codes.insert(!e.elf_isa.empty() && !e.elf_isa.starts_with("unknown") ? e.elf_isa : e.target);
    }
    if (!b.error.empty()) errors.push_back("bundle at byte " + std::to_string(b.offset) + ": " + b.error);
    if (!codes.empty()) ++groups[codes];
  }
  for (const fatbin_container& c : s.fatbins) {
    std::set<std::string> codes;
    for (const fatbin_entry& e : c.entries) codes.insert(e.name());
    if (!c.error.empty()) errors.push_back("fatbin at byte " + std::to_string(c.offset) + ": " + c.error);
    if (!codes.empty()) ++groups[codes];
  }
  if (!s.code_object_isa.empty()) ++groups[{s.code_object_isa}];
  for (auto& [codes, n] : groups) lib.units.push_back({std::vector<std::string>(codes.begin(), codes.end()), n});
  // Keep the first few errors: a corrupt 1 GB library could otherwise yield thousands.
  for (size_t i = 0; i < errors.size() && i < 5; ++i) lib.error += (i ? "; " : "") + errors[i];
  if (errors.size() > 5) lib.error += "; ... " + std::to_string(errors.size() - 5) + " more";
  return lib;
}

}  // namespace gs
