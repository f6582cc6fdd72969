// PLACEHOLDER: being written (issue 2).
#include "cli/cli.h"
namespace gs {
command_spec snapshot_command() {
  return {"snapshot", "capture the files check reads, redacted (-o FILE.tar.gz)",
          [](CLI::App&) -> std::function<int()> { return [] { return 2; }; }};
}
}  // namespace gs
