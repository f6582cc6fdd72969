// regex_anchors: literals one of which every match of a pattern must contain, so the matcher can skip the
// lines that lack it with a memchr-fast find instead of running std::regex on each of them.
// Conservative by construction: anything it does not understand ends the current literal run.
#include <cctype>
#include <string>

#include "rules/rule.h"

namespace gs {

namespace {

/// The longest literal of one alternative (no top-level '|' inside).
std::string branch_anchor(std::string_view re) {
  std::string best, run;
  auto end_run = [&] {
    if (run.size() > best.size()) best = run;
    run.clear();
  };
  for (size_t i = 0; i < re.size(); ++i) {
    char c = re[i];
    char next = i + 1 < re.size() ? re[i + 1] : '\0';
    bool optional_next = next == '?' || next == '*' || (next == '{' && i + 2 < re.size() && re[i + 2] == '0');
    if (c == '\\') {
      if (i + 1 >= re.size()) break;
      char e = re[++i];
      char after = i + 1 < re.size() ? re[i + 1] : '\0';
      bool optional = after == '?' || after == '*' || (after == '{' && i + 2 < re.size() && re[i + 2] == '0');
      if (std::isalnum(static_cast<unsigned char>(e)) || optional) {  // \d \s \b \w \1 ...: a class, not a literal
        end_run();
      } else {
        run += static_cast<char>(std::tolower(static_cast<unsigned char>(e)));
        if (after == '+') end_run();
      }
      continue;
    }
    if (c == '[') {  // a class: skip to its end
      end_run();
      for (++i; i < re.size() && re[i] != ']'; ++i)
        if (re[i] == '\\') ++i;
      continue;
    }
    if (c == '(') {  // a group: skip it whole
      end_run();
      int d = 1;
      bool cls = false;
      for (++i; i < re.size() && d > 0; ++i) {
        if (re[i] == '\\') ++i;
        else if (cls) cls = re[i] != ']';
        else if (re[i] == '[') cls = true;
        else if (re[i] == '(') ++d;
        else if (re[i] == ')') --d;
      }
      --i;
      continue;
    }
    if (c == '.' || c == '^' || c == '$' || c == ')' || c == ']' || c == '?' || c == '*' || c == '+' || c == '{' || c == '}') {
      end_run();
      if (c == '{')
        while (i < re.size() && re[i] != '}') ++i;
      continue;
    }
    if (optional_next) {  // "a?" may be absent
      end_run();
      continue;
    }
    run += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (next == '+') end_run();  // "a+" is one or more: the one is certain, what follows is not adjacent
  }
  end_run();
  return best;
}

}  // namespace

std::vector<std::string> regex_anchors(std::string_view re) {
  std::vector<std::string_view> branches;
  int depth = 0;
  bool in_class = false;
  size_t start = 0;
  for (size_t i = 0; i < re.size(); ++i) {
    char c = re[i];
    if (c == '\\') {
      ++i;
    } else if (in_class) {
      if (c == ']') in_class = false;
    } else if (c == '[') {
      in_class = true;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      --depth;
    } else if (c == '|' && depth == 0) {
      branches.push_back(re.substr(start, i - start));
      start = i + 1;
    }
  }
  branches.push_back(re.substr(start));
  std::vector<std::string> out;
  for (std::string_view b : branches) {
    std::string a = branch_anchor(b);
    if (a.size() < 2) return {};  // this alternative could match anywhere: no skipping
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace gs
