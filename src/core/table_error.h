// A problem in one of the data tables that ship in the binary (matrix/hardware/*.toml), with
// the file, line and column it is at. Kept apart from toml_table.h so that the tables' users
// need not parse toml++'s headers.
#pragma once
#include <string>
#include <vector>

namespace gs {

struct table_error {
  std::string path;
  int line = 0, column = 0;
  std::string message;
  std::string to_string() const;  ///< "matrix/hardware/amd_gpus.toml:12:3: message"
};

/// A built-in table with errors is a build bug the user should hear of, as the knowledge base's
/// are: each one on stderr as "gpustack: FILE:LINE:COL: message".
void print_table_errors(const std::vector<table_error>& errors);

}  // namespace gs
