// The real container specs of tests/fixtures/container/ (format in its README), loaded once for the
// tests that read them (the container cases test, the rule-coverage test).
#pragma once
#include <string>
#include <vector>

namespace gs::testing {

struct container_case {
  std::string path, kind, text, gpu, driver, miss;
  bool negative = false;
  std::vector<std::string> expect;  ///< rule ids the spec must draw
};

const std::vector<container_case>& container_cases();

/// Every id some real spec must draw.
std::vector<std::string> container_case_ids();

}  // namespace gs::testing
