// Validate a report against reports/schema/report.schema.json with Python's jsonschema
// (Debian python3-jsonschema, installed by scripts/install-deps.sh). A missing validator is a
// test FAILURE, never a skip: a schema nobody checks drifts.
#pragma once
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace gs::testing {

/// Success when `report` validates against GPUSTACK_SCHEMA; otherwise the validator's words.
::testing::AssertionResult matches_report_schema(const nlohmann::json& report);

}  // namespace gs::testing
