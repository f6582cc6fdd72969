// `gpustack check`: detect, evaluate the knowledge base, report. Reads files, plus the card's
// state from NVML / libdrm_amdgpu in a forked child with a deadline: no Python import, no GPU
// runtime, so it answers in well under a second even on a broken machine.
#include <cstdio>
#include <filesystem>

#include "card/card_record.h"
#include "cli/cli.h"
#include "detect/detect.h"
#include "inspect/device_code_facts.h"
#include "matrix/matrix_record.h"
#include "matrix/stack_position.h"
#include "report/report.h"
#include "report/snapshot.h"
#include "rules/error_findings.h"

namespace gs {
namespace {

struct check_args {
  output_options out;
  std::string sysroot_dir;
  detect_options detect;
  std::vector<std::string> rule_files;
  std::string matrix_path;  ///< --matrix: the user's matrix to read with the shipped one
};

int run_check(const check_args& a) {
  // --sysroot FILE.tar.gz: the archive `gpustack snapshot` wrote, unpacked for this run only.
  std::string root = a.sysroot_dir, unpacked;
  if (!root.empty() && std::filesystem::is_regular_file(root)) {
    std::string error;
    unpacked = root = unpack_snapshot(a.sysroot_dir, error);
    if (root.empty()) {
      std::fprintf(stderr, "gpustack: --sysroot %s\n", error.c_str());
      return exit_usage;
    }
  }
  struct remove_after {
    std::string dir;
    ~remove_after() {
      std::error_code ec;
      if (!dir.empty()) std::filesystem::remove_all(dir, ec);
    }
  } cleanup{unpacked};
  sysroot sys = root.empty() ? sysroot::live() : sysroot::captured(root);
  machine_facts facts = detect_machine(sys, a.detect);
  detect_card_state(sys, facts);  // NVML / libdrm live, the snapshot's card record under --sysroot
  detect_device_code(sys, facts);  // GS-BIN: device code of the Python env's GPU libraries (headers only)
  knowledge_base kb;
  if (!load_knowledge_base(a.rule_files, kb)) return exit_usage;
  std::map<std::string, std::string> env = sys.environment();
  report_input in;
  in.facts = &facts;
  in.environment = &env;  // secret values anywhere in the (possibly captured) environment
  in.findings = kb.evaluate(facts);
  report_options ro;
  ro.include_identifiers = a.out.include_identifiers;
  ro.command = "check";
  nlohmann::json report = build_report(in, ro);
  // Where this stack sits in the compatibility matrix (shipped + the user's). The fingerprint
  // comes from the redacted report; a known-bad position adds a finding, so build again.
  compat_matrix known = shipped_matrix();
  std::string mpath = a.matrix_path.empty() ? default_matrix_path() : a.matrix_path, why;
  compat_matrix user;
  if (!mpath.empty() && load_matrix_file(mpath, user, why) == load_status::error)
    std::fprintf(stderr, "gpustack: matrix position without your matrix: %s\n", why.c_str());
  merge_matrix(known, user);
  fingerprint live = fingerprint_of(report);
  stack_position pos = locate_stack(known, live);
  if (std::optional<finding> f = position_finding(pos)) {
    in.findings.push_back(*f);
    report = build_report(in, ro);
  }
  report["matrix_position"] = position_json(pos, live);
  if (!emit_gpustack_report(a.out, report)) return exit_usage;
  return exit_code_for(report);
}

}  // namespace

command_spec check_command() {
  return {"check", "detect the GPU stack and the card's state, and flag what is wrong (well under a second)",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<check_args>();
            add_output_options(sub, a->out);
            sub.add_option("--sysroot", a->sysroot_dir,
                           "read every system file under DIR instead of / (a captured machine state: the "
                           "directory, or the FILE.tar.gz `gpustack snapshot` wrote)")
                ->check(CLI::ExistingPath);
            add_python_options(sub, a->detect, "the Python interpreter to inspect",
                               "the virtual environment to inspect");
            sub.add_option("--rules", a->rule_files, "extra knowledge-base TOML file (repeat for more)")->allow_extra_args(false)
                ->check(CLI::ExistingFile);
            sub.add_option("--matrix", a->matrix_path,
                           "your compatibility matrix, read with the shipped one to place this stack "
                           "(default $XDG_DATA_HOME/gpustack/matrix.toml, if present)");
            return [a] { return run_check(*a); };
          }};
}

}  // namespace gs
