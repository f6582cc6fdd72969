// The card record (card/card_record.h): what NVML said, written into a snapshot and read back
// by `check --sysroot`. The facts come from the captured H200 tree plus the NVML double, so the
// round trip carries real figures; the archive is extracted with the system's tar and replayed
// through a captured sysroot, the library call and the binary.
#include <gtest/gtest.h>

#include <filesystem>

#include "card/card_record.h"
#include "card/nvml_card.h"
#include "detect/detect.h"
#include "detect/machine_fixtures.h"
#include "report/report.h"
#include "report/snapshot.h"
#include "support/files.h"
#include "support/probe_harness.h"
#include "support/run_binary.h"
#include "support/shell.h"

namespace gs {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// The captured H200 with its card read through the NVML double.
machine_facts h200_with_card() {
  test::scoped_env lib("GPUSTACK_NVML_LIBRARY", GPUSTACK_NVML_DOUBLE);
  machine_facts f = detect_machine(testing::machine("h200"), {});
  detect_nvml_cards(f);
  return f;
}

json card_of(const machine_facts& f, bool identifiers = false) {
  report_input in;
  in.facts = &f;
  report_options o;
  o.include_identifiers = identifiers;
  json r = build_report(in, o);
  return r["gpus"].at(0).value("card", json());
}

TEST(CardRecord, TextRoundTripsEveryField) {
  machine_facts f = h200_with_card();
  ASSERT_EQ(f.gpus[0].card.source, "nvml");
  std::string text = card_record_text(f, true);
  machine_facts back = detect_machine(testing::machine("h200"), {});
  std::string err;
  ASSERT_TRUE(apply_card_record(text, back, &err)) << err;
  EXPECT_EQ(card_of(back, true), card_of(f, true)) << text;
  EXPECT_EQ(back.gpus[0].card.processes.at(0).pid, 4242u);
}

TEST(CardRecord, ProcessesStayOutWithoutIdentifiers) {
  machine_facts f = h200_with_card();
  std::string text = card_record_text(f, false);
  EXPECT_EQ(text.find("4242"), std::string::npos) << text;
  EXPECT_EQ(text.find("python3"), std::string::npos) << text;
  EXPECT_NE(text.find("compute_processes = 1"), std::string::npos) << text;
  json c = card_of(f);  // the report likewise: the count, no list
  EXPECT_EQ(c["compute_processes"], 1);
  EXPECT_FALSE(c.contains("processes"));
  EXPECT_TRUE(card_of(f, true).contains("processes"));
}

TEST(CardRecord, NothingToRecordWithoutALibraryReading) {
  machine_facts f = detect_machine(testing::machine("r9700-rocm72"), {});  // sysfs only
  EXPECT_EQ(card_record_text(f, false), "");
}

TEST(CardRecord, MalformedRecordIsAnIssueNotACrash) {
  testing::scratch_tree t;
  t.write("/.gpustack-card.toml", "[[gpu]\npci_address = \n");
  machine_facts f;
  detect_card_state(t.sys(), f);
  ASSERT_EQ(f.issues.size(), 1u);
  EXPECT_EQ(f.issues[0].source, "/.gpustack-card.toml");
  EXPECT_NE(f.issues[0].message.find("line 1"), std::string::npos) << f.issues[0].message;
}

TEST(CardRecord, SnapshotCarriesTheCardAndCheckReplaysIt) {
  machine_facts f = h200_with_card();
  sysroot sys = testing::machine("h200");
  touched_paths touched = record_touched(sys, [](const sysroot& s) { detect_machine(s, {}); });
  redactor red = redactor::for_facts(f, false, serial_style::same_shape);
  snapshot_options opts;
  opts.generated[std::string(kCardRecordPath)] = card_record_text(f, false);
  test::temp_dir tmp;
  std::string archive = tmp.path + "/s.tar.gz", err;
  snapshot_result res;
  ASSERT_TRUE(write_snapshot(sys, touched, red, {}, opts, archive, res, err)) << err;
  std::string dir = tmp.path + "/x", out;
  fs::create_directory(dir);
  ASSERT_EQ(test::shell("/bin/tar -xzf '" + archive + "' -C '" + dir + "'", &out), 0) << out;
  ASSERT_TRUE(fs::exists(dir + "/.gpustack-card.toml"));

  // Replayed through a captured sysroot: the same card, no NVML involved.
  test::scoped_env nolib("GPUSTACK_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
  machine_facts back = detect_machine(sysroot::captured(dir), {});
  detect_card_state(sysroot::captured(dir), back);
  EXPECT_TRUE(back.issues.empty() || back.issues[0].source != "NVML");
  EXPECT_EQ(card_of(back), card_of(f));

  // A snapshot of the replayed tree keeps the record (it was read, so it is captured).
  std::string again = tmp.path + "/again.tar.gz";
  ASSERT_TRUE(take_snapshot(sysroot::captured(dir), {}, again, res, err)) << err;
  std::string dir2 = tmp.path + "/y";
  fs::create_directory(dir2);
  ASSERT_EQ(test::shell("/bin/tar -xzf '" + again + "' -C '" + dir2 + "'", &out), 0) << out;
  EXPECT_TRUE(fs::exists(dir2 + "/.gpustack-card.toml"));

  // And through the binary: the JSON, the terminal view and the Markdown show it.
  testing::run_output j = testing::run_gpustack("check --json --sysroot '" + dir + "'");
  json r = json::parse(j.out, nullptr, false);
  ASSERT_FALSE(r.is_discarded()) << j.out << j.err;
  EXPECT_EQ(r["gpus"][0]["card"]["source"], "nvml");
  EXPECT_EQ(r["gpus"][0]["card"]["clock_sm_max_mhz"], 1980);
  EXPECT_EQ(r["gpus"][0]["card"]["throttle_reasons"], json({"gpu_idle", "sw_power_cap"}));
  testing::run_output h = testing::run_gpustack("check --sysroot '" + dir + "'");
  EXPECT_NE(h.out.find("card: SM 1980 of 1980 MHz, memory 3201 of 3201 MHz"), std::string::npos) << h.out;
  EXPECT_NE(h.out.find("clocks held by: gpu_idle, sw_power_cap"), std::string::npos) << h.out;
  testing::run_output m = testing::run_gpustack("check --markdown --sysroot '" + dir + "'");
  EXPECT_NE(m.out.find("GPU 0 state"), std::string::npos) << m.out;
  EXPECT_NE(m.out.find("1 compute process"), std::string::npos) << m.out;
}

}  // namespace
}  // namespace gs
