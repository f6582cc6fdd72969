// Rule evaluation semantics on small inline rule files: scopes (per GPU, per device node, per
// allocator variable), dedupe, ordering, escalation, unless, unset facts, package groups,
// derived facts, templates, and error-text matching.
#include <gtest/gtest.h>

#include "support/sample_facts.h"
#include "rules/knowledge_base.h"

namespace gs {
namespace {

using test::GiB;

/// A rule file with one rule per (id, severity, evidence, when-lines) entry.
struct mini_rule {
  std::string id, sev, evidence, when, extra = "";
};
knowledge_base kb_of(const std::vector<mini_rule>& rules, const std::string& prelude = "") {
  std::string t = "schema = 1\n" + prelude;
  for (const mini_rule& r : rules)
    t += "[[rule]]\nid = \"" + r.id + "\"\nseverity = \"" + r.sev + "\"\ntitle = \"title " + r.id + "\"\nevidence = \"" +
         r.evidence + "\"\nremediation = \"fix " + r.id + "\"\n" + r.extra + "[rule.when]\n" + r.when + "\n";
  std::vector<kb_error> errors;
  knowledge_base kb = knowledge_base::load({{"m.toml", t}}, errors);
  for (const kb_error& e : errors) ADD_FAILURE() << e.to_string();
  return kb;
}

std::vector<std::string> ids(const std::vector<finding>& fs) {
  std::vector<std::string> out;
  for (const finding& f : fs) out.push_back(f.id + " " + f.evidence);
  return out;
}

machine_facts two_gpus() {
  machine_facts f = test::r9700();
  gpu_info g = f.gpus[0];
  g.arch = "gfx1100";
  g.name = "Radeon RX 7900 XTX";
  g.kfd_node = 2;
  f.gpus.push_back(g);
  return f;
}

TEST(KbEval, AGpuRuleFiresPerMatchingGpuAndNamesIt) {
  knowledge_base kb = kb_of({{"GS-T-001", "warn", "{gpu.arch}", "gpu.arch = \"gfx12*\""},
                             {"GS-T-002", "info", "{gpu.name}", "gpu.vendor = \"amd\""}});
  auto fs = kb.evaluate(two_gpus());
  EXPECT_EQ(ids(fs), (std::vector<std::string>{"GS-T-001 gfx1201", "GS-T-002 Radeon AI PRO R9700", "GS-T-002 Radeon RX 7900 XTX"}));
}

TEST(KbEval, IdenticalFindingsAreMerged) {
  machine_facts f = test::r9700();
  f.gpus.push_back(f.gpus[0]);  // two identical cards
  knowledge_base kb = kb_of({{"GS-T-001", "warn", "{gpu.arch}", "gpu.vendor = \"amd\""}});
  EXPECT_EQ(kb.evaluate(f).size(), 1u);
}

TEST(KbEval, OrderIsFailWarnInfoThenId) {
  knowledge_base kb = kb_of({{"GS-B-002", "info", "x", "gpus.count = 1"},
                             {"GS-A-009", "warn", "x", "gpus.count = 1"},
                             {"GS-Z-001", "fail", "x", "gpus.count = 1"},
                             {"GS-A-001", "warn", "x", "gpus.count = 1"}});
  auto fs = kb.evaluate(test::r9700());
  EXPECT_EQ(ids(fs), (std::vector<std::string>{"GS-Z-001 x", "GS-A-001 x", "GS-A-009 x", "GS-B-002 x"}));
  EXPECT_EQ(fs[0].level, severity::fail);
  EXPECT_EQ(fs[0].title, "title GS-Z-001");
  EXPECT_EQ(fs[0].remediation, "fix GS-Z-001");
  EXPECT_EQ(fs[0].rule_source, "m.toml:18");
}

TEST(KbEval, EscalationAndUnless) {
  knowledge_base kb = kb_of({{"GS-T-001", "warn", "{pkg.fla}", "pkg.triton = \"==3.6.0\"",
                              "[[rule.escalate]]\nseverity = \"fail\"\nwhen = { pkg.fla = { set = true } }\n"},
                             {"GS-T-002", "warn", "x", "gpu.vendor = \"amd\"\n[rule.unless]\ngpu.arch = \"gfx12*\""}},
                            "[packages]\ntriton = [\"triton\", \"pytorch-triton-rocm\"]\nfla = [\"flash-linear-attention\", \"fla-core\"]\n");
  machine_facts f = test::with_pkg(test::without_pkg(test::r9700(), "pytorch-triton-rocm"), "pytorch-triton-rocm", "3.6.0+rocm7.2");
  auto fs = kb.evaluate(f);
  ASSERT_EQ(ids(fs), (std::vector<std::string>{"GS-T-001 (not installed)"}));
  EXPECT_EQ(fs[0].level, severity::warn);
  fs = kb.evaluate(test::with_pkg(f, "fla-core", "0.5.0"));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].level, severity::fail);
  EXPECT_EQ(fs[0].evidence, "0.5.0");
  EXPECT_EQ(ids(kb.evaluate(two_gpus())), (std::vector<std::string>{"GS-T-002 x"}));
}

