// `gpustack selftest --vectors FILE [--json]`: checks the quantization references (kernels/ref/)
// against golden vectors in the GUIDE's format, e.g. the bitsandbytes outputs in
// golden/bitsandbytes-vectors.json. Every case is listed with its count of matching elements.
// Exit 0 when every case matches, 1 when an element differs, 2 when the file cannot be read or
// is malformed (the error names the case and the field).
#include <cstdio>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "cli/cli.h"
#include "core/status.h"
#include "quant/golden.h"

namespace gs {
namespace {

struct selftest_args {
  std::string vectors;
  bool json = false;
};

// Golden files are a few MB; anything past this is not one.
constexpr std::streamoff max_file_bytes = std::streamoff(1) << 30;

bool read_file(const std::string& path, std::string& text, std::string& err) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    err = "cannot open " + path;
    return false;
  }
  f.seekg(0, std::ios::end);
  std::streamoff size = f.tellg();
  if (size < 0 || size > max_file_bytes) {
    err = path + " is not a readable regular file of at most 1 GiB";
    return false;
  }
  f.seekg(0);
  text.resize(size_t(size));
  if (size > 0 && !f.read(text.data(), size)) {
    err = "cannot read " + path;
    return false;
  }
  return true;
}

std::string field_summary(const golden_field_result& f) {
  std::string s = fmt::format("{} {}/{}", f.field, f.matching + f.tolerated, f.elements);
  if (f.tolerated) s += fmt::format(" ({} within tolerance)", f.tolerated);
  if (f.first_mismatch >= 0) s += fmt::format(" (first differing element {})", f.first_mismatch);
  return s;
}

std::string human(const std::string& path, const golden_report& r) {
  std::string out;
  if (r.malformed()) {
    out += fmt::format("gpustack selftest: {} is malformed ({} problem{}):\n", path, r.errors.size(),
                       r.errors.size() == 1 ? "" : "s");
    for (const golden_error& e : r.errors) out += "  " + e.describe() + "\n";
    return out;
  }
  out += fmt::format("gpustack selftest: {} case{} from {}\n", r.cases.size(), r.cases.size() == 1 ? "" : "s", path);
  if (r.meta.contains("source") && r.meta["source"].is_string())
    out += "  source: " + r.meta["source"].get<std::string>() + "\n";
  size_t ok = 0;
  for (const golden_case_result& c : r.cases) {
    ok += c.ok();
    out += fmt::format("  case {:<3} {:<34} {:<8} {}/{} elements\n", c.index, c.label, c.ok() ? "match" : "MISMATCH",
                       c.matching(), c.elements());
    for (const golden_field_result& f : c.fields) out += "      " + field_summary(f) + "\n";
  }
  bool any_tolerated = false;
  for (const golden_case_result& c : r.cases)
    for (const golden_field_result& f : c.fields)
      if (f.tolerated && !any_tolerated) {
        any_tolerated = true;
        out += "  within tolerance: " + f.tolerance + "\n";
      }
  out += fmt::format("{} of {} cases match\n", ok, r.cases.size());
  return out;
}

int run_selftest(const selftest_args& a) {
  std::string text, err;
  if (!read_file(a.vectors, text, err)) {
    if (a.json) {
      nlohmann::json j = {{"errors", {{{"case", -1}, {"field", ""}, {"message", err}}}},
                          {"summary", {{"exit_code", exit_usage}, {"malformed", true}}}};
      std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    }
    std::fprintf(stderr, "gpustack selftest: %s\n", err.c_str());
    return exit_usage;
  }
  golden_report r = compare_golden(text);
  if (a.json) {
    nlohmann::json j = r.to_json();
    j["file"] = a.vectors;
    std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    if (r.malformed()) std::fputs(human(a.vectors, r).c_str(), stderr);
  } else {
    std::fputs(human(a.vectors, r).c_str(), r.malformed() ? stderr : stdout);
  }
  return r.exit_code();
}

}  // namespace

command_spec selftest_command() {
  return {"selftest", "check the quantization references against golden vectors (--vectors FILE)",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<selftest_args>();
            sub.add_option("--vectors", a->vectors,
                           "golden-vector JSON file ({\"meta\", \"cases\"}: nf4, fp4 and int8 cases)")
                ->required();
            sub.add_flag("--json", a->json, "print the per-case results as JSON");
            return [a] { return run_selftest(*a); };
          }};
}

}  // namespace gs
