// `gpustack matrix fleet REPORT...` (issue 20; docs/fleet.md): the reports of every node of a
// cluster (one per node, from `srun` or a Kubernetes Job) folded into one view: which stack each
// node runs (the matrix's fingerprint), which stack most nodes run, and for every node that is not on
// it, how it differs (`report diff` against a node of the majority): versions, settings, probes
// that fail there and not on the majority.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "report/report_diff.h"

namespace gs {

struct fleet_node {
  std::string label;        ///< the report's file name without directory and extension ("node03")
  std::string stack;        ///< fingerprint_id of its stack
  bool on_majority = false;
  int failing_probes = 0;   ///< fail, hang, crash, error
  int fail_findings = 0;
  report_diff against_majority;  ///< empty for a node on the majority stack
};

struct fleet_view {
  std::vector<fleet_node> nodes;  ///< in label order
  std::string majority;           ///< the stack most nodes run (the first by id on a tie)
  size_t majority_nodes = 0;
  size_t stacks = 0;
  bool tie = false;               ///< another stack has as many nodes as the majority
  std::string majority_label;     ///< the node the others are diffed against
  bool all_alike() const;         ///< one stack, nothing failing anywhere
};

/// (label, report) pairs, in any order.
fleet_view fold_fleet(const std::vector<std::pair<std::string, nlohmann::json>>& reports);

/// The label of a report file: "fleet/node03.json" -> "node03".
std::string fleet_label(const std::string& path);

nlohmann::json fleet_json(const fleet_view& v);
std::string render_fleet_human(const fleet_view& v, bool color);
std::string render_fleet_markdown(const fleet_view& v);

}  // namespace gs
