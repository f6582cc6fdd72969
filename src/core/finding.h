// A finding: one thing the knowledge base says about this machine (GUIDE "Findings").
// Ids are stable (GS-ENV-001 ...), never renumbered, documented in docs/findings.md.
#pragma once
#include <string>
#include <vector>

#include "core/status.h"

namespace gs {

struct finding {
  std::string id;                 ///< "GS-ENV-001"
  severity level = severity::info;
  std::string title;              ///< one line: what is wrong
  std::string evidence;           ///< what was seen that made the rule fire ("HSA_OVERRIDE_GFX_VERSION=11.0.0 on gfx1201")
  std::string remediation;        ///< one line a user can paste or follow
  std::vector<std::string> refs;  ///< upstream issues, docs
  std::string rule_source;        ///< "matrix/rules/env.toml:12" for maintainers
  /// Facts the rule depends on that the input did not show (pasted text only): the finding
  /// rests on the error text, and these would confirm or rule it out ("gpu.arch", "pkg.triton").
  std::vector<std::string> unknown_facts;
};

}  // namespace gs
