// Version numbers and version ranges as the knowledge base compares them: PEP 440 for Python
// packages ("2.11.0+rocm7.2", "1.6.2.post1", "2.9.0.dev20250101"), and the same parser, made
// lenient, for everything else a machine reports ("7.2.0-43" from ROCm, "580.159.04" from the
// NVIDIA driver, "6.8.0-49-generic" from the kernel). Ranges are PEP 440 specifier sets
// (">=3.4.0,<3.7.1", "==3.6.*", "~=0.49.0").
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gs {

struct version {
  uint64_t epoch = 0;
  std::vector<uint64_t> release;      ///< 3.6.0 -> {3, 6, 0}; never empty once parsed
  char pre_phase = 0;                 ///< 'a', 'b', 'c' (rc) or 0 when not a pre-release
  uint64_t pre_number = 0;
  std::optional<uint64_t> post;       ///< ".post1", "-1" (PEP 440 implicit post), "7.2.0-43"
  std::optional<uint64_t> dev;        ///< ".dev20250101"
  std::vector<std::string> local;     ///< "+rocm7.2" -> {"rocm7", "2"}, lower-cased
  std::string text;                   ///< the input as given

  /// PEP 440 parse (case-insensitive, with its normalisations); nullopt when not PEP 440.
  static std::optional<version> parse_pep440(std::string_view s);
  /// parse_pep440, else the leading dotted number with the rest kept as a local label
  /// ("6.8.0-49-generic" -> 6.8.0 +49.generic). nullopt when there is no leading digit.
  static std::optional<version> parse(std::string_view s);

  uint64_t major() const { return release.empty() ? 0 : release[0]; }
  uint64_t minor() const { return release.size() < 2 ? 0 : release[1]; }
  bool is_prerelease() const { return pre_phase != 0 || dev.has_value(); }
  /// Normalised public form plus local label: "2.11.0+rocm7.2", "1.0rc1.post2.dev3".
  std::string normalized() const;
};

/// <0, 0, >0 like strcmp, in PEP 440 order (X.dev < X.a < X.b < X.rc < X < X.post; release
/// segments padded with zeros, so 7.2 == 7.2.0). `with_local`: also order by the local label.
int compare(const version& a, const version& b, bool with_local = true);

/// One clause of a range: ">=3.4.0", "==3.6.*", "!=2.9.0".
struct version_clause {
  enum class op { eq, ne, lt, le, gt, ge, compatible, arbitrary };
  op kind = op::eq;
  version v;
  bool wildcard = false;  ///< "==3.6.*": prefix match on the release segments
  std::string text;       ///< the arbitrary-equality string for "==="
};

/// A PEP 440 specifier set: every clause must hold. Unlike pip it never excludes pre-releases,
/// because the question is "is the installed version in the range", not "which one to install"
/// (a torch nightly 2.9.0.dev20250101 must match ">=2.8").
class version_range {
 public:
  /// "" is an error; a bare version "3.6.0" means "==3.6.0". On failure `error` says why.
  static std::optional<version_range> parse(std::string_view text, std::string* error = nullptr);
  bool contains(const version& v) const;
  const std::string& text() const { return text_; }
  const std::vector<version_clause>& clauses() const { return clauses_; }

 private:
  std::vector<version_clause> clauses_;
  std::string text_;
};

}  // namespace gs
