// Cheap by construction: a line must first read as first-person prose (a few string finds) before
// any regex runs, so a 1 MB log of tool output costs one scan of each line.
#include "explain/solved_prose.h"

#include <cctype>
#include <regex>

namespace gs {
namespace {

/// A sentence: starts with a letter (not "[", a timestamp, "File ", "  at"), has `min_words` words
/// or more, and is not an exception or log line ("ValueError: ...", "INFO: ...").
bool sentence(const std::string& l, size_t min_words) {
  size_t b = l.find_first_not_of(" \t");
  if (b == std::string::npos || !std::isalpha(static_cast<unsigned char>(l[b]))) return false;
  std::string_view t(l.c_str() + b, l.size() - b);
  if (t.rfind("File ", 0) == 0 || t.rfind("Traceback", 0) == 0) return false;
  size_t colon = t.find(": ");
  if (colon != std::string_view::npos && t.substr(0, colon).find(' ') == std::string_view::npos) return false;
  size_t words = 1;
  for (char c : t) words += c == ' ';
  return words >= min_words;
}

/// The reporter's own sentence: six words or more, in the first person.
bool first_person_prose(const std::string& l) {
  if (!sentence(l, 6)) return false;
  std::string_view t(l);
  for (std::string_view w : {"I ", "I'", "I\u2019", " my ", "My ", " we ", "We ", " our "})
    if (t.find(w) != std::string_view::npos) return true;
  return false;
}

bool says_solved(const std::string& l) {
  static const std::regex cue(
      R"(\b(?:got|get|gotten|getting) rid of\b|\b(?:fixed|solved|resolved) (?:it|this|that|the|by)\b|\bworked around\b|)"
      R"(\bno longer (?:get|see|happen|occur|appear)|\bnow (?:fits|works|runs|loads|starts)\b|\b(?:works|runs|fits) now\b|)"
      R"(\bwent away\b|\b(?:error|issue|problem) (?:is|was) gone\b)",
      std::regex::icase);
  return std::regex_search(l, cue);
}

/// After the solved one, the same sentence turns to another problem: "..., however a new one arose".
/// Without that turn a "solved" sentence is often the thread's own answer ("after setting
/// --max-model-len the OOM went away"), whose cause is the one to name.
bool new_problem_follows(const std::string& l) {
  static const std::regex turn(
      R"(\b(?:however|but|now|then|instead)\b.*\b(?:new|another|different|other|next|second)\b.*\b(?:error|one|problem|issue|exception|crash)|)"
      R"(\b(?:however|but) (?:now )?(?:I|we) (?:get|got|see|hit|have)\b)",
      std::regex::icase);
  return std::regex_search(l, turn);
}

/// The sentence itself puts its problem in the past: "I was getting X, so I ...", "the error I had earlier".
bool past_problem(const std::string& l) {
  static const std::regex cue(
      R"(\b(?:I|we) (?:was|were) (?:getting|seeing|hitting|having)\b.*\bso (?:I|we)\b|\b(?:I|we) had (?:earlier|before|previously)\b)",
      std::regex::icase);
  return std::regex_search(l, cue);
}

}  // namespace

std::vector<bool> solved_problem_lines(const std::vector<std::string>& lines) {
  std::vector<bool> out(lines.size(), false);
  for (size_t i = 0; i < lines.size(); ++i)
    out[i] = lines[i].size() <= 2000 && first_person_prose(lines[i]) &&
             (past_problem(lines[i]) || (says_solved(lines[i]) && new_problem_follows(lines[i])));
  return out;
}

}  // namespace gs
