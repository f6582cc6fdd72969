// The one table of what `--set` may change, per probe: each option's key, kind and range, so
// the command line refuses an unknown key or a bad value (naming the valid ones) and the probe
// reads the value already checked. Adding an option is a row in probe_options.cpp.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

struct probe_option_spec {
  const char* probe;  ///< probe id ("tensor.vector_add")
  const char* key;    ///< key as the probe reads it ("n")
  bool integer;       ///< whole number in [lo, hi]; otherwise a non-empty text (a path)
  long long lo, hi;
  const char* help;   ///< what it sets, for errors and --list
};

/// The table, in probe order.
const std::vector<probe_option_spec>& probe_option_table();
/// nullptr when `probe` takes no option `key`.
const probe_option_spec* find_probe_option(std::string_view probe, std::string_view key);

/// `--set` values for the probes about to run: "ID.KEY=VALUE" sets one probe's option, "KEY=VALUE"
/// that option of every selected probe that has it. Returns the runner's option map (keys
/// "ID.KEY"), or sets `error` to a message that names the valid keys.
std::map<std::string, std::string> resolve_probe_settings(const std::vector<std::string>& sets,
                                                          const std::vector<std::string>& selected_ids, std::string& error);

}  // namespace gs