TEST(KbEval, NegativeOperatorsHoldOnUnsetFactsButFactComparisonsNeedBoth) {
  knowledge_base kb = kb_of({{"GS-T-001", "info", "{env.FOO}", "env.FOO = { ne = \"TRUE\" }"},
                             {"GS-T-002", "info", "x", "gpu.hsa_override.as_gfx = { ne = { fact = \"gpu.arch\" } }"}});
  auto fs = kb.evaluate(test::r9700());
  EXPECT_EQ(ids(fs), (std::vector<std::string>{"GS-T-001 (unset)"}));
  EXPECT_TRUE(kb.evaluate(test::with_env(test::r9700(), "FOO", "TRUE")).empty());
  fs = kb.evaluate(test::with_env(test::r9700(), "HSA_OVERRIDE_GFX_VERSION", "11.0.0"));
  EXPECT_EQ(ids(fs), (std::vector<std::string>{"GS-T-001 (unset)", "GS-T-002 x"}));
}

TEST(KbEval, PerNodeOverrideWinsOverTheGlobalOne) {
  knowledge_base kb = kb_of({{"GS-T-001", "info", "{gpu.hsa_override.var}={gpu.hsa_override} -> {gpu.hsa_override.as_gfx}",
                              "gpu.hsa_override = { set = true }"}});
  machine_facts f = test::with_env(test::with_env(test::r9700(), "HSA_OVERRIDE_GFX_VERSION", "11.0.0"),
                                   "HSA_OVERRIDE_GFX_VERSION_1", "12.0.1");
  EXPECT_EQ(ids(kb.evaluate(f)), (std::vector<std::string>{"GS-T-001 HSA_OVERRIDE_GFX_VERSION_1=12.0.1 -> gfx1201"}));
}

TEST(KbEval, AnEmptyScopeStillEvaluatesOnce) {
  knowledge_base kb = kb_of({{"GS-T-001", "info", "no gpu: {gpu.arch}", "gpu.vendor = { set = false }"}});
  machine_facts f = test::r9700();
  f.gpus.clear();
  EXPECT_EQ(ids(kb.evaluate(f)), (std::vector<std::string>{"GS-T-001 no gpu: (unknown)"}));
  EXPECT_TRUE(kb.evaluate(test::r9700()).empty());
}

TEST(KbEval, DeviceAndAllocatorScopes) {
  knowledge_base kb = kb_of({{"GS-T-001", "fail", "{dev.path} {dev.error}", "dev.error = \"E*\""},
                             {"GS-T-002", "warn", "{alloc.var}: {alloc.max_split_size_mb}", "alloc.max_split_size_mb = { ge = 128 }"}});
  machine_facts f = test::r9700();
  f.access[1].ok = false;
  f.access[1].error = "EACCES";
  f.env["PYTORCH_HIP_ALLOC_CONF"] = "max_split_size_mb:512";
  f.env["PYTORCH_CUDA_ALLOC_CONF"] = "max_split_size_mb:64";
  EXPECT_EQ(ids(kb.evaluate(f)), (std::vector<std::string>{"GS-T-001 /dev/dri/renderD128 EACCES",
                                                           "GS-T-002 PYTORCH_HIP_ALLOC_CONF: 512"}));
}

