// Snapshots: the tar writer against the system's tar; the capture of exactly what was touched
// (files, symlink chains, listings, read errors, device results, owners, groups, env), all
// redacted; and the round trip: detection on the extracted snapshot equals detection on the
// tree it was taken from. The source tree is tests/fixtures/report/snapshot-amd, a small
// captured gfx1201 machine; extraction uses /bin/tar, so the archive is checked by a reader
// we did not write.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <toml++/toml.h>

#include "detect/detect.h"
#include "detect/identity.h"
#include "report/report.h"
#include "report/snapshot.h"
#include "report/tar_writer.h"
#include "rules/knowledge_base.h"

#include "support/files.h"
#include "support/run_binary.h"
#include "support/shell.h"

namespace gs {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kFixture = std::string(GPUSTACK_TEST_FIXTURES) + "/report/snapshot-amd";
const std::string kHf = std::string("hf_") + "FAKEfakeFAKEfake0123456789";

using gs::test::temp_dir;


bool extract(const std::string& archive, const std::string& dir) {
  std::string out;
  int rc = test::shell("/bin/tar -xzf '" + archive + "' -C '" + dir + "'", &out);
  EXPECT_EQ(rc, 0) << out;
  return rc == 0;
}

/// Every name and every byte under `dir`, for "does X appear anywhere" checks.
std::string everything_under(const std::string& dir) {
  std::string all;
  for (auto& e : fs::recursive_directory_iterator(dir)) {
    all += e.path().string() + "\n";
    if (e.is_symlink()) all += fs::read_symlink(e.path()).string() + "\n";
    else if (e.is_regular_file()) all += gs::test::read_file(e.path().string()) + "\n";
  }
  return all;
}

TEST(TarWriter, SystemTarReadsWhatWeWrite) {
  temp_dir t;
  std::string archive = t.path + "/a.tar.gz";
  std::string err;
  tar_gz_writer w;
  ASSERT_TRUE(w.open(archive, err)) << err;
  std::string mid(130, 'm'), deep;
  for (int i = 0; i < 12; ++i) deep += "/segment-number-" + std::to_string(i) + "-abcdefghij";  // ~330 chars
  EXPECT_TRUE(w.add_dir("x"));
  EXPECT_TRUE(w.add_file("/x/small", "hello\n"));
  EXPECT_TRUE(w.add_file("x/" + mid + "/file", std::string(1000, 'z')));  // prefix/name split
  EXPECT_TRUE(w.add_file("x" + deep, "deep"));                            // pax path
  EXPECT_TRUE(w.add_symlink("x/link", "small"));
  EXPECT_TRUE(w.add_symlink("x/longlink", std::string("../") + std::string(150, 'q')));  // pax linkpath
  EXPECT_TRUE(w.add_file("x/empty", ""));
  EXPECT_TRUE(w.add_file("x/exact", std::string(512, 'e')));
  ASSERT_TRUE(w.close(err)) << err;
  std::string out = t.path + "/out";
  fs::create_directory(out);
  ASSERT_TRUE(extract(archive, out));
  EXPECT_EQ(gs::test::read_file(out + "/x/small"), "hello\n");
  EXPECT_EQ(gs::test::read_file(out + "/x/" + mid + "/file"), std::string(1000, 'z'));
  EXPECT_EQ(gs::test::read_file(out + "/x" + deep), "deep");
  EXPECT_EQ(fs::read_symlink(out + "/x/link").string(), "small");
  EXPECT_EQ(fs::read_symlink(out + "/x/longlink").string(), std::string("../") + std::string(150, 'q'));
  EXPECT_EQ(gs::test::read_file(out + "/x/link"), "hello\n");
  EXPECT_TRUE(fs::exists(out + "/x/empty"));
  EXPECT_EQ(gs::test::read_file(out + "/x/exact").size(), 512u);
  std::string listing;
  EXPECT_EQ(test::shell("/bin/tar -tzvf '" + archive + "'", &listing), 0);
  EXPECT_EQ(listing.find("PaxHeaders"), std::string::npos) << listing;  // pax records are metadata, not files
}

TEST(TarWriter, UnwritablePathSaysSo) {
  tar_gz_writer w;
  std::string err;
  EXPECT_FALSE(w.open("/nonexistent-gpustack-dir/x.tar.gz", err));
  EXPECT_NE(err.find("cannot write /nonexistent-gpustack-dir/x.tar.gz"), std::string::npos) << err;
  EXPECT_NE(err.find("No such file"), std::string::npos) << err;
}

/// What a detector would do on the fixture, spelled out so this test does not depend on them.
void scripted_reads(const sysroot& s) {
  (void)s.read("/etc/os-release");
  (void)s.list("/sys/class/kfd/kfd/topology/nodes");
  (void)s.read("/sys/class/kfd/kfd/topology/nodes/1/properties");
  (void)s.read("/sys/class/kfd/kfd/topology/nodes/2/properties");  // EPERM by the manifest
  (void)s.realpath("/opt/rocm");
  (void)s.read("/opt/rocm/.info/version");
  (void)s.read("/sys/class/drm/card1/device/unique_id");
  (void)s.read("/proc/sys/kernel/hostname");  // identity: must not be copied
  (void)s.read("/home/alice/.cache/token");
  (void)s.read("/home/alice/.venv/lib/python3.12/site-packages/torch-2.11.0+rocm7.2.dist-info/METADATA");
  (void)s.stat("/home/alice/.venv/bin/python");
  (void)s.stat("/nonexistent/thing");
  (void)s.open_device("/dev/kfd");
  (void)s.open_device("/dev/dri/renderD128");
  (void)s.open_device("/dev/nvidia0");
}

redactor fixture_redactor(const sysroot& sys) {
  machine_facts f;
  detect_identity(sys, f);
  f.gpus.push_back({});
  f.gpus[0].serial = "5c3e7a1b2c4d5e6f";
  redactor red = redactor::for_facts(f, false, serial_style::same_shape);
  red.add_secret_values(sys.environment());
  return red;
}

TEST(Snapshot, RecordsEveryKindOfTouch) {
  sysroot sys = sysroot::captured(kFixture);
  touched_paths t = record_touched(sys, scripted_reads);
  EXPECT_EQ(t.at("/etc/os-release").err, 0);
  EXPECT_TRUE(t.at("/sys/class/kfd/kfd/topology/nodes").listed);
  EXPECT_EQ(t.at("/sys/class/kfd/kfd/topology/nodes/2/properties").err, EPERM);
  EXPECT_EQ(t.at("/nonexistent/thing").err, ENOENT);
  EXPECT_EQ(t.at("/dev/kfd").err, EACCES);
  EXPECT_EQ(t.at("/dev/nvidia0").err, ENOENT);
  EXPECT_TRUE(t.count("/opt/rocm"));
  EXPECT_TRUE(t.count("/home/alice/.venv/bin/python"));
}

TEST(Snapshot, CapturesTouchedFilesRedacted) {
  temp_dir tmp;
  sysroot sys = sysroot::captured(kFixture);
  touched_paths touched = record_touched(sys, scripted_reads);
  redactor red = fixture_redactor(sys);
  snapshot_options opts;
  opts.created_utc = "2026-12-02T10:00:00Z";
  snapshot_result res;
  std::string err, archive = tmp.path + "/s.tar.gz";
  machine_facts seen;  // what detect_env would have reported
  seen.env["HSA_OVERRIDE_GFX_VERSION"] = "11.0.0";
  ASSERT_TRUE(write_snapshot(sys, touched, red, snapshot_env(sys, seen), opts, archive, res, err)) << err;
  EXPECT_FALSE(fs::exists(archive + ".tmp"));
  EXPECT_GE(res.files, 6u);
  EXPECT_GT(res.archive_bytes, 0u);
  std::string out = tmp.path + "/x";
  fs::create_directory(out);
  ASSERT_TRUE(extract(archive, out));

  EXPECT_EQ(gs::test::read_file(out + "/etc/os-release"), gs::test::read_file(kFixture + "/etc/os-release"));
  // The listed directory keeps all its names; the EPERM file is a stand-in plus a manifest line.
  for (const char* n : {"0", "1", "2"}) EXPECT_TRUE(fs::exists(out + "/sys/class/kfd/kfd/topology/nodes/" + std::string(n)));
  EXPECT_TRUE(fs::exists(out + "/sys/class/kfd/kfd/topology/nodes/2/properties"));
  EXPECT_EQ(gs::test::read_file(out + "/sys/class/kfd/kfd/topology/nodes/2/properties"), "");
  // Symlink chains are kept as links that resolve inside the tree.
  EXPECT_EQ(fs::read_symlink(out + "/opt/rocm").string(), "rocm-7.2.0");
  EXPECT_EQ(gs::test::read_file(out + "/opt/rocm/.info/version"), "7.2.0-70200\n");
  EXPECT_TRUE(fs::is_symlink(out + "/sys/class/drm/card1"));
  // The serial is a same-shape pseudonym: still 16 hex digits, not the real one.
  std::string uid = gs::test::read_file(out + "/sys/class/drm/card1/device/unique_id");
  EXPECT_EQ(uid.size(), 17u);
  EXPECT_EQ(uid.find("5c3e7a1b2c4d5e6f"), std::string::npos);
  EXPECT_EQ(gs::test::read_file(out + "/sys/class/kfd/kfd/topology/nodes/1/properties").find("6646884357171404399"), std::string::npos);
  // Identity and secrets: gone from names, contents and the manifest.
  EXPECT_FALSE(fs::exists(out + "/proc/sys/kernel/hostname"));
  EXPECT_EQ(gs::test::read_file(out + "/home/<user>/.cache/token"), "hf_<redacted>\n");
  EXPECT_TRUE(fs::is_symlink(out + "/home/<user>/.venv/bin/python"));
  std::string all = everything_under(out);
  for (const std::string& leak : {std::string("alice"), kHf, std::string("gpu-box-01"), std::string("plain-secret-value-42")})
    EXPECT_EQ(all.find(leak), std::string::npos) << leak;
  EXPECT_FALSE(fs::exists(out + "/nonexistent"));
  EXPECT_FALSE(fs::exists(out + "/dev/nvidia0"));

  toml::table man = toml::parse_file(out + "/.gpustack-snapshot.toml");
  EXPECT_EQ(man["errors"]["/sys/class/kfd/kfd/topology/nodes/2/properties"].value_or(std::string()), "EPERM");
  EXPECT_EQ(man["devices"]["/dev/kfd"].value_or(std::string()), "EACCES");
  EXPECT_EQ(man["devices"]["/dev/dri/renderD128"].value_or(std::string()), "ok");
  EXPECT_FALSE(man["devices"]["/dev/nvidia0"]);
  EXPECT_EQ(man["owners"]["/dev/kfd"]["gid"].value_or<int64_t>(0), 992);
  EXPECT_EQ(man["owners"]["/dev/kfd"]["mode"].value_or<int64_t>(0), 0660);
  EXPECT_EQ(man["env"]["HSA_OVERRIDE_GFX_VERSION"].value_or(std::string()), "11.0.0");
  EXPECT_EQ(man["env"]["HOME"].value_or(std::string()), "/home/<user>");
  EXPECT_EQ(man["env"]["LD_LIBRARY_PATH"].value_or(std::string()), "/opt/rocm/lib:/home/<user>/<redacted>/lib");
  EXPECT_EQ(man["snapshot"]["identifiers"].value_or(std::string()), "redacted");
  EXPECT_NE(gs::test::read_file(out + "/etc/group").find("video:x:44:"), std::string::npos);
  EXPECT_NE(gs::test::read_file(out + "/etc/group").find("<user>:x:1000:"), std::string::npos);

  // The extracted tree replays through a captured sysroot as the original did.
  sysroot back = sysroot::captured(out);
  EXPECT_EQ(back.read("/sys/class/kfd/kfd/topology/nodes/2/properties").err, EPERM);
  EXPECT_EQ(back.open_device("/dev/kfd"), EACCES);
  EXPECT_EQ(back.open_device("/dev/dri/renderD128"), 0);
  EXPECT_EQ(back.open_device("/dev/nvidia0"), ENOENT);
  EXPECT_EQ(back.stat("/dev/kfd").gid, 992u);
  EXPECT_EQ(back.list("/sys/class/kfd/kfd/topology/nodes"), sys.list("/sys/class/kfd/kfd/topology/nodes"));
  EXPECT_EQ(back.realpath("/opt/rocm"), "/opt/rocm-7.2.0");
  EXPECT_EQ(back.group_name(44), "video");
  EXPECT_EQ(back.process_groups().size(), 2u);
}

TEST(Snapshot, LargeFilesAreLeftOutAndListed) {
  temp_dir tmp;
  sysroot sys = sysroot::captured(kFixture);
  touched_paths touched = record_touched(sys, [](const sysroot& s) {
    (void)s.read("/etc/os-release");
    (void)s.read("/proc/sys/kernel/osrelease");
  });
  snapshot_options opts;
  opts.max_file_bytes = 40;  // os-release is ~80 bytes, osrelease 17
  snapshot_result res;
  std::string err, archive = tmp.path + "/s.tar.gz";
  ASSERT_TRUE(write_snapshot(sys, touched, redactor(), {}, opts, archive, res, err)) << err;
  ASSERT_EQ(res.skipped.size(), 1u);
  EXPECT_NE(res.skipped[0].find("/etc/os-release: larger than"), std::string::npos) << res.skipped[0];
  std::string out = tmp.path + "/x";
  fs::create_directory(out);
  ASSERT_TRUE(extract(archive, out));
  EXPECT_EQ(gs::test::read_file(out + "/proc/sys/kernel/osrelease"), "6.8.0-49-generic\n");
  toml::table man = toml::parse_file(out + "/.gpustack-snapshot.toml");
  EXPECT_TRUE(man["skipped"]["/etc/os-release"]);
}

TEST(Snapshot, UnwritableOutputLeavesNothing) {
  sysroot sys = sysroot::captured(kFixture);
  snapshot_result res;
  std::string err;
  EXPECT_FALSE(take_snapshot(sys, snapshot_options{}, "/nonexistent-gpustack-dir/s.tar.gz", res, err));
  EXPECT_EQ(err.rfind("cannot write /nonexistent-gpustack-dir/s.tar.gz: ", 0), 0u) << err;
}

/// Detection + findings on a sysroot, as a report (identity filled the way check fills it).
json check_report(const sysroot& sys) {
  machine_facts f = detect_machine(sys, detect_options{});
  detect_identity(sys, f);
  std::vector<kb_error> errors;
  knowledge_base kb = knowledge_base::load_builtin(errors);
  EXPECT_TRUE(errors.empty());
  auto env = sys.environment();
  report_input in;
  in.facts = &f;
  in.findings = kb.evaluate(f);
  in.environment = &env;
  report_options o;
  o.created_utc = "2026-12-02T10:00:00Z";
  json r = build_report(in, o);
  // Serials differ by design: the snapshot carries a pseudonym, whose hash is another id.
  for (json& g : r["gpus"]) g.erase("serial");
  return r;
}

TEST(Snapshot, ReplayReproducesDetectionAndFindings) {
  temp_dir tmp;
  sysroot sys = sysroot::captured(kFixture);
  snapshot_options opts;
  snapshot_result res;
  std::string err, archive = tmp.path + "/s.tar.gz";
  ASSERT_TRUE(take_snapshot(sys, opts, archive, res, err)) << err;
  std::string out = tmp.path + "/x";
  fs::create_directory(out);
  ASSERT_TRUE(extract(archive, out));
  json original = check_report(sys);
  json replay = check_report(sysroot::captured(out));
  EXPECT_EQ(replay, original) << "diff: " << json::diff(original, replay).dump(2);
  // Not a vacuous comparison: the fixture's GPU and environment made it through.
  ASSERT_FALSE(original["gpus"].empty()) << original.dump(2);
  EXPECT_EQ(original["gpus"][0]["arch"], "gfx1201");
  EXPECT_EQ(replay["env"]["HSA_OVERRIDE_GFX_VERSION"], "11.0.0");
}

TEST(SnapshotCli, WritesArchiveAndCheckReplaysIt) {
  temp_dir tmp;
  std::string archive = tmp.path + "/snap.tar.gz";
  testing::run_output snap = testing::run_gpustack("snapshot --sysroot '" + kFixture + "' -o '" + archive + "'");
  std::string out = snap.out + snap.err;
  ASSERT_EQ(snap.rc, 0) << out;
  EXPECT_NE(out.find("snapshot: "), std::string::npos);
  EXPECT_NE(out.find(" files, "), std::string::npos) << out;
  EXPECT_NE(out.find("-> " + archive), std::string::npos) << out;
  std::string dir = tmp.path + "/x";
  fs::create_directory(dir);
  ASSERT_TRUE(extract(archive, dir));
  testing::run_output a = testing::run_gpustack("check --json --sysroot '" + kFixture + "'");
  testing::run_output b = testing::run_gpustack("check --json --sysroot '" + dir + "'");
  EXPECT_EQ(a.rc, b.rc);
  json ja = json::parse(a.out, nullptr, false), jb = json::parse(b.out, nullptr, false);
  ASSERT_FALSE(ja.is_discarded()) << a.out << a.err;
  ASSERT_FALSE(jb.is_discarded()) << b.out << b.err;
  // Ids and severities: evidence may quote environment values that only the snapshot redacted.
  auto ids = [](const json& r) {
    std::vector<std::string> v;
    for (const json& f : r["findings"]) v.push_back(f["id"].get<std::string>() + ":" + f["severity"].get<std::string>());
    return v;
  };
  EXPECT_EQ(ids(ja), ids(jb));
  EXPECT_EQ(ja["summary"]["status"], jb["summary"]["status"]);
  EXPECT_EQ(ja["gpus"].size(), jb["gpus"].size());
}

TEST(SnapshotCli, UnwritableOutputIsAUsageError) {
  testing::run_output r = testing::run_gpustack("snapshot --sysroot '" + kFixture + "' -o /nonexistent-gpustack-dir/s.tar.gz");
  EXPECT_EQ(r.rc, 2) << r.err;
  EXPECT_NE(r.err.find("cannot write /nonexistent-gpustack-dir/s.tar.gz"), std::string::npos) << r.err;
  r = testing::run_gpustack("snapshot");
  EXPECT_EQ(r.rc, 2) << r.err;  // -o is required
}

}  // namespace
}  // namespace gs
