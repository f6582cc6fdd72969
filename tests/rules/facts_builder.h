// The machine-facts builders live in tests/support/sample_facts.h. This forwarding name stays
// only until tests/rules/kb_eval_test.cpp, which was being edited elsewhere when they moved,
// includes that header itself; nothing else may include it.
#pragma once
#include "support/sample_facts.h"
