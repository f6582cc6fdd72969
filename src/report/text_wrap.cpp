#include "report/text_wrap.h"

namespace gs {

std::string word_wrap(const std::string& text, size_t width, size_t indent) {
  if (width == 0 || text.size() + indent <= width) return text;
  std::string out, line;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t sp = text.find(' ', pos);
    std::string word = text.substr(pos, sp == std::string::npos ? std::string::npos : sp - pos);
    pos = sp == std::string::npos ? text.size() : sp + 1;
    if (word.empty()) continue;  // runs of spaces fold into one
    if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
      out += line + "\n" + std::string(indent, ' ');
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + line;
}

}  // namespace gs
