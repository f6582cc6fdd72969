// `gpustack check`: detect, evaluate the knowledge base, report. Reads files, plus the card's
// state from NVML / libdrm_amdgpu in a forked child with a deadline: no Python import, no GPU
// runtime, so it answers in well under a second even on a broken machine.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <iterator>

#include "card/card_record.h"
#include "cli/cli.h"
#include "container/container_facts.h"
#include "container/container_report.h"
#include "container/container_spec.h"
#include "core/file_io.h"
#include "explain/paste.h"
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
  std::string container_file;  ///< --container: a spec to lint instead of the host's own stack
  std::string container_kind;  ///< --container-kind: when the file's name and content do not say
  std::string gpu;             ///< --gpu: the card the container will run on, when this host is not it
};

/// --container FILE: the spec's containers on this host's GPUs and driver (or --gpu's card).
/// Findings name the container when the spec has several. Exit 2 on a spec that cannot be read.
int run_container_check(const check_args& a, machine_facts& host, const knowledge_base& kb,
                        const std::map<std::string, std::string>& env) {
  std::string text, error;
  if (a.container_file == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else if (!read_whole_file(a.container_file, text, error)) {
    std::fprintf(stderr, "gpustack: --container %s: %s\n", a.container_file.c_str(), error.c_str());
    return exit_usage;
  }
  std::string kind = a.container_kind.empty() ? container_spec_kind(a.container_file, text) : a.container_kind;
  container_spec spec = read_container_spec(text, kind);
  if (!spec.error.empty()) {
    std::fprintf(stderr, "gpustack: --container %s: %s\n", a.container_file.c_str(), spec.error.c_str());
    return exit_usage;
  }
  if (!a.gpu.empty()) {  // the card named as a paste names it: "RX 9070 XT", "gfx1201", "H100"
    machine_facts named = read_paste("GPU: " + a.gpu).facts;
    if (named.gpus.empty()) {
      std::fprintf(stderr, "gpustack: --gpu %s: not a GPU name or arch gpustack knows (try the arch: gfx1201, sm_90)\n", a.gpu.c_str());
      return exit_usage;
    }
    host.gpus = named.gpus;
  }
  report_input in;
  in.facts = &host;
  in.environment = &env;
  for (const container_info& c : spec.containers)
    for (finding f : container_findings(host, c, kb)) {
      if (spec.containers.size() > 1) f.evidence = (c.name.empty() ? "line " + std::to_string(c.line) : c.name) + ": " + f.evidence;
      in.findings.push_back(std::move(f));
    }
  in.extra["container"] = container_json(spec, a.container_file);
  report_options ro;
  ro.include_identifiers = a.out.include_identifiers;
  ro.command = "check";
  nlohmann::json report = build_report(in, ro);
  if (!emit_gpustack_report(a.out, report)) return exit_usage;
  return exit_code_for(report);
}

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
  if (!a.container_file.empty()) return run_container_check(a, facts, kb, env);
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
            sub.add_option("--container", a->container_file,
                           "lint a container spec before it is built or run, on this host's GPUs and driver: a Dockerfile, "
                           "a compose file, a `docker run`/`podman run` line or a Kubernetes manifest ('-': stdin)");
            sub.add_option("--container-kind", a->container_kind, "what --container's file is, when its name and content do not say")
                ->check(CLI::IsMember({"dockerfile", "compose", "run", "kubernetes"}));
            sub.add_option("--gpu", a->gpu,
                           "with --container: the GPU the container will run on, when this machine is not that one "
                           "(\"RX 9070 XT\", \"gfx1201\", \"H100\")");
            return [a]() -> int {
              if ((!a->container_kind.empty() || !a->gpu.empty()) && a->container_file.empty()) {
                std::fprintf(stderr, "gpustack: --container-kind and --gpu go with --container FILE\n");
                return exit_usage;
              }
              return run_check(*a);
            };
          }};
}

}  // namespace gs