TEST(KbEval, PackageGroupsVersionSuffixesAndTemplates) {
  knowledge_base kb = kb_of({{"GS-T-001", "info", "{pkg.triton.name} {pkg.triton} major {pkg.triton.major}; ram {host.ram_bytes:gib}; {{literal}}",
                              "pkg.triton = \">=3.5\"\ntorch.hip.major = { eq = { fact = \"rocm.version.major\" } }"}},
                            "[packages]\ntriton = [\"triton\", \"pytorch-triton-rocm\"]\n");
  EXPECT_EQ(ids(kb.evaluate(test::r9700())),
            (std::vector<std::string>{"GS-T-001 pytorch-triton-rocm 3.5.1 major 3; ram 64.0 GiB; {literal}"}));
  EXPECT_TRUE(kb.evaluate(test::with_rocm(test::r9700(), "7.2.0")).empty());
}

TEST(KbEval, DerivedFactsTakeTheFirstMatchingRow) {
  std::string prelude =
      "[[derive]]\nfact = \"gpu.min_rocm\"\ntype = \"version\"\nfrom = \"gpu.arch\"\n"
      "rows = [{ match = [\"gfx1200\", \"gfx1201\"], value = \"6.4.1\" }, { match = \"gfx9*\", value = \"6.0\" }]\n";
  knowledge_base kb = kb_of({{"GS-T-001", "fail", "{rocm.version} < {gpu.min_rocm}", "rocm.version = { lt = { fact = \"gpu.min_rocm\" } }"}},
                            prelude);
  EXPECT_EQ(ids(kb.evaluate(test::with_rocm(test::r9700(), "6.3.0"))), (std::vector<std::string>{"GS-T-001 6.3.0 < 6.4.1"}));
  EXPECT_TRUE(kb.evaluate(test::with_rocm(test::r9700(), "6.4.1")).empty());
  EXPECT_TRUE(kb.evaluate(test::with_arch(test::with_rocm(test::r9700(), "5.0"), "gfx1030", 100300, 32)).empty());  // no row: unset
}

TEST(KbEval, SizesAndShorthands) {
  knowledge_base kb = kb_of({{"GS-T-001", "warn", "{host.ram_bytes:gib}", "host.ram_bytes = { lt = \"16GiB\" }"},
                             {"GS-T-002", "info", "set", "env.LD_PRELOAD = true"},
                             {"GS-T-003", "info", "in", "gpu.wave_size = [32, 64]"}});
  machine_facts f = test::r9700();
  EXPECT_EQ(ids(kb.evaluate(f)), (std::vector<std::string>{"GS-T-003 in"}));
  f.host.ram_total_bytes = 15 * GiB + GiB / 2;
  f.env["LD_PRELOAD"] = "";
  EXPECT_EQ(ids(kb.evaluate(f)), (std::vector<std::string>{"GS-T-001 15.5 GiB", "GS-T-002 set", "GS-T-003 in"}));
  f.host.ram_total_bytes = 0;  // unreadable meminfo: not "0 bytes of RAM"
  EXPECT_EQ(ids(kb.evaluate(f)).size(), 2u);
}

TEST(KbEval, ErrorTextMatching) {
  knowledge_base kb = kb_of({{"GS-T-001", "warn", "{gpu.arch}", "pkg.triton = \"==3.6.0\"",
                              "match_text = [\"PassManager::run failed\", { regex = \"tt\\\\.load.*destroyed\" }]\n"}},
                            "[packages]\ntriton = [\"triton\", \"pytorch-triton-rocm\"]\n");
  // The facts show Triton 3.6.0: the rule's own evidence first, then the line that matched.
  machine_facts f = test::with_pkg(test::without_pkg(test::r9700(), "pytorch-triton-rocm"), "triton", "3.6.0");
  auto fs = kb.match_error_text("compiling...\n  RuntimeError: passmanager::RUN failed  \nbye", f);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].evidence, "gfx1201; error text matched \"PassManager::run failed\": RuntimeError: passmanager::RUN failed");
  fs = kb.match_error_text("error: 'tt.load' op operation destroyed but still has uses", f);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_NE(fs[0].evidence.find("error text matched \"tt\\.load.*destroyed\""), std::string::npos) << fs[0].evidence;
  // `when` gates the text: facts that show another Triton silence the rule.
  f = test::with_pkg(test::without_pkg(f, "triton"), "triton", "3.5.1");
  EXPECT_TRUE(kb.match_error_text("PassManager::run failed", f).empty());
  // Pasted text that does not show Triton's version cannot rule it out: the finding stands on
  // the text alone and names the fact that would decide it.
  machine_facts pasted;
  pasted.coverage.partial = true;
  fs = kb.match_error_text("PassManager::run failed", pasted);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].evidence, "error text matched \"PassManager::run failed\": PassManager::run failed");
  EXPECT_EQ(fs[0].unknown_facts, (std::vector<std::string>{"pkg.triton"}));
  EXPECT_TRUE(fs[0].remediation.empty() || fs[0].remediation == "fix GS-T-001");
  EXPECT_TRUE(kb.match_error_text("all good", f).empty());
  EXPECT_TRUE(kb.match_error_text("", f).empty());
}

