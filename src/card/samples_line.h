// A step's card samples (data.card, watch/card_sampler.h) as one line, for the terminal line of
// the step and the Markdown report's probe rows alike. In card/ because both watch/ and report/
// show it and card/ sits below them.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace gs {

/// "SM 1755-1980 MHz (mean 1962), 412-688 W, 41-58 C, 99% busy" from data.card; "" without.
std::string card_samples_line(const nlohmann::json& data);

}  // namespace gs
