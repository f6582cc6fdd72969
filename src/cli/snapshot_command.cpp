// `gpustack snapshot -o FILE.tar.gz`: the files `check` reads on this machine, redacted, in one
// archive a maintainer replays with `gpustack check --sysroot DIR` (docs/snapshot.md).
#include <cstdio>

#include "cli/cli.h"
#include "core/status.h"
#include "report/snapshot.h"

namespace gs {
namespace {

struct snapshot_args {
  std::string out;
  std::string sysroot_dir;
  snapshot_options opts;
};

std::string human_bytes(uint64_t b) {
  if (b < 10 * 1024) return std::to_string(b) + " B";
  if (b < 10ull * 1024 * 1024) return std::to_string(b / 1024) + " KiB";
  return std::to_string(b / (1024 * 1024)) + " MiB";
}

int run_snapshot(const snapshot_args& a) {
  sysroot sys = a.sysroot_dir.empty() ? sysroot::live() : sysroot::captured(a.sysroot_dir);
  snapshot_result res;
  std::string err;
  if (!take_snapshot(sys, a.opts, a.out, res, err)) {
    std::fprintf(stderr, "gpustack: snapshot: %s\n", err.c_str());
    return exit_usage;
  }
  for (const std::string& s : res.skipped) std::fprintf(stderr, "snapshot: left out %s\n", s.c_str());
  std::fprintf(stderr, "snapshot: %zu files, %s -> %s (%s compressed)%s\n", res.files,
               human_bytes(res.content_bytes).c_str(), a.out.c_str(), human_bytes(res.archive_bytes).c_str(),
               a.opts.include_identifiers ? "; identifiers INCLUDED" : "; redacted");
  return exit_ok;
}

}  // namespace

command_spec snapshot_command() {
  return {"snapshot", "capture the files check reads, redacted (-o FILE.tar.gz)",
          [](CLI::App& sub) -> std::function<int()> {
            auto a = std::make_shared<snapshot_args>();
            sub.add_option("-o,--output", a->out, "the archive to write (FILE.tar.gz)")->required();
            sub.add_flag("--include-identifiers", a->opts.include_identifiers,
                         "keep hostname, user name, IPs and serials in the files (secrets are always removed)");
            add_python_options(sub, a->opts.detect, "the Python interpreter to inspect",
                               "the virtual environment to inspect");
            sub.add_option("--sysroot", a->sysroot_dir, "snapshot a captured tree instead of this machine")
                ->check(CLI::ExistingDirectory);
            return [a] { return run_snapshot(*a); };
          }};
}

}  // namespace gs