TEST(KbEval, APasteThatNamesGpusBoundsTheCountsFromBelow) {
  // One `GPU: RTX 4070 Ti` line shows "at least one GPU", never "exactly one" or "none".
  knowledge_base kb = kb_of({{"GS-T-001", "fail", "{gpus.count} GPU(s)", "gpus.count = { ge = 1 }"},
                             {"GS-T-002", "warn", "one", "gpus.count = 1"},
                             {"GS-T-003", "warn", "two", "gpus.nvidia = { ge = 2 }"}});
  machine_facts pasted;
  pasted.coverage.partial = true;
  EXPECT_TRUE(kb.evaluate(pasted).empty()) << "no GPU named: nothing is known";
  gpu_info g;
  g.vendor = "nvidia";
  g.arch = "sm_89";
  pasted.gpus.push_back(g);
  EXPECT_EQ(ids(kb.evaluate(pasted)), (std::vector<std::string>{"GS-T-001 at least 1 GPU(s)"}));
  pasted.coverage.gpus_complete = true;  // nvidia-smi's whole list: the count itself is known
  EXPECT_EQ(ids(kb.evaluate(pasted)), (std::vector<std::string>{"GS-T-001 1 GPU(s)", "GS-T-002 one"}));
}

TEST(KbEval, TextRulesNeedTheirTextUnlessFactsAloneIsSet) {
  knowledge_base kb = kb_of({{"GS-T-001", "warn", "gated", "gpu.vendor = \"amd\"", "match_text = [\"boom\"]\n"},
                             {"GS-T-002", "warn", "config", "gpu.vendor = \"amd\"", "match_text = [\"boom\"]\nfacts_alone = true\n"}});
  EXPECT_EQ(ids(kb.evaluate(test::r9700())), (std::vector<std::string>{"GS-T-002 config"}));
  EXPECT_EQ(kb.match_error_text("boom", test::r9700()).size(), 2u);
  EXPECT_TRUE(kb.match_error_text("boom", test::h200()).empty()) << "an AMD rule on an NVIDIA machine";
}

TEST(KbEval, FactsAloneStillNeedsWhatWhenShownAsks) {
  // A facts_alone rule fired from the facts without its text holds to when_shown as the text path
  // does: on a paste that does not show the fact, it stays silent (KB round 14 found it firing).
  knowledge_base kb = kb_of({{"GS-T-001", "warn", "config", "gpu.vendor = \"amd\"",
                              "match_text = [\"boom\"]\nfacts_alone = true\nwhen_shown = { gpu.arch = \"gfx900\" }\n"}});
  EXPECT_TRUE(kb.evaluate(test::r9700()).empty()) << "gfx1201 is not gfx900";
  machine_facts pasted = test::r9700();
  pasted.coverage.partial = true;
  pasted.gpus[0].arch.clear();  // the paste names an AMD GPU but not its arch
  EXPECT_TRUE(kb.evaluate(pasted).empty()) << "not shown: silent";
  pasted.gpus[0].arch = "gfx900";
  EXPECT_EQ(ids(kb.evaluate(pasted)), (std::vector<std::string>{"GS-T-001 config"}));
}

