// `gpustack probe collective` is a nested subcommand of `probe` (probe_collective_command.cpp).
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <optional>

namespace gs {

/// Declare `collective` under the `probe` subcommand. The returned action gives the exit code
/// when `probe collective` was chosen and nullopt otherwise.
std::function<std::optional<int>()> add_probe_collective_subcommand(CLI::App& probe);

}  // namespace gs
