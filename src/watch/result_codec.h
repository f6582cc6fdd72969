// probe_result <-> JSON text, as a watched child sends its result to the parent. Decoding
// never throws: a child that died mid-write or sent nonsense yields nullopt and a reason.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "core/probe_result.h"

namespace gs {

std::string encode_probe_result(const probe_result& r);
/// nullopt (with *why set) when the text is not a probe_result.
std::optional<probe_result> decode_probe_result(std::string_view text, std::string* why);

}  // namespace gs
