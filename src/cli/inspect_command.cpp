// `gpustack inspect [PATH...]`: which GPU code each library carries and whether the GPU can run
// it. Without paths it scans the Python environment's GPU libraries (inspect/gpu_libraries.h).
// Reads section and entry headers only (mmap), so a 1 GB libtorch_cuda.so costs milliseconds.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <set>

#include "cli/cli.h"
#include "core/status.h"
#include "detect/detect.h"
#include "inspect/comgr_isa.h"
#include "inspect/gpu_libraries.h"
#include "inspect/inspect_report.h"
#include "sys/sysroot.h"

namespace gs {
namespace {

struct inspect_args {
  output_options out;
  std::vector<std::string> paths;
  std::vector<std::string> gpu;
  detect_options detect;
  bool deep = false;
};

/// Explicit paths: files as given, directories by their shared objects (one level).
bool expand_paths(const std::vector<std::string>& in, std::vector<gpu_library_ref>& out) {
  sysroot sys = sysroot::live();
  for (const std::string& p : in) {
    node_stat st = sys.stat(p);
    if (!st.exists) {
      std::fprintf(stderr, "gpustack inspect: %s: no such file or directory\n", p.c_str());
      return false;
    }
    if (!st.is_dir) {
      out.push_back({p, ""});
      continue;
    }
    for (const std::string& name : sys.list(p))
      if (name.ends_with(".so") || name.find(".so.") != std::string::npos || name.ends_with(".hipfb") ||
          name.ends_with(".co") || name.ends_with(".hsaco") || name.ends_with(".fatbin") || name.ends_with(".cubin"))
        if (!sys.is_dir(p + "/" + name)) out.push_back({p + "/" + name, ""});
  }
  return true;
}

int run_inspect(const inspect_args& a) {
  auto t0 = std::chrono::steady_clock::now();
  std::vector<inspect_gpu> gpus;
  for (const std::string& g : a.gpu) {
    gpu_target t = parse_gpu_target(g);
    if (t.vendor.empty()) {
      std::fprintf(stderr, "gpustack inspect: --gpu %s: not an arch (sm_90, 9.0, gfx1201, gfx90a:xnack-)\n", g.c_str());
      return exit_usage;
    }
    gpus.push_back({t, "--gpu", ""});
  }
  std::vector<gpu_library_ref> refs;
  bool need_facts = gpus.empty() || a.paths.empty();
  machine_facts facts;
  if (need_facts) facts = detect_machine(sysroot::live(), a.detect);
  if (gpus.empty()) {
    std::set<std::string> seen;
    for (const gpu_info& g : facts.gpus) {
      gpu_target t = parse_gpu_target(g.arch);
      if (!t.vendor.empty() && seen.insert(g.arch).second) gpus.push_back({t, "detected", g.name});
    }
  }
  if (a.paths.empty()) {
    refs = find_gpu_libraries(sysroot::live(), facts);
    if (!facts.python.found)
      std::fprintf(stderr, "gpustack inspect: no Python environment found (use --python or --venv, or give paths)\n");
  } else if (!expand_paths(a.paths, refs)) {
    return exit_usage;
  }
  scan_options so;
  so.deep = a.deep;
  if (a.deep) {
    std::string why;
    so.isa_namer = comgr_isa_namer(&why);
    if (!so.isa_namer) std::fprintf(stderr, "gpustack inspect: comgr not loaded (%s): ISAs from ELF headers\n", why.c_str());
  }
  const bool progress = ::isatty(STDERR_FILENO) == 1;
  std::vector<inspected_library> libs;
  for (size_t i = 0; i < refs.size(); ++i) {
    if (progress) {
      std::string name = refs[i].path.substr(refs[i].path.rfind('/') + 1);
      std::fprintf(stderr, "\rinspect: [%zu/%zu] %-60.60s", i + 1, refs.size(), name.c_str());
      std::fflush(stderr);
    }
    inspected_library l;
    l.scan = scan_library_file(refs[i].path, so);
    l.summary = summarize_scan(l.scan, refs[i].package);
    libs.push_back(std::move(l));
  }
  if (progress && !refs.empty()) std::fprintf(stderr, "\r%-80s\r", "");
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  bool want_json = a.out.json || a.out.markdown;
  std::string json = want_json ? inspect_json(libs, gpus, ms, a.out.include_identifiers).dump(2) + "\n" : "";
  std::string human = a.out.json ? "" : inspect_human(libs, gpus, ms, a.out.include_identifiers);
  // For an issue thread: the table as the terminal shows it, the JSON folded under it.
  std::string markdown = a.out.markdown ? "```text\n" + human + "```\n\n<details><summary>gpustack inspect --json</summary>\n\n```json\n" +
                                              json + "```\n</details>\n"
                                        : "";
  if (!emit_report(a.out, json, markdown, human)) return exit_usage;
  return inspect_failed(libs, gpus) ? exit_failed : exit_ok;
}

}  // namespace

command_spec inspect_command() {
  return {"inspect", "list the GPU code each library carries and whether this GPU can run it",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<inspect_args>();
            sub.add_option("paths", a->paths,
                           "libraries, bundles, fatbins or directories of them (default: the GPU libraries of the Python env)");
            add_output_options(sub, a->out);
            sub.add_option("--gpu", a->gpu, "judge for this arch instead of the detected GPU (sm_90, 9.0, gfx1201, gfx90a:xnack-); repeatable")->allow_extra_args(false);
            add_python_options(sub, a->detect, "the Python interpreter whose environment is scanned",
                               "the virtual environment to scan");
            sub.add_flag("--deep", a->deep,
                         "decompress compressed bundles fully, read every code object's header and name AMD ISAs with comgr");
            return [a] { return run_inspect(*a); };
          }};
}

}  // namespace gs