TEST(KbEval, MatchRequiresAndExcludesNarrowTheText) {
  knowledge_base kb = kb_of({{"GS-T-001", "warn", "e", "gpu.vendor = \"amd\"",
                              "match_text = [\"CUDA_HOME environment variable is not set\"]\n"
                              "match_requires = [\"causal_conv1d\"]\nmatch_excludes = [{ regex = \"darwin|macos\" }]\n"}});
  machine_facts f = test::r9700();
  std::string err = "OSError: CUDA_HOME environment variable is not set.\n";
  EXPECT_TRUE(kb.match_error_text(err, f).empty()) << "the other package's build is not this rule's";
  EXPECT_EQ(kb.match_error_text("Building wheel for causal_conv1d\n" + err, f).size(), 1u);
  EXPECT_TRUE(kb.match_error_text("Building wheel for causal_conv1d on macOS\n" + err, f).empty());
}


/// One text-only rule whose templates name the regex's capture groups.
knowledge_base capture_kb(const std::string& remediation, const std::string& pattern) {
  std::string t = "schema = 1\n[[rule]]\nid = \"GS-T-001\"\nseverity = \"warn\"\ntitle = \"skew\"\n"
                  "evidence = \"{match.2} has no {match.1}\"\nremediation = \"" + remediation + "\"\n"
                  "match_text = [{ regex = '" + pattern + "' }]\n";
  std::vector<kb_error> errors;
  knowledge_base kb = knowledge_base::load({{"m.toml", t}}, errors);
  for (const kb_error& e : errors) ADD_FAILURE() << e.to_string();
  return kb;
}

TEST(KbEval, MatchPlaceholdersNameWhatTheErrorCaptured) {
  knowledge_base kb = capture_kb("pip install -U {match.2}  # the importer wants a newer one",
                                 "cannot import name .([A-Za-z_]+). from .([A-Za-z_.]+).");
  machine_facts pasted;
  pasted.coverage.partial = true;
  auto fs = kb.match_error_text("  File \"/x/site-packages/trl/trainer/sft.py\", line 3\n"
                                "ImportError: cannot import name 'prepare_model_for_kbit_training' from 'peft' (/x/peft/__init__.py)\n",
                                pasted);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].remediation, "pip install -U peft  # the importer wants a newer one");
  EXPECT_EQ(fs[0].evidence.rfind("peft has no prepare_model_for_kbit_training; error text matched", 0), 0u) << fs[0].evidence;
  EXPECT_TRUE(fs[0].unknown_facts.empty());
}

TEST(KbEval, AWrappedLogLineIsMatchedWhole) {
  // A log formatter wraps a long message onto a line indented to the message column: the pattern
  // spans both lines. A traceback's shallow indentation is no wrap.
  knowledge_base kb = kb_of({{"GS-T-002", "fail", "x", "gpu.vendor = \"nvidia\"",
                              "match_text = [{ regex = \"Error loading .*fbgemm\\\\.dll\" }]\n"}});
  machine_facts pasted;
  pasted.coverage.partial = true;
  auto fs = kb.match_error_text(
      "02:54:18-197331 ERROR    Could not load torch: [WinError 126] Error loading\n"
      "                         \"P:\\AI\\venv\\lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.\n",
      pasted);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_NE(fs[0].evidence.find("Error loading \"P:"), std::string::npos) << fs[0].evidence;
  EXPECT_TRUE(kb.match_error_text("OSError: Error loading\n    \"fbgemm.dll\" or one of its dependencies.\n", pasted).empty())
      << "4 columns is a traceback's indentation, not a wrap";
}

TEST(KbEval, MarkdownAroundACapturedValueStaysOutOfTheFix) {
  knowledge_base kb = capture_kb("sudo usermod -aG {match.2} $USER", "/dev/(kfd) is owned by group ([^ ]+)");
  machine_facts pasted;
  pasted.coverage.partial = true;
  auto fs = kb.match_error_text("the device /dev/kfd is owned by group **render** here\n", pasted);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].remediation, "sudo usermod -aG render $USER");
}

