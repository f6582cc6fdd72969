// See fla_follow_up.h.
#include "fla/fla_follow_up.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "core/file_io.h"
#include "fla/fla_repro.h"
#include "fla/fla_sanitize.h"
#include "report/redact.h"
#include "sys/subprocess_capture.h"

namespace fs = std::filesystem;

namespace gs {
namespace {

bool on_amd(const probe_result& r) { return r.data.value("arch", "").rfind("gfx", 0) == 0; }

/// One run of the reproducer under compute-sanitizer; the findings go into r.data["sanitizer"].
/// `written`: the reproducer --emit-repro already wrote; "" writes it to a temporary directory.
std::string sanitize_step(probe_result& r, const fla_repro& repro, const std::string& written, const std::string& sanitizer,
                          const fla_follow_up_options& o) {
  std::error_code ec;
  fs::path dir;
  std::string file = written;
  if (file.empty()) {
    dir = fs::temp_directory_path(ec) / ("gpustack-sanitize-" + std::to_string(::getpid()));
    fs::create_directories(dir, ec);
    file = (dir / repro.file_name).string();
    std::string why;
    if (!write_file_atomically(file, repro.text, why)) return "sanitize: " + r.id + ": " + why;
  }
  std::fprintf(stderr, "sanitize: running %s under compute-sanitizer (up to %.0f s) ...\n", r.id.c_str(), o.sanitize_timeout_s);
  // --print-limit: the first findings say what and where; thousands of copies say nothing more.
  std::vector<std::string> argv = {sanitizer, "--tool", "memcheck", "--print-limit", "20", o.python, file, "--no-check"};
  captured_run run = run_captured(argv, o.sanitize_timeout_s);
  if (!dir.empty()) fs::remove_all(dir, ec);
  sanitizer_report rep = parse_compute_sanitizer(run.output);
  nlohmann::json j = rep.to_json();
  j["tool"] = "compute-sanitizer --tool memcheck";
  j["exit_code"] = run.exit_code;
  j["timed_out"] = run.timed_out;
  if (!run.started) j["error"] = run.error;
  r.data["sanitizer"] = j;
  if (!rep.errors.empty()) r.detail += "; compute-sanitizer: " + rep.summary();
  if (!run.started) return "sanitize: " + r.id + ": could not start " + sanitizer + ": " + run.error;
  if (run.timed_out) return fmt::format("sanitize: {}: no answer within {:.0f} s ({})", r.id, o.sanitize_timeout_s, rep.summary());
  return "sanitize: " + r.id + ": " + rep.summary();
}

}  // namespace

std::vector<std::string> follow_up_fla_failures(std::vector<probe_result>& results, const fla_follow_up_options& o,
                                                const redactor& scrub) {
  std::vector<std::string> lines;
  const std::string sanitizer = find_compute_sanitizer();
  if (!o.repro_dir.empty()) {
    std::error_code ec;
    fs::create_directories(o.repro_dir, ec);
    if (ec) return {"emit-repro: cannot create " + o.repro_dir + ": " + ec.message()};
  }
  for (probe_result& r : results) {
    if (!is_failure(r.outcome)) continue;
    std::string why;
    std::optional<fla_repro> repro = fla_repro_for(r, scrub, &why);
    std::string written;  // the reproducer's path once --emit-repro wrote it
    if (!o.repro_dir.empty()) {
      if (!repro) {
        lines.push_back("emit-repro: " + r.id + ": no standalone script: " + why);
      } else if (std::string p = (fs::path(o.repro_dir) / repro->file_name).string(); write_file_atomically(p, repro->text, why)) {
        written = p;
        r.data["repro"] = p;
        lines.push_back("emit-repro: " + r.id + ": " + p + " (python3 " + p + " reproduces it without gpustack)");
      } else {
        lines.push_back("emit-repro: " + r.id + ": " + why);
      }
    }
    if (!is_memory_fault(r)) continue;
    if (!o.sanitize) {
      if (repro && !on_amd(r) && !sanitizer.empty())
        lines.push_back("hint: " + r.id + " failed with a memory fault: --sanitize re-runs it under compute-sanitizer "
                        "to name the kernel and the access");
      continue;
    }
    if (!repro) {
      lines.push_back("sanitize: " + r.id + ": " + why);
    } else if (on_amd(r)) {
      lines.push_back("sanitize: " + r.id + ": ROCm has no memory checker for code Triton generates (the HIP address "
                      "sanitizer needs the kernel built with -fsanitize=address); run the reproducer with "
                      "AMD_SERIALIZE_KERNEL=3 to name the failing launch");
    } else if (sanitizer.empty()) {
      lines.push_back("sanitize: " + r.id + ": compute-sanitizer not found ($CUDA_HOME/bin, PATH, /usr/local/cuda/bin); "
                      "it ships with the CUDA toolkit");
    } else if (o.python.empty()) {
      lines.push_back("sanitize: " + r.id + ": no Python interpreter to run the reproducer");
    } else {
      lines.push_back(sanitize_step(r, *repro, written, sanitizer, o));
    }
  }
  return lines;
}

}  // namespace gs
