// `gpustack matrix show`: the matrix as a terminal table, Markdown, or one self-contained HTML
// page with a colour grid (arch x stack x probe) that opens in any browser without a network.
#pragma once
#include <string>
#include <vector>

#include "matrix/matrix.h"

namespace gs {

/// Rows in display order: by arch, then known bad before good before unknown, then id.
std::vector<const matrix_row*> display_order(const compat_matrix& m);
/// Every probe id in the matrix, sorted.
std::vector<std::string> probe_columns(const compat_matrix& m);
/// "ROCm 7.2, torch 2.11.0+rocm7.2, Triton 3.6.0, num_stages cap 1": the recorded components
/// other than the arch, skipping absent ("") and unrecorded ("*") ones.
std::string components_text(const matrix_row& r);

std::string render_matrix_human(const compat_matrix& m, const std::string& source, bool color);   // render_matrix_human.cpp
std::string render_matrix_markdown(const compat_matrix& m, const std::string& source);            // render_matrix_markdown.cpp
std::string render_matrix_html(const compat_matrix& m, const std::string& source);                // render_matrix_html.cpp

}  // namespace gs
