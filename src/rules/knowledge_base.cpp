// PLACEHOLDER: being written (issue 2).
#include "rules/knowledge_base.h"
namespace gs {
struct rule {};
std::string kb_error::to_string() const { return path + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message; }
std::vector<kb_source> builtin_kb_sources() { return {}; }
knowledge_base::knowledge_base() : rules_(new std::vector<rule>) {}
knowledge_base::~knowledge_base() { delete rules_; }
knowledge_base::knowledge_base(knowledge_base&& o) noexcept : rules_(o.rules_) { o.rules_ = new std::vector<rule>; }
knowledge_base& knowledge_base::operator=(knowledge_base&& o) noexcept { std::swap(rules_, o.rules_); return *this; }
knowledge_base knowledge_base::load(const std::vector<kb_source>&, std::vector<kb_error>&) { return {}; }
knowledge_base knowledge_base::load_builtin(std::vector<kb_error>& e) { return load(builtin_kb_sources(), e); }
std::vector<finding> knowledge_base::evaluate(const machine_facts&) const { return {}; }
std::vector<finding> knowledge_base::match_error_text(std::string_view, const machine_facts&) const { return {}; }
size_t knowledge_base::size() const { return rules_->size(); }
const std::vector<rule>& knowledge_base::rules() const { return *rules_; }
}  // namespace gs
