// The works-at-A / fails-at-B contrast read from prose (src/explain/extract_regression.cpp).
// Cost: a dozen short pastes, well under a millisecond.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "explain/paste.h"

namespace gs {
namespace {

struct told_regression {
  std::string component, good, bad;
};

told_regression regression_in(std::string_view text) {
  told_regression t;
  for (const pasted_fact& f : read_paste(text).facts_read) {
    if (f.key == "regression.component") t.component = f.value;
    if (f.key == "regression.good") t.good = f.value;
    if (f.key == "regression.bad") t.bad = f.value;
  }
  return t;
}

void expect_regression(std::string_view text, const std::string& comp, const std::string& good, const std::string& bad) {
  told_regression t = regression_in(text);
  EXPECT_EQ(t.component, comp) << text;
  EXPECT_EQ(t.good, good) << text;
  EXPECT_EQ(t.bad, bad) << text;
}

TEST(RegressionProse, AWorksAndAFailsClauseOfOneComponentNameBothVersions) {
  expect_regression("It works with b1292, fails with b1293 (core dumped).\n", "llama.cpp", "b1292", "b1293");
  expect_regression("b4500 works fine but b4501 crashes on load\n", "llama.cpp", "b4500", "b4501");
  expect_regression("Everything worked on kernel 6.8.12, it broke after updating to 6.9.3.\n", "kernel", "6.8.12", "6.9.3");
  expect_regression("After updating the driver from 566.36 to 572.16 ComfyUI crashes on every run.\n", "nvidia-driver", "566.36",
                    "572.16");
  expect_regression("Ollama 0.6.2 works on the GPU. With ollama 0.6.5 it segfaults.\n", "ollama", "0.6.2", "0.6.5");
  expect_regression("Downgrading to Adrenalin 24.12.1 fixed it, 25.3.1 hangs the GPU\n", "amd-driver", "24.12.1", "25.3.1");
  expect_regression("Versions after b10215 just throw errors on our Intel Ultra CPU\n", "llama.cpp", "b10215", "after b10215");
}

TEST(RegressionProse, AHeadedBulletListSaysWhichVersionsWork) {
  expect_regression("Was working with:\n  - kernel.x86_64 6.17.7-300.fc43\n  - kernel.x86_64 6.17.8-300.fc43\n but not with:\n"
                    "  - kernel.x86_64 6.17.9-300.fc43\n",
                    "kernel", "6.17.8", "6.17.9");
}

TEST(RegressionProse, PythonPackagesAndNightliesAreComponentsOfTheirOwn) {
  expect_regression("bitsandbytes==0.45.3 works, bitsandbytes==0.45.4 fails with the error below\n", "bitsandbytes", "0.45.3",
                    "0.45.4");
  // the keyword ending nearest the version wins: Triton's ROCm wheel is Triton, not ROCm
  expect_regression("pytorch-triton-rocm 3.1.0 worked fine; pytorch-triton-rocm 3.2.0 crashes\n", "triton", "3.1.0", "3.2.0");
  expect_regression("Works on torch 2.6.0.dev20241111, fails on torch 2.6.0.dev20241112\n", "torch", "2.6.0.dev20241111",
                    "2.6.0.dev20241112");
  expect_regression("transformers 4.45.2 runs fine but 4.46.0 raises the error\n", "transformers", "4.45.2", "4.46.0");
  // a wheel's file name: the package, not llama.cpp's "build"
  expect_regression("Working build: llama_cpp_python-0.3.18-cp310-cp310-win_amd64.whl\nBroken builds: "
                    "llama_cpp_python-0.3.22-cp310-cp310-win_amd64.whl\n",
                    "llama-cpp-python", "0.3.18", "0.3.22");
  // a package named as the sentence's object does not own the version (flash-attention#1644's words)
  told_regression t = regression_in("torch 2.7.0 and flash_attn-2.7.4.post1 seem broken\n"
                                    "the only torch which works for pip version of flash_attn is `2.6.0+cu124`\n");
  EXPECT_NE(t.component, "flash-attn") << t.good << " " << t.bad;
  // a pip extra belongs to its package: jax[cuda12]==0.6.2 is jax's version, not CUDA's (jax#30050's words)
  expect_regression("After upgrading to jax[cuda12]==0.6.2 it cannot find cuSPARSE\nThe same machine works fine with "
                    "jax[cuda12]==0.6.0\n",
                    "jax", "0.6.0", "0.6.2");
  // a keyword inside another word names nothing ("ctrl" is not trl)
  EXPECT_TRUE(regression_in("ctrl 1.2 works, ctrl 1.3 fails\n").component.empty());
}

TEST(RegressionProse, AnUpgradeThatBroughtTheFailureNamesTheReleaseBefore) {
  expect_regression("After upgrading vLLM to 0.9.0, the server crashes at startup.\n", "vllm", "the release before 0.9.0", "0.9.0");
  expect_regression("Since updating ollama to 0.6.5 it fails to use the GPU\n", "ollama", "the release before 0.6.5", "0.6.5");
  // an upgrade tried as a fix, or one that fixed it, is no regression
  for (std::string_view text : {"I upgraded torch to 2.7.0 but it still crashes\n",
                                "Tried updating the driver to 572.16, same error.\n",
                                "Upgrading ROCm to 6.4.1 fixed the crash\n"}) {
    told_regression t = regression_in(text);
    EXPECT_TRUE(t.component.empty()) << text << " -> " << t.component << " " << t.good << " " << t.bad;
  }
}

TEST(RegressionProse, LlamaCppsFirstBadCommitFieldIsTheReportersBisection) {
  expect_regression("### Problem description\n\nEvery model fails to load.\n\n### First Bad Commit\n\n5f0db95\n\n### Relevant log output\n",
                    "llama.cpp", "the commit before 5f0db95", "5f0db95");
  expect_regression("### First Bad Commit\n\nb4501\n", "llama.cpp", "the build before b4501", "b4501");
  for (const char* none : {"_No response_", "n/a", "not sure, it never worked", "deadbeef is what I typed", "1234567"})
    EXPECT_TRUE(regression_in(std::string("### First Bad Commit\n\n") + none + "\n").component.empty()) << none;
}

TEST(RegressionProse, ABareNumberBesideANamedBuildIsABuild) {
  // llama.cpp#19777-like: the title names b8143, the prose the neighbour without its "b"
  expect_regression("Title: b8143 produces garbage on Vulkan\n\nthings broke recently from 8143\n\n8142 works and the model answers\n",
                    "llama.cpp", "b8142", "b8143");
  // no build named anywhere: a bare number is no version; far from the named build: a count, a port
  EXPECT_TRUE(regression_in("8142 works, 8143 produces garbage\n").component.empty());
  EXPECT_TRUE(regression_in("b8143 produces garbage\nport 3000 works\n").good.empty());
}

TEST(RegressionProse, AFailureThatStartedAtAVersionNamesTheOneBeforeItAsGood) {
  expect_regression("llama-bench crashes immediately with a segfault starting with build b139.\n", "llama.cpp", "the build before b139",
                    "b139");
  expect_regression("vLLM is broken since 0.9.0, every request hangs\n", "vllm", "the release before 0.9.0", "0.9.0");
  // a version the reporter merely runs on, or a fix tried since, is no start of a failure
  EXPECT_TRUE(regression_in("I have been using vLLM since 0.9.0 and it crashes on this model\n").component.empty());
  EXPECT_TRUE(regression_in("Since b139 I tried everything, still crashes\n").component.empty());
}

TEST(RegressionProse, ABisectionToldInProseOrByGitNamesTheFirstBadCommit) {
  expect_regression("I tracked it down to the commit that broke it. https://github.com/ggml-org/llama.cpp/commit/706fbd8ab62797bd3702a3b20312efb801db49a6\n",
                    "llama.cpp", "the commit before 706fbd8ab627", "706fbd8ab627");
  expect_regression("git bisect says:\nb0c4e1d2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8 is the first bad commit\n"
                    "see https://github.com/vllm-project/vllm/commit/b0c4e1d2f3a4\n",
                    "", "the commit before b0c4e1d2f3a4", "b0c4e1d2f3a4");
  expect_regression("Bisected to https://github.com/vllm-project/vllm/commit/b0c4e1d2f3a4, before it the model loads\n", "vllm",
                    "the commit before b0c4e1d2f3a4", "b0c4e1d2f3a4");
  for (const char* none : {"I could not bisect it, 706fbd8ab627 is what I run\n", "I will bisect it tomorrow\n",
                           "tracked it down to the tokenizer config\n"})
    EXPECT_TRUE(regression_in(none).bad.empty()) << none;
}

TEST(RegressionProse, ADeniedFailureAndAnOpenEndedRangeAreContrastsToo) {
  expect_regression("I get a cuSolver internal error when running my code with JAX v0.6.1. This issue does not occur with JAX v0.5.3.\n",
                    "jax", "0.5.3", "0.6.1");
  expect_regression("Title: `XlaRuntimeError: cuSolver internal error` with jax 0.6.1 (not present in jax 0.5.3)\n", "jax", "0.5.3", "0.6.1");
  expect_regression("Running llama-server based on any llama.cpp release b8391 or later, crashes immediately.\nb8390 works as before\n",
                    "llama.cpp", "b8390", "b8391");
  // a parenthetical inside the sentence is not a clause of its own
  expect_regression("- Broken runtime: CUDA 12 llama.cpp (Windows) v2.27.1\n- Working runtime: CUDA 12 llama.cpp (Windows) v2.25.2\n",
                    "llama.cpp", "2.25.2", "2.27.1");
  // words that hold a works word or a component's name say nothing of it
  EXPECT_TRUE(regression_in("rocminfo fails with Ubuntu 18.04 and ROCm 2.2\n"
                            ">hsa api call failure at line 900, file: /data/jenkins_workspace/compute-rocm-rel-2.2/rocminfo/rocminfo.cc\n")
                  .component.empty());
  EXPECT_TRUE(regression_in("torch 2.5.1 fails: undefined symbol in torchvision 0.20.1\n").good.empty());
  // an open range with nothing failing in the line is no contrast
  EXPECT_TRUE(regression_in("Use llama.cpp b8391 or later for this model.\nb8390 works as before\n").bad.empty());
}

TEST(RegressionProse, VersionsWithoutAWorksFailsContrastGiveNothing) {
  // Only a list of versions, or both failing, or two components: no regression of one component.
  for (std::string_view text :
       {"I use kernel 6.8, ROCm 6.4.1 and torch 2.5.1 on an RX 7900 XTX.\n",
        "I was on Adrenalin 25.9.2 and it didn't work. I installed 25.3.1 but it still doesn't work.\n",
        "ROCm 6.3 works on my other machine, torch 2.5.1 fails here\n",
        "Tried llama.cpp b4500 and b4501, same error.\n",
        "ROCm 6.2 fails with hipErrorNoBinaryForGpu, ROCm 6.3 works.\n",  // an upgrade that fixed it
        "[2025-01-02 10:00:01] error: kernel 6.9.1 worked 6.9.2\n"}) {
    told_regression t = regression_in(text);
    EXPECT_TRUE(t.component.empty() && t.good.empty() && t.bad.empty()) << text << " -> " << t.component << " " << t.good << " " << t.bad;
  }
}

}  // namespace
}  // namespace gs
