// Sentences about a problem the reporter already solved (explain/solved_prose.h), from held-back
// set 11's two false findings and the near misses that must stay visible to the rules.
#include "explain/solved_prose.h"

#include <gtest/gtest.h>

namespace gs {
namespace {

bool solved(const std::string& line) { return solved_problem_lines({line})[0]; }

TEST(SolvedProse, APastProblemOrASolvedOneFollowedByAnotherIsSet) {
  EXPECT_TRUE(solved("However, I was getting a CUDA out of memory issue, so I made the following change:"));
  EXPECT_TRUE(solved("I followed #20, and I was able to get rid of the 'CUDA Setup failed despite GPU being available.' "
                     "error I had earlier, however a new one arose, here is the log:"));
  EXPECT_TRUE(solved("Reinstalling fixed the libcudart error for me, but now I get a segmentation fault at load"));
}

TEST(SolvedProse, TheErrorItselfAndTheThreadsOwnAnswerStay) {
  EXPECT_FALSE(solved("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. I was getting this, so I"))
      << "an exception line is not prose";
  EXPECT_FALSE(solved("After setting --max-model-len 8192 the OOM went away. I also use an AWQ quant. Works amazing!"))
      << "solved with no turn to another problem: the thread's answer";
  EXPECT_FALSE(solved("I get CUDA out of memory when I load the model in 8-bit on my 3090"));
  EXPECT_FALSE(solved("CUDA Setup failed despite GPU being available. Please run the following command"));
  EXPECT_FALSE(solved("Jun 30 11:07:05 gpu-0 kernel: NVRM: API mismatch: the client has the version 535.54.03"));
}

TEST(SolvedProse, OneAnswerPerLine) {
  std::vector<bool> v = solved_problem_lines({"", "I was getting an OOM error, so I lowered the batch size", "RuntimeError: x"});
  EXPECT_EQ(v, (std::vector<bool>{false, true, false}));
}

}  // namespace
}  // namespace gs
