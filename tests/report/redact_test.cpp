// Redaction: secrets by shape and by name (always), identity (hostname, user, home, IPs, MACs,
// serials/UUIDs) unless --include-identifiers, plus the look-alikes that must survive
// (hf_hub_download, PCI addresses, four-part versions). Adversarial inputs: secrets inside
// LD_LIBRARY_PATH, paths, evidence; a user name inside a package location; a UUID in a serial
// and in an issue message; IPs in URLs; JWTs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/sha256.h"
#include "report/redact.h"
#include "report/report.h"
#include "support/redaction_samples.h"
#include "support/report_schema.h"
#include "support/sample_facts.h"

namespace gs {
namespace {

using nlohmann::json;

using namespace gs::testing;  // kHf, kGhp, ... (support/redaction_samples.h)

redactor identity_redactor(bool include = false) {
  redaction_identity id;
  id.hostname = "gpu-box-01.lab.example.com";
  id.user = "alice";
  id.home = "/home/alice";
  id.serials = {kUuid, "0x5c3e7a1b2c4d5e6f"};
  return redactor(id, include);
}

TEST(Sha256, StandardVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // 55/56/64-byte edges of the padding.
  EXPECT_EQ(sha256_hex(std::string(55, 'a')), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(sha256_hex(std::string(64, 'a')), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST(Redact, SecretNames) {
  for (const char* n : {"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "ACCESSTOKEN", "token", "hf_token", "GITHUB_TOKEN",
                        "AWS_SECRET_ACCESS_KEY", "OPENAI_API_KEY",
                        "WANDB_API_KEY", "DB_PASSWORD", "MYSQL_PWD_PASSWD", "GOOGLE_APPLICATION_CREDENTIALS",
                        "SSH_AUTH_SOCK", "HTTP_AUTHORIZATION", "api-key", "x_auth", "COMET_KEY", "password"})
    EXPECT_TRUE(is_secret_name(n)) << n;
  for (const char* n : {"TOKENIZERS_PARALLELISM", "HF_HUB_DISABLE_IMPLICIT_TOKEN", "PATH", "HSA_OVERRIDE_GFX_VERSION",
                        "AUTHOR", "Author", "KEYBOARD", "MONKEY", "PWD", "tokenizer_config", "HF_HOME", "pass",
                        "max_new_tokens", "NUM_TOKENS", "tokens", ""})
    EXPECT_FALSE(is_secret_name(n)) << n;
}

TEST(Redact, TokensByShapeAlwaysGo) {
  redactor r = identity_redactor(true);  // identity kept: only secrets are at stake here
  for (const std::string& t : {kHf, kGhp, kPat, kSk, kAkia, kJwt, kSlack}) {
    std::string out = r.scrub("value: " + t + " end");
    EXPECT_EQ(out.find(t), std::string::npos) << out;
    EXPECT_NE(out.find("<redacted>"), std::string::npos) << out;
    EXPECT_NE(out.find(" end"), std::string::npos) << out;
  }
  EXPECT_EQ(r.scrub("tok=" + kHf), "tok=hf_<redacted>");
  EXPECT_EQ(r.scrub("Authorization: Bearer abcdefghijklmnop1234"), "Authorization: <redacted> <redacted>");
  EXPECT_EQ(r.scrub("curl -H 'bearer abcdefghijklmnop1234'"), "curl -H 'bearer <redacted>'");
}

TEST(Redact, LookAlikesSurvive) {
  redactor r = identity_redactor();
  for (const char* s : {"from huggingface_hub import hf_hub_download", "pip install scikit-learn sk-learn",
                        "task-runner-0123456789012345678901234", "TOKENIZERS_PARALLELISM=false", "0000:03:00.0",
                        "12:34:56", "std::string c10::Error at::Tensor", "gfx1201 sm_90 HIP 7.2.26015",
                        "127.0.0.1 and 0.0.0.0 and 255.255.255.0", "::1", "00:00:00:00:00:00",
                        "nvidia_cudnn_cu12-9.1.0.70.dist-info", "Version: 12.4.5.8", "torch==2.11.0.1",
                        "2026-12-02T10:00:00Z", "AKIA is a prefix", "max_new_tokens: 512, pass: 3/3"})
    EXPECT_EQ(r.scrub(s), s);
}

TEST(Redact, SecretAssignmentsByName) {
  redactor r;
  EXPECT_EQ(r.scrub("HF_TOKEN=abc123"), "HF_TOKEN=<redacted>");
  EXPECT_EQ(r.scrub("export WANDB_API_KEY='s3cr3t value'"), "export WANDB_API_KEY='<redacted>'");
  EXPECT_EQ(r.scrub("{\"api_key\": \"xyz\", \"n\": 1}"), "{\"api_key\": \"<redacted>\", \"n\": 1}");
  EXPECT_EQ(r.scrub("https://host/x?token=abc&y=1"), "https://host/x?token=<redacted>&y=1");
  EXPECT_EQ(r.scrub("aws_secret_access_key = " + kAwsSecret), "aws_secret_access_key = <redacted>");
  EXPECT_EQ(r.scrub("AWS_SECRET_ACCESS_KEY=" + kAwsSecret + "\nnext"), "AWS_SECRET_ACCESS_KEY=<redacted>\nnext");
  EXPECT_EQ(r.scrub("TOKEN == x"), "TOKEN == x");  // a comparison, not an assignment
}

TEST(Redact, UrlUserinfo) {
  redactor r = identity_redactor(true);
  EXPECT_EQ(r.scrub("git clone https://bob:hunter2@github.com/x/y"), "git clone https://<redacted>@github.com/x/y");
  EXPECT_EQ(r.scrub("https://oauth2:glpat-abc@gitlab.com"), "https://<redacted>@gitlab.com");
  EXPECT_EQ(r.scrub("https://example.com/a:b/c@d"), "https://example.com/a:b/c@d");  // '@' after a '/'
  EXPECT_EQ(r.scrub("pip index https://user@pypi.org"), "pip index https://user@pypi.org");
}

TEST(Redact, LiteralSecretValuesWhateverTheirName) {
  redactor r;
  std::map<std::string, std::string> env{{"MY_SERVICE_PASSWORD", "Tr0ub4dor&3"}, {"WANDB_API_KEY", "0123abcd4567"},
                                         {"SHORT_TOKEN", "abc"}, {"PATH", "/usr/bin"}};
  r.add_secret_values(env);
  // The value shows up under a name nothing would flag, and inside a path.
  EXPECT_EQ(r.scrub("NOTE=Tr0ub4dor&3"), "NOTE=<redacted>");
  EXPECT_EQ(r.scrub("/opt/0123abcd4567/lib"), "/opt/<redacted>/lib");
  EXPECT_EQ(r.scrub("abc is short"), "abc is short");  // 3 characters: not a literal
}

TEST(Redact, SecretsInsidePathsAndLibraryPaths) {
  redactor r = identity_redactor();
  std::string ld = "/opt/rocm/lib:/home/alice/" + kHf + "/lib:/usr/lib/" + kGhp;
  std::string out = r.scrub(ld);
  EXPECT_EQ(out.find(kHf), std::string::npos) << out;
  EXPECT_EQ(out.find(kGhp), std::string::npos) << out;
  EXPECT_EQ(out.find("alice"), std::string::npos) << out;
  EXPECT_EQ(out, "/opt/rocm/lib:/home/<user>/hf_<redacted>/lib:/usr/lib/ghp_<redacted>");
}

TEST(Redact, IdentityGoesByDefault) {
  redactor r = identity_redactor();
  EXPECT_EQ(r.scrub("host gpu-box-01.lab.example.com up"), "host <hostname> up");
  EXPECT_EQ(r.scrub("gpu-box-01: ready"), "<hostname>: ready");
  EXPECT_EQ(r.scrub("/home/alice/.venv/bin/python"), "/home/<user>/.venv/bin/python");
  EXPECT_EQ(r.scrub("/home/bob/envs/x"), "/home/<user>/envs/x");  // another user's home too
  EXPECT_EQ(r.scrub("owned by alice"), "owned by <user>");
  EXPECT_EQ(r.scrub("malice and alicelike"), "malice and alicelike");  // not the whole word
  EXPECT_EQ(r.scrub("MASTER_ADDR=10.1.2.3"), "MASTER_ADDR=<ip>");
  EXPECT_EQ(r.scrub("http://192.168.1.20:8080/v1"), "http://<ip>:8080/v1");
  EXPECT_EQ(r.scrub("inet6 fe80::1ff:fe23:4567:890a/64"), "inet6 <ipv6>/64");
  EXPECT_EQ(r.scrub("2001:0db8:85a3:0000:0000:8a2e:0370:7334"), "<ipv6>");
  EXPECT_EQ(r.scrub("ether 3c:7c:3f:1a:2b:4d brd ff:ff:ff:ff:ff:ff"), "ether <mac> brd ff:ff:ff:ff:ff:ff");
  EXPECT_EQ(r.scrub("mac 3C-7C-3F-1A-2B-4D"), "mac <mac>");
}

TEST(Redact, HomeOutsideSlashHome) {
  redaction_identity id;
  id.user = "u12345";
  id.home = "/data/scratch/u12345/";
  redactor r(id);
  EXPECT_EQ(r.scrub("/data/scratch/u12345/.venv"), "/home/<user>/.venv");
  // root's home is redacted like any other; the word "root" (everywhere: rootfs, root group) stays.
  redaction_identity rid;
  rid.user = "root";
  rid.home = "/root";
  EXPECT_EQ(redactor(rid).scrub("/root/.venv /rootfs root /root"), "/home/<user>/.venv /rootfs root /home/<user>");
}

TEST(Redact, SerialsBecomeStableIds) {
  redactor r = identity_redactor();
  std::string id = stable_serial_id(kUuid);
  ASSERT_EQ(id.size(), 16u);
  EXPECT_EQ(id.substr(0, 4), "GPU-");
  EXPECT_EQ(stable_serial_id(kUuid), id);  // same input, same output: reports can be matched
  EXPECT_NE(stable_serial_id("GPU-00000000-0000-0000-0000-000000000001"), id);
  EXPECT_EQ(stable_serial_id(id), id);     // idempotent
  EXPECT_EQ(stable_serial_id("MIG-1234").substr(0, 4), "MIG-");
  // The UUID as a serial and inside an issue message map to the same id.
  EXPECT_EQ(r.scrub(kUuid), id);
  EXPECT_EQ(r.scrub("nvidia-smi: " + kUuid + " is lost"), "nvidia-smi: " + id + " is lost");
  // An unknown UUID is hashed too; a hex serial is found in decimal as well (KFD prints decimal).
  std::string other = r.scrub("boot_id 3b1f8c2e-1d4a-4e9b-9c7d-2a6f5e4d3c2b");
  EXPECT_EQ(other.find("3b1f8c2e"), std::string::npos);
  EXPECT_NE(other.find("UUID-"), std::string::npos);
  std::string dec = std::to_string(0x5c3e7a1b2c4d5e6fULL);
  EXPECT_EQ(r.scrub("unique_id " + dec), "unique_id " + stable_serial_id("0x5c3e7a1b2c4d5e6f"));
  EXPECT_EQ(r.scrub("0x5c3e7a1b2c4d5e6f"), stable_serial_id("0x5c3e7a1b2c4d5e6f"));
}

TEST(Redact, SameShapePseudonymsForSnapshots) {
  redaction_identity id;
  id.serials = {"5c3e7a1b2c4d5e6f", kUuid};
  redactor r(id, false, serial_style::same_shape);
  std::string hex = r.scrub("5c3e7a1b2c4d5e6f");
  EXPECT_NE(hex, "5c3e7a1b2c4d5e6f");
  EXPECT_EQ(hex.size(), 16u);
  EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos);
  // The decimal spelling maps to the decimal of the hex pseudonym, so both parse alike.
  std::string dec = r.scrub("unique_id " + std::to_string(0x5c3e7a1b2c4d5e6fULL));
  EXPECT_EQ(dec, "unique_id " + std::to_string(std::stoull(hex, nullptr, 16)));
  std::string uuid = r.scrub(kUuid);
  EXPECT_NE(uuid, kUuid);
  EXPECT_EQ(uuid.size(), kUuid.size());
  EXPECT_EQ(uuid.substr(0, 4), "GPU-");
  EXPECT_EQ(uuid[12], '-');
  EXPECT_EQ(same_shape_pseudonym(kUuid), uuid);
}

TEST(Redact, IncludeIdentifiersKeepsIdentityButNeverSecrets) {
  redactor r = identity_redactor(true);
  std::string in = "gpu-box-01.lab.example.com /home/alice 10.1.2.3 " + kUuid + " HF_TOKEN=" + kHf + " " + kJwt;
  std::string out = r.scrub(in);
  EXPECT_NE(out.find("gpu-box-01.lab.example.com"), std::string::npos);
  EXPECT_NE(out.find("/home/alice"), std::string::npos);
  EXPECT_NE(out.find("10.1.2.3"), std::string::npos);
  EXPECT_NE(out.find(kUuid), std::string::npos);
  EXPECT_EQ(out.find(kHf), std::string::npos);
  EXPECT_EQ(out.find(kJwt.substr(0, 30)), std::string::npos);
}

TEST(Redact, JsonKeysValuesAndVersions) {
  redactor r = identity_redactor();
  json j = {{"/home/alice/x", "v"},
            {"api_token", "anything at all"},
            {"packages", {{"nvidia-cublas-cu12", "12.4.5.8"}}},
            {"version", "10.0.0.1"},
            {"addr", "10.0.0.1"},
            {"list", {"alice", 3, nullptr}}};
  r.scrub_json(j);
  EXPECT_TRUE(j.contains("/home/<user>/x"));
  EXPECT_EQ(j["api_token"], "<redacted>");
  EXPECT_EQ(j["packages"]["nvidia-cublas-cu12"], "12.4.5.8");
  EXPECT_EQ(j["version"], "10.0.0.1");
  EXPECT_EQ(j["addr"], "<ip>");
  EXPECT_EQ(j["list"][0], "<user>");
  EXPECT_EQ(j["list"][1], 3);
}

TEST(Redact, ValidUtf8) {
  EXPECT_EQ(valid_utf8("plain"), "plain");
  EXPECT_EQ(valid_utf8("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(valid_utf8("\xff"), "\xEF\xBF\xBD");
  EXPECT_EQ(valid_utf8("\xc0\xaf"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_EQ(valid_utf8("\xed\xa0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(valid_utf8("\xe2\x82"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // cut short
}

/// A machine whose every string field carries something that must not leave it.
machine_facts adversarial_machine() {
  machine_facts f = gs::test::amd_machine();
  f.gpus[0].serial = kUuid;
  f.env["LD_LIBRARY_PATH"] = "/opt/rocm/lib:/home/alice/" + kHf + "/lib";
  f.env["HF_TOKEN"] = "plainvalue-without-shape";
  f.env["NOTES"] = "see plainvalue-without-shape and " + kJwt;
  f.env["HTTPS_PROXY"] = "http://carol:pa55w0rd@10.20.30.40:3128";
  f.python.packages["peft"].location = "/home/alice/src/peft";
  f.python.packages["peft"].editable = true;
  f.issues.push_back({"nvidia-smi", "GPU " + kUuid + " on gpu-box-01 (10.0.0.7, 3c:7c:3f:1a:2b:4d) vanished"});
  f.stack.libraries.push_back({"libcuda", "/home/alice/" + kSk + "/libcuda.so", "", "", "ld_library_path"});
  return f;
}

TEST(Redact, WholeReportLeaksNothing) {
  machine_facts f = adversarial_machine();
  report_input in;
  in.facts = &f;
  finding fd = gs::test::sample_finding("GS-ENV-009", severity::warn);
  fd.evidence = "AWS_SECRET_ACCESS_KEY=" + kAwsSecret + " and " + kAkia + " in /home/alice/.bashrc";
  in.findings = {fd};
  probe_result p = gs::test::sample_probe("py.import", status::error, "token " + kGhp + " rejected");
  p.kernel_log = {"amdgpu 0000:03:00.0: host gpu-box-01 user alice " + kSlack};
  p.data = {{"url", "https://alice:secret123@192.168.0.5/x"}, {"password", "hunter22"}};
  in.probes = {p};
  report_options o;
  o.created_utc = "2026-12-02T10:00:00Z";
  json r = build_report(in, o);
  EXPECT_TRUE(gs::testing::matches_report_schema(r));
  std::vector<std::string> leaks = {kHf,          kJwt.substr(0, 40), kSk,         kAkia,       kAwsSecret,
                                    kGhp,         kSlack,             kUuid,       "alice",     "gpu-box-01",
                                    "10.0.0.7",   "10.20.30.40",      "192.168.0.5", "3c:7c:3f", "pa55w0rd",
                                    "secret123",  "hunter22",         "plainvalue-without-shape"};
  std::string text = r.dump();
  std::string human = render_human(r, false);
  std::string md = render_markdown(r);
  for (const std::string& leak : leaks) {
    EXPECT_EQ(text.find(leak), std::string::npos) << "JSON leaks " << leak;
    EXPECT_EQ(human.find(leak), std::string::npos) << "table leaks " << leak;
    EXPECT_EQ(md.find(leak), std::string::npos) << "markdown leaks " << leak;
  }
  // What stays: the package location with the user swapped out, the stable GPU id.
  EXPECT_EQ(r["stack"]["python"]["package_details"]["peft"]["location"], "/home/<user>/src/peft");
  EXPECT_EQ(r["gpus"][0]["serial"], stable_serial_id(kUuid));
  EXPECT_NE(r["issues"].back()["message"].get<std::string>().find(stable_serial_id(kUuid)), std::string::npos);
  EXPECT_EQ(r["env"]["HF_TOKEN"], "<redacted>");
}

TEST(Redact, WholeReportWithIdentifiersKeepsHostnameNotTokens) {
  machine_facts f = adversarial_machine();
  report_input in;
  in.facts = &f;
  report_options o;
  o.include_identifiers = true;
  json r = build_report(in, o);
  std::string text = r.dump();
  EXPECT_NE(text.find("gpu-box-01"), std::string::npos);
  EXPECT_NE(text.find("/home/alice/src/peft"), std::string::npos);
  EXPECT_NE(text.find(kUuid), std::string::npos);
  EXPECT_EQ(text.find(kHf), std::string::npos);
  EXPECT_EQ(text.find("pa55w0rd"), std::string::npos);
  EXPECT_EQ(text.find("plainvalue-without-shape"), std::string::npos);
}

TEST(Redact, ProcessEnvironmentSecretsNeverComeBack) {
  // A token exported under a name detection does not look at still cannot leak via a probe.
  ::setenv("GPUSTACK_TEST_SECRET_TOKEN", "zq9-unshaped-value-77", 1);
  report_input in;
  in.probes = {gs::test::sample_probe("py.import", status::fail, "login with zq9-unshaped-value-77 failed")};
  json r = build_report(in, report_options{});
  ::unsetenv("GPUSTACK_TEST_SECRET_TOKEN");
  EXPECT_EQ(r.dump().find("zq9-unshaped-value-77"), std::string::npos);
}

TEST(Redact, BigInputIsLinear) {
  // 1 MiB of sysfs-like text with addresses every line: a regex engine would take seconds or
  // overflow its stack; the scanners must stay well under a second.
  std::string big;
  while (big.size() < (1u << 20)) big += "inet 10.1.2.3 hf_hub_download gfx1201 12.4.5.8 0000:03:00.0\n";
  redactor r = identity_redactor();
  std::string out = r.scrub(big);
  EXPECT_EQ(out.find("10.1.2.3"), std::string::npos);
  EXPECT_NE(out.find("0000:03:00.0"), std::string::npos);
}

}  // namespace
}  // namespace gs
