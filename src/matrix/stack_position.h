// Where a stack sits in the compatibility matrix (`gpustack check`, docs/matrix.md):
// known good (a row matches on every component and nothing in it failed), known bad (a matching
// row has a fail/hang/crash/error cell), or unknown; and the nearest known-good row (fewest
// differing components) with the differences named.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/finding.h"
#include "matrix/matrix.h"

namespace gs {

struct component_difference {
  std::string component;  ///< "triton"
  std::string label;      ///< "Triton"
  std::string yours;      ///< the live value ("" = absent)
  std::string known;      ///< the row's value
};

struct stack_position {
  std::string verdict = "unknown";  ///< known_good | known_bad | unknown
  std::string row_id;               ///< the matching row (known good / known bad)
  std::string row_note;
  std::vector<const matrix_cell*> bad_cells;  ///< what failed in the matching row(s)
  std::vector<const matrix_cell*> good_cells;
  std::string nearest_id;  ///< nearest known-good row ("" if the matrix has none), when not known good
  std::string nearest_note;
  std::vector<component_difference> differences;
  int rows_considered = 0;
};

/// Pointers in the result point into `m`, which must outlive it.
stack_position locate_stack(const compat_matrix& m, const fingerprint& live);

/// The report's `matrix_position` section (reports/schema/report.schema.json).
nlohmann::json position_json(const stack_position& p, const fingerprint& live);
/// One line for the human/Markdown output ("matrix: known bad (stack 1a2b...): fla.native.stages2 hang").
std::string position_line(const nlohmann::json& position);
/// GS-MATRIX-001 when the stack is known bad (warn: the evidence is other runs, not this one).
std::optional<finding> position_finding(const stack_position& p);

}  // namespace gs
