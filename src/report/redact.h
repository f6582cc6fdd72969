// Redaction (GUIDE "Redaction by default"). Two parts with different switches:
//  * secrets (tokens by pattern, values of secret-named variables, user:pass@ in URLs, and any
//    literal secret value seen in the environment) are removed always;
//  * identity (hostname, user name, home paths, IPv4/IPv6, MACs, GPU serials and UUIDs) is
//    removed unless --include-identifiers. Serials become a stable hash so two reports from one
//    machine still match up.
// The report applies this to its whole JSON tree; the snapshot to every file, path and value.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/facts.h"

namespace gs {

/// What a string is, where that changes the rules: an IPv4-shaped version ("9.1.0.70") is no IP.
enum class text_kind { plain, version };

/// True when a variable or key called `name` carries a secret (HF_TOKEN, AWS_SECRET_ACCESS_KEY,
/// *PASSWORD*, *_KEY, *AUTH*, ...); TOKENIZERS_PARALLELISM and the like are not.
bool is_secret_name(std::string_view name);
/// "GPU-" + the first 12 hex digits of SHA-256(serial); a "MIG-" serial keeps its label.
std::string stable_serial_id(std::string_view serial);
/// A stand-in of the same shape (hex stays hex, digits stay digits, dashes and a 0x prefix
/// stay), derived from SHA-256: what a snapshot's files carry, so their parsers still work.
std::string same_shape_pseudonym(std::string_view serial);

/// How serials and UUIDs are replaced: a labelled hash in reports, a same-shape pseudonym in
/// snapshot files (a KFD "unique_id 6646..." must still parse as a number on replay).
enum class serial_style { stable_id, same_shape };

/// `s` with every byte that is not part of valid UTF-8 replaced by U+FFFD (JSON output
/// requires UTF-8; a latin-1 METADATA file must not make the report throw).
std::string valid_utf8(std::string_view s);

/// The strings identity redaction looks for, besides the generic patterns.
struct redaction_identity {
  std::string hostname;              ///< "gpu-box-01.lab.example.com"
  std::string user;                  ///< "alice"
  std::string home;                  ///< "/home/alice" -> "/home/<user>"
  std::vector<std::string> serials;  ///< GPU serials / UUIDs -> stable_serial_id()
};

class redactor {
 public:
  explicit redactor(redaction_identity id = {}, bool include_identifiers = false,
                    serial_style style = serial_style::stable_id);
  /// Identity from facts (host, GPU serials) plus the secret values among facts.env and this
  /// process's environment.
  static redactor for_facts(const machine_facts& facts, bool include_identifiers,
                            serial_style style = serial_style::stable_id);

  /// Remove this exact value wherever it appears (a secret whose shape has no pattern).
  /// Values shorter than 6 characters are ignored: "1" or "true" would wreck every string.
  void add_secret_value(std::string_view value);
  /// add_secret_value() for every secret-named variable in `env`.
  void add_secret_values(const std::map<std::string, std::string>& env);

  /// The redacted text.
  std::string scrub(std::string_view text, text_kind kind = text_kind::plain) const;
  /// Redact every string and key of a JSON tree in place; values under secret-named keys go
  /// entirely, values under "version" keys and in "packages" maps count as versions.
  void scrub_json(nlohmann::json& j) const;

  bool include_identifiers() const { return include_identifiers_; }

 private:
  void scrub_node(nlohmann::json& j, bool values_are_versions) const;
  std::string scrub_identity(std::string text, text_kind kind) const;

  redaction_identity id_;
  bool include_identifiers_ = false;
  serial_style style_ = serial_style::stable_id;
  /// Serial spellings -> replacement, longest first. A hex serial is also looked for in
  /// decimal (KFD properties print unique_id in decimal, DRM in hex).
  std::vector<std::pair<std::string, std::string>> serial_swaps_;
  std::vector<std::string> secret_values_;  ///< longest first, so a prefix never wins
};

}  // namespace gs
