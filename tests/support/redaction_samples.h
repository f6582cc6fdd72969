// Secrets and identity in the shapes redaction must catch, shared by the redaction tests of
// every output (check's report, explain's report). None is valid; each is split so that secret
// scanners on the repository do not flag the file.
#pragma once
#include <string>

namespace gs::testing {

inline const std::string kHf = std::string("hf_") + "FAKEfakeFAKEfake0123456789";
inline const std::string kGhp = std::string("ghp_") + "0123456789abcdefghijABCDEFGHIJ012345";
inline const std::string kPat = std::string("github_pat_") + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz";
inline const std::string kSk = std::string("sk-") + "proj-Abc123Def456Ghi789Jkl012Mno345";
inline const std::string kAkia = std::string("AKIA") + "IOSFODNN7EXAMPLE";  // AWS's documented example key
inline const std::string kAwsSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
inline const std::string kJwt =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
inline const std::string kSlack = std::string("xoxb-") + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx";
inline const std::string kUuid = "GPU-8f3c2a1e-9b7d-4c6e-a5f4-3d2b1c0e9f8a";

}  // namespace gs::testing
