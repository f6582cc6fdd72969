// The one table of a card_state's figures (core/facts.h): each one's key and meaning, written
// once for everything that names them: the report's gpus[].card object, the snapshot's card
// record, the knowledge base's facts (gpu.<key>) and the terminal and Markdown lines.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/facts.h"

namespace gs {

struct card_number_field {
  const char* key;   ///< "clock_sm_mhz": JSON and record key, fact "gpu.clock_sm_mhz"
  const char* help;  ///< one line for docs/knowledge-base.md
  std::optional<double> card_state::*real = nullptr;
  std::optional<int> card_state::*whole = nullptr;  ///< integers (P-state, lanes, process count)
};
struct card_text_field {
  const char* key;
  const char* help;
  std::string card_state::*member;
};
struct card_flag_field {
  const char* key;
  const char* help;
  std::optional<bool> card_state::*member;
};

const std::vector<card_number_field>& card_number_fields();
const std::vector<card_text_field>& card_text_fields();
const std::vector<card_flag_field>& card_flag_fields();

/// The field's value as a number (integers widened), unset when unknown.
std::optional<double> card_number(const card_state& c, const card_number_field& f);
void set_card_number(card_state& c, const card_number_field& f, double v);

/// "gpu_idle, sw_power_cap" for the text views; "none" for an empty list, "" when unknown.
std::string throttle_text(const card_state& c);

/// Reasons that mean the card is held below its clocks by heat or power (not idle, not an
/// administrator's setting): sw/hw thermal slowdown, hw slowdown, power brake, power cap.
bool is_limiting_reason(const std::string& reason);
bool is_thermal_reason(const std::string& reason);

}  // namespace gs
