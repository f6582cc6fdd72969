// A `docker run` line in a paste: read as `check --container` reads one. The image's stack fills
// what the paste does not show; the line's faults that leave the container without a GPU (fail
// findings) are causes; its lints (/dev/shm, seccomp, groups) stay `check --container`'s.
#include <gtest/gtest.h>

#include <set>

#include "explain/explain.h"
#include "rules/error_findings.h"

namespace gs {
namespace {

std::set<std::string> finding_ids(const explain_result& r) {
  std::set<std::string> s;
  for (const finding& f : r.findings) s.insert(f.id);
  return s;
}

std::string fact_read(const explain_result& r, const std::string& key) {
  for (const pasted_fact& f : r.reading.facts_read)
    if (f.key == key) return f.value + " (" + f.from + ")";
  return "";
}

TEST(ExplainRunLine, AnAmdRunLineWithoutTheDevicesIsTheCause) {
  explain_result r = explain_text(
      "$ docker run -it rocm/pytorch:rocm6.2.3_ubuntu22.04_py3.10_pytorch_release_2.3.0\n"
      ">>> torch.cuda.is_available()\nFalse\n",
      builtin_knowledge_base());
  EXPECT_TRUE(finding_ids(r).count("GS-CONT-101")) << "no /dev/kfd, no /dev/dri: no GPU in the container";
  EXPECT_EQ(fact_read(r, "rocm.version"), "6.2.3 (image of the docker run line)");
  EXPECT_EQ(fact_read(r, "pkg.torch"), "2.3.0+rocm6.2 (image of the docker run line)");
}

TEST(ExplainRunLine, LintsOfAWorkingRunLineStaySilent) {
  // Default /dev/shm and seccomp: `check --container` notes them; a report about something else
  // must not get them as findings.
  explain_result r = explain_text(
      "docker run -it --device=/dev/kfd --device=/dev/dri --group-add video rocm/pytorch:latest\n"
      "ValueError: too many values to unpack (expected 2)\n",
      builtin_knowledge_base());
  for (const finding& f : r.findings) EXPECT_NE(f.id.rfind("GS-CONT-1", 0), 0u) << f.id << ": " << f.title;
}

TEST(ExplainRunLine, ThePastesOwnVersionsWinOverTheImageTag) {
  explain_result r = explain_text(
      "docker run --device=/dev/kfd --device=/dev/dri rocm/dev-ubuntu-22.04:6.2.4\n"
      "$ cat /opt/rocm/.info/version\n6.3.1-48\n",
      builtin_knowledge_base());
  EXPECT_EQ(r.reading.facts.stack.rocm_version, "6.3.1");
}

TEST(ExplainRunLine, SeveralRunLinesDecideNothing) {
  explain_result r = explain_text(
      "docker run -it rocm/pytorch:rocm6.2.3_ubuntu22.04_py3.10_pytorch_release_2.3.0\n"
      "docker run -it --gpus all nvidia/cuda:12.4.1-devel-ubuntu22.04\n",
      builtin_knowledge_base());
  EXPECT_FALSE(finding_ids(r).count("GS-CONT-101"));
  EXPECT_EQ(fact_read(r, "rocm.version"), "");
}

}  // namespace
}  // namespace gs
