// The corpus of real reports (tests/corpus/cases/<area>/*.toml, format in tests/corpus/README.md),
// loaded once for the tests that read it (the corpus test, the rule-coverage test).
#pragma once
#include <string>
#include <vector>

namespace gs::testing {

struct corpus_case {
  std::string path;    ///< relative to tests/corpus/cases ("amd/rocblas-1339.toml")
  std::string source;  ///< the public thread
  std::string title, cause, text;
  std::vector<std::string> expect, expect_not;  ///< expect empty: a negative case
  std::string error;   ///< non-empty when the file did not parse or lacks `expect`
};

const std::vector<corpus_case>& corpus_cases();

}  // namespace gs::testing
