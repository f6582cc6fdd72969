// Lines in which the reporter tells of a problem that is already behind them: "I was able to get
// rid of the 'CUDA Setup failed despite GPU being available.' error I had earlier, however a new
// one arose", "I was getting a CUDA out of memory issue, so I made the following change". The
// error named there is not the one to diagnose, so error signatures do not see these lines
// (held-back set 11: two findings, one on a negative, fired on such sentences).
#pragma once
#include <string>
#include <vector>

namespace gs {

/// For each line: true when it is the reporter's prose (a sentence in the first person, not a
/// log, traceback or tool line) that puts the problem it names in the past ("I was getting X, so
/// I ...", "the error I had earlier") or says it was solved and turns to another ("I got rid of
/// X, however a new one arose"). A sentence that only says it was solved is kept: that is often
/// the thread's answer, and its cause the one to name.
std::vector<bool> solved_problem_lines(const std::vector<std::string>& lines);

}  // namespace gs
