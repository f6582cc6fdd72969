// `gpustack probe fla` is a nested subcommand of `probe` (probe_fla_command.cpp).
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <optional>

namespace gs {

/// Declare `fla` under the `probe` subcommand. The returned action gives the exit code when
/// `probe fla` was chosen and nullopt otherwise (then `probe` runs as before).
std::function<std::optional<int>()> add_probe_fla_subcommand(CLI::App& probe);

}  // namespace gs
