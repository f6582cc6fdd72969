// Reading what a user pastes (`gpustack explain`): tracebacks and training logs, collect_env,
// pip/uv/conda lists, rocminfo, rocm-smi/amd-smi, nvidia-smi (plain and -q), clinfo,
// vulkaninfo, env dumps and KEY=VALUE lines, dmesg, GitHub issue Markdown and gpustack's own
// JSON reports, in any mix and order. The facts found fill the same machine_facts that live
// detection fills, marked partial (facts_coverage) so that what the paste does not say is
// unknown rather than absent, and each fact keeps the line it was read from.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/facts.h"

namespace gs {

/// One fact taken from the paste, with where it came from.
struct pasted_fact {
  std::string key;    ///< a rule fact key: "gpu.arch", "pkg.torch", "rocm.version", "env.HSA_OVERRIDE_GFX_VERSION"
  std::string value;  ///< as read ("gfx1100", "2.5.1+rocm6.2")
  size_t line = 0;    ///< 1-based line of the normalised paste (0: from a gpustack report's JSON)
  std::string from;   ///< the input kind it was read from ("collect_env", "pip list", "rocminfo", "text")
};

struct paste_reading {
  std::vector<std::string> lines;        ///< the paste, normalised (Markdown, HTML tags, ANSI codes and quote marks off)
  std::vector<std::string> kinds;        ///< input kinds recognised, in order of first appearance
  std::vector<pasted_fact> facts_read;   ///< the reading that won for each fact, in key order
  std::vector<std::string> ambiguities;  ///< what the paste says two ways ("GPUs named: RTX 3090 (sm_86), RTX 4090 (sm_89)")
  machine_facts facts;                   ///< coverage.partial is set
  std::string error_text;                ///< what error signatures are matched against
  bool from_report = false;              ///< the paste held a gpustack JSON report
};

/// Pastes larger than this are cut (a log of a whole training run is still read in full up to here).
constexpr size_t kMaxPasteBytes = 64u << 20;

paste_reading read_paste(std::string_view text);

/// The paste's lines with Markdown fences, known HTML tags (<details>, <summary>, <br>, <pre>,
/// <code>), ANSI colour codes, CRs and "> " quote marks removed and HTML entities decoded;
/// "<module>" and other angle-bracket words in tracebacks are kept.
std::vector<std::string> normalise_paste(std::string_view text);

}  // namespace gs
