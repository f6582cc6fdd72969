// Word wrap for the terminal views (render_human, explain): prose folds at the terminal's width,
// nothing is cut, and a command a user copies is never passed through here.
#pragma once
#include <string>

namespace gs {

/// Greedy word wrap of `text` written from column `indent` of a `width`-column terminal: the
/// continuation lines are indented to that column. width 0 (a pipe, a file): one line. A word
/// longer than a line keeps a line of its own, whole.
std::string word_wrap(const std::string& text, size_t width, size_t indent);

}  // namespace gs