TEST(KbEval, AnOptionalGroupThatDidNotMatchWithholdsTheFix) {
  knowledge_base kb = capture_kb("pip install {match.2}", "no module named .([a-z_]+).( from [a-z]+)?");
  machine_facts pasted;
  pasted.coverage.partial = true;
  auto fs = kb.match_error_text("ModuleNotFoundError: No module named 'peft'\n", pasted);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].remediation, "") << "never a fix with a hole in it";
  EXPECT_EQ(fs[0].unknown_facts, std::vector<std::string>{"match.2"});
}

knowledge_base load_kb_text(const std::string& t) {
  std::vector<kb_error> errors;
  knowledge_base kb = knowledge_base::load({{"m.toml", "schema = 1\n" + t}}, errors);
  for (const kb_error& e : errors) ADD_FAILURE() << e.to_string();
  return kb;
}

TEST(KbEval, CaptureFactsCompareWhatTheLineAsksForWithTheMachine) {
  // match.2.version is the compute capability the line asks for: silent on a GPU at or above it.
  knowledge_base kb = load_kb_text(
      "[[rule]]\nid = \"GS-T-001\"\nseverity = \"fail\"\ntitle = \"gate\"\nevidence = \"needs {match.2}\"\n"
      "remediation = \"use a GPU of {match.2}+\"\n"
      "match_text = [{ regex = '([a-z ]+) requires? compute capability >= (\\d+\\.\\d)' }]\n"
      "[rule.when]\nmatch.1 = { regex = \"lora\" }\n"
      "[rule.unless]\ngpu.compute_capability = { ge = { fact = \"match.2.version\" } }\n");
  const std::string line = "ValueError: punica lora kernels require compute capability >= 8.0\n";
  machine_facts v100 = test::h200();
  v100.coverage.partial = true;
  v100.gpus[0].compute_capability = "7.0";
  std::vector<finding> fs = kb.match_error_text(line, v100);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].evidence.rfind("needs 8.0; error text matched", 0), 0u) << fs[0].evidence;
  EXPECT_EQ(fs[0].remediation, "use a GPU of 8.0+");
  machine_facts h200 = test::h200();
  h200.coverage.partial = true;
  EXPECT_TRUE(kb.match_error_text(line, h200).empty()) << "9.0 >= 8.0";
  machine_facts unknown_gpu;
  unknown_gpu.coverage.partial = true;
  EXPECT_EQ(kb.match_error_text(line, unknown_gpu).size(), 1u) << "the line alone stands when the GPU is not shown";
  EXPECT_TRUE(kb.match_error_text("flash kernels require compute capability >= 8.0\n", v100).empty())
      << "match.1 is the feature the line names: not LoRA here";
  EXPECT_TRUE(kb.evaluate(v100).empty()) << "no line, no captures";
}

TEST(KbLoader, CaptureFactsInConditionsNeedARegexWithThatManyGroups) {
  std::vector<kb_error> errors;
  knowledge_base::load({{"m.toml", "schema = 1\n[[rule]]\nid = \"GS-T-001\"\nseverity = \"warn\"\ntitle = \"t\"\n"
                                   "evidence = \"e\"\nremediation = \"r\"\nmatch_text = [{ regex = '(a)' }]\n"
                                   "[rule.when]\nmatch.3 = { set = true }\n"}},
                       errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].to_string().find("{match.3} is a capture group"), std::string::npos) << errors[0].to_string();
}

/// The ids match_error_text reports for `text` on `facts`, in the order it reports them.
std::vector<std::string> text_finding_ids(const knowledge_base& kb, const char* text, const machine_facts& facts) {
  std::vector<std::string> out;
  for (const finding& f : kb.match_error_text(text, facts)) out.push_back(f.id);
  return out;
}

