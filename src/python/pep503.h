// Python project names as installers compare them: PEP 503 normalisation ("Flash_Linear.Attention"
// and "flash-linear-attention" are the same project) and the PEP 508 validity check that tells a
// real METADATA Name from junk.
#pragma once
#include <string>
#include <string_view>

namespace gs {

/// Runs of '-', '_' and '.' become one '-', ASCII letters are lowercased ("PyYAML" -> "pyyaml").
std::string pep503_normalize(std::string_view name);

/// PEP 508 name: ASCII letters, digits, '-', '_', '.', starting and ending with a letter or digit.
bool is_valid_project_name(std::string_view name);

}  // namespace gs