TEST(KbEval, ALastResortGivesWayToAnyOtherFailOrWarn) {
  std::string rules =
      "[[rule]]\nid = \"GS-T-001\"\nseverity = \"warn\"\ntitle = \"context\"\nevidence = \"e\"\nremediation = \"r\"\n"
      "last_resort = true\nmatch_text = [\"dev20260324\"]\n"
      "[[rule]]\nid = \"GS-T-002\"\nseverity = \"fail\"\ntitle = \"cause\"\nevidence = \"e\"\nremediation = \"r\"\n"
      "match_text = [\"libfoo.so: cannot open\"]\n"
      "[[rule]]\nid = \"GS-T-003\"\nseverity = \"info\"\ntitle = \"note\"\nevidence = \"e\"\nremediation = \"r\"\n"
      "match_text = [\"note me\"]\n";
  knowledge_base kb = load_kb_text(rules);
  machine_facts pasted;
  pasted.coverage.partial = true;
  auto fired = [&](const char* text) {
    std::vector<std::string> out = text_finding_ids(kb, text, pasted);
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(fired("torch 2.12.0.dev20260324+rocm7.2\nSegmentation fault\n"), std::vector<std::string>{"GS-T-001"});
  EXPECT_EQ(fired("torch 2.12.0.dev20260324+rocm7.2\nlibfoo.so: cannot open shared object file\n"), std::vector<std::string>{"GS-T-002"});
  EXPECT_EQ(fired("torch 2.12.0.dev20260324+rocm7.2\nnote me\n"), (std::vector<std::string>{"GS-T-001", "GS-T-003"}))
      << "an info note names no cause";
  std::vector<kb_error> errors;
  knowledge_base::load({{"m.toml", "schema = 1\n[[rule]]\nid = \"GS-T-004\"\nseverity = \"warn\"\ntitle = \"t\"\n"
                                   "evidence = \"e\"\nremediation = \"r\"\nlast_resort = \"yes\"\nmatch_text = [\"x\"]\n"}},
                       errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].to_string().find("'last_resort' is true or false"), std::string::npos) << errors[0].to_string();
}

TEST(KbEval, AFallbackGivesWayToARuleThatMatchedTheSameLine) {
  std::string rules =
      "[[rule]]\nid = \"GS-T-001\"\nseverity = \"fail\"\ntitle = \"generic\"\nevidence = \"e\"\nremediation = \"r\"\n"
      "fallback = true\nmatch_text = [{ regex = 'gfx[0-9]+ is not supported' }]\n"
      "[[rule]]\nid = \"GS-T-002\"\nseverity = \"warn\"\ntitle = \"specific\"\nevidence = \"e\"\nremediation = \"r\"\n"
      "match_text = [\"gfx1103 is not supported\"]\n[rule.when]\nhost.os_id = \"ubuntu\"\n";
  knowledge_base kb = load_kb_text(rules);
  machine_facts pasted;
  pasted.coverage.partial = true;
  auto fired = [&](const char* text) { return text_finding_ids(kb, text, pasted); };
  EXPECT_EQ(fired("amdgpu [0] gfx1103 is not supported\n"),
            std::vector<std::string>{"GS-T-002"});
  EXPECT_EQ(fired("amdgpu [0] gfx906 is not supported\n"),
            std::vector<std::string>{"GS-T-001"});
  pasted.host.os_id = "windows";  // the specific rule is silenced by the facts: the fallback stands
  EXPECT_EQ(fired("amdgpu [0] gfx1103 is not supported\n"),
            std::vector<std::string>{"GS-T-001"});
}

}  // namespace
}  // namespace gs

namespace gs {
namespace {

TEST(KbEval, ASupersedingFindingDropsTheGenericOneWhereBothFire) {
  // GS-T-002 (specific) supersedes GS-T-001 (generic): both fire on an AMD GPU, only 002 stays;
  // on a machine where 002 does not fire, 001 is reported as before.
  knowledge_base kb = kb_of({{"GS-T-001", "fail", "generic", "gpu.vendor = \"amd\""},
                             {"GS-T-002", "warn", "specific", "gpu.arch = \"gfx1201\"", "supersedes = [\"GS-T-001\"]\n"}});
  EXPECT_EQ(ids(kb.evaluate(test::r9700())), std::vector<std::string>{"GS-T-002 specific"});
  machine_facts other = test::r9700();
  other.gpus[0].arch = "gfx1100";
  EXPECT_EQ(ids(kb.evaluate(other)), std::vector<std::string>{"GS-T-001 generic"});
  // Merged lists (explain: environment + error text) are filtered the same way.
  std::vector<finding> merged = kb.evaluate(other);
  finding specific;
  specific.id = "GS-T-002";
  merged.push_back(specific);
  kb.drop_superseded(merged);
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].id, "GS-T-002");
}

}  // namespace
}  // namespace gs
