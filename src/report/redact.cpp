// redactor: secrets first (always), then identity (unless --include-identifiers). Secrets go
// first so a URL's user:pass is gone before its host turns into "<ip>", and so a token that
// happens to contain the user name is removed whole rather than half-renamed.
#include "report/redact.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <optional>

#include "core/sha256.h"
#include "report/redact_scan.h"

extern char** environ;

namespace gs {
namespace {

std::string upper_name(std::string_view name) {
  std::string u(name);
  for (char& c : u) c = c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

// Account names that identify nobody; replacing them would wreck "/root", "ubuntu" (os id) ...
constexpr std::array<std::string_view, 10> kGenericUsers{"root",   "user",   "ubuntu", "debian", "admin",
                                                         "nobody", "runner", "jovyan", "vscode", "builder"};

void sort_longest_first(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() > b.size() : a < b;
  });
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

bool is_secret_name(std::string_view name) {
  std::string u = upper_name(name);
  if (u.empty()) return false;
  // Named like secrets, hold switches or paths.
  static constexpr std::array<std::string_view, 3> kNotSecret{"HF_HUB_DISABLE_IMPLICIT_TOKEN", "HF_TOKEN_PATH",
                                                              "TOKENIZERS_PARALLELISM"};
  if (std::find(kNotSecret.begin(), kNotSecret.end(), u) != kNotSecret.end()) return false;
  static constexpr std::array<std::string_view, 7> kNeedles{"SECRET",     "PASSWORD",    "PASSWD", "APIKEY",
                                                            "CREDENTIAL", "PRIVATE_KEY", "API_KEY"};
  for (std::string_view n : kNeedles)
    if (u.find(n) != std::string::npos) return true;
  if (u == "KEY" || std::string_view(u).ends_with("_KEY")) return true;
  // TOKEN and AUTH count as word parts: HF_TOKEN, ACCESSTOKEN, AUTH, AUTHORIZATION, OAUTH,
  // SSH_AUTH_SOCK are secrets; MAX_NEW_TOKENS (a count), TOKENIZER*, AUTHOR are not; nor is
  // PASS ("pass: 3/3" in a probe's detail is no password).
  size_t start = 0;
  while (start <= u.size()) {
    size_t end = u.find('_', start);
    std::string_view part = std::string_view(u).substr(start, end == std::string::npos ? std::string::npos : end - start);
    bool author = part == "AUTHOR" || part == "AUTHORS" || part == "AUTHORED";
    if (!author && (part.rfind("AUTH", 0) == 0 || part == "OAUTH")) return true;
    bool token = part.find("TOKEN") != std::string_view::npos && part.rfind("TOKENIZ", 0) != 0 && !part.ends_with("TOKENS");
    if (token) return true;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return false;
}

std::string stable_serial_id(std::string_view serial) {
  // Idempotent: an id we made ("GPU-" + 12 hex) stays itself, so a report built from a
  // snapshot (whose files already carry the ids) names the GPU exactly as the original did.
  if (serial.size() == 16 && (serial.rfind("GPU-", 0) == 0 || serial.rfind("MIG-", 0) == 0) &&
      serial.substr(4).find_first_not_of("0123456789abcdef") == std::string_view::npos)
    return std::string(serial);
  std::string label = serial.rfind("MIG-", 0) == 0 ? "MIG-" : "GPU-";
  return label + sha256_hex(serial).substr(0, 12);
}

std::string same_shape_pseudonym(std::string_view serial) {
  static const char* kHex = "0123456789abcdef";
  std::string h = sha256_hex(serial);
  std::string out(serial);
  size_t start = serial.rfind("0x", 0) == 0 || serial.rfind("0X", 0) == 0 ? 2 : 0;
  for (size_t i = start, k = 0; i < out.size(); ++i) {
    char c = out[i];
    int v = std::isdigit(static_cast<unsigned char>(h[k % 64])) ? h[k % 64] - '0' : h[k % 64] - 'a' + 10;
    if (std::isdigit(static_cast<unsigned char>(c))) {
      out[i] = static_cast<char>('0' + v % 10), ++k;
    } else if (c >= 'a' && c <= 'f') {
      out[i] = kHex[v], ++k;
    } else if (c >= 'A' && c <= 'F') {
      out[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(kHex[v]))), ++k;
    }
  }
  if (out == serial && !out.empty()) out.back() = out.back() == '0' ? '1' : '0';  // never itself
  return out;
}

namespace {

/// The value of a hex serial ("0x5c3e...", "5c3e...", up to 16 digits), if it is one.
std::optional<uint64_t> hex_serial(std::string_view s) {
  if (s.rfind("0x", 0) == 0 || s.rfind("0X", 0) == 0) s.remove_prefix(2);
  if (s.empty() || s.size() > 16 || s.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos)
    return std::nullopt;
  uint64_t v = std::stoull(std::string(s), nullptr, 16);
  return v ? std::optional<uint64_t>(v) : std::nullopt;
}

}  // namespace

redactor::redactor(redaction_identity id, bool include_identifiers, serial_style style)
    : id_(std::move(id)), include_identifiers_(include_identifiers), style_(style) {
  while (id_.home.size() > 1 && id_.home.back() == '/') id_.home.pop_back();
  auto& s = id_.serials;
  s.erase(std::remove_if(s.begin(), s.end(), [](const std::string& v) { return v.size() < 4; }), s.end());
  sort_longest_first(s);
  for (const std::string& serial : s) {
    bool shape = style_ == serial_style::same_shape;
    std::string repl = shape ? same_shape_pseudonym(serial) : stable_serial_id(serial);
    serial_swaps_.emplace_back(serial, repl);
    if (auto v = hex_serial(serial)) {
      // The same number in decimal; in a snapshot it maps to the decimal of the pseudonym.
      std::optional<uint64_t> pv = hex_serial(repl);
      serial_swaps_.emplace_back(std::to_string(*v), shape && pv ? std::to_string(*pv) : repl);
    }
  }
  std::sort(serial_swaps_.begin(), serial_swaps_.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

redactor redactor::for_facts(const machine_facts& facts, bool include_identifiers, serial_style style) {
  redaction_identity id;
  id.hostname = facts.host.hostname;
  id.user = facts.host.user;
  id.home = facts.host.home;
  for (const gpu_info& g : facts.gpus)
    if (!g.serial.empty()) id.serials.push_back(g.serial);
  redactor r(std::move(id), include_identifiers, style);
  r.add_secret_values(facts.env);
  // The full process environment too: a token exported under any secret-looking name must not
  // come back inside a probe's error text or a library path, even if detection ignored it.
  std::map<std::string, std::string> proc;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv = *e;
    size_t eq = kv.find('=');
    if (eq != std::string_view::npos) proc.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
  }
  r.add_secret_values(proc);
  return r;
}

void redactor::add_secret_value(std::string_view value) {
  // Surrounding quotes and whitespace are not part of the secret.
  while (!value.empty() && (std::isspace(static_cast<unsigned char>(value.front())) || value.front() == '"' || value.front() == '\''))
    value.remove_prefix(1);
  while (!value.empty() && (std::isspace(static_cast<unsigned char>(value.back())) || value.back() == '"' || value.back() == '\''))
    value.remove_suffix(1);
  if (value.size() < 6) return;
  secret_values_.emplace_back(value);
  sort_longest_first(secret_values_);
}

void redactor::add_secret_values(const std::map<std::string, std::string>& env) {
  for (auto& [k, v] : env)
    if (is_secret_name(k)) add_secret_value(v);
}

std::string redactor::scrub(std::string_view text, text_kind kind) const {
  std::string s = scan::url_userinfo(text);
  s = scan::secret_tokens(s);
  s = scan::secret_assignments(s);
  s = scan::literals(s, secret_values_, scan::kRedacted);
  if (include_identifiers_) return s;
  return scrub_identity(std::move(s), kind);
}

std::string redactor::scrub_identity(std::string s, text_kind kind) const {
  // UUIDs first: a "GPU-<uuid>" serial then gets the same replacement from either pass, and a
  // same-shape pseudonym (itself UUID-shaped) is never hashed a second time.
  s = scan::uuids(s, style_ == serial_style::same_shape);
  for (const auto& [serial, repl] : serial_swaps_)
    if (s.find(serial) != std::string::npos) s = scan::bounded_word(s, serial, repl, true);
  const std::string& host = id_.hostname;
  if (host.size() >= 2 && host != "localhost") {
    s = scan::bounded_word(s, host, "<hostname>", true);
    size_t dot = host.find('.');
    if (dot != std::string::npos && dot >= 3) s = scan::bounded_word(s, host.substr(0, dot), "<hostname>", true);
  }
  const std::string& home = id_.home;
  // Every home alike, root's too: what sits under it (project and model directories) says who.
  if (home.size() > 1) s = scan::path_prefix(s, home, "/home/<user>");
  s = scan::home_dirs(s);
  const std::string& user = id_.user;
  bool generic = std::find(kGenericUsers.begin(), kGenericUsers.end(), user) != kGenericUsers.end();
  if (user.size() >= 3 && !generic) s = scan::bounded_word(s, user, "<user>", true);
  s = scan::macs(s);
  s = scan::ipv6(s);
  if (kind != text_kind::version) s = scan::ipv4(s);
  return s;
}

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (ok && n > 1) {  // RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF
      auto c1 = static_cast<unsigned char>(s[i + 1]);
      if (n == 2) ok = c >= 0xC2;
      if (c == 0xE0) ok = c1 >= 0xA0;
      if (c == 0xED) ok = c1 <= 0x9F;
      if (c == 0xF0) ok = c1 >= 0x90;
      if (c == 0xF4) ok = c1 <= 0x8F;
      if (c > 0xF4) ok = false;
    }
    if (ok) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out.append("\xEF\xBF\xBD");  // U+FFFD
      ++i;
    }
  }
  return out;
}

void redactor::scrub_json(nlohmann::json& j) const { scrub_node(j, false); }

void redactor::scrub_node(nlohmann::json& j, bool values_are_versions) const {
  if (j.is_string()) {
    j = valid_utf8(scrub(j.get_ref<const std::string&>(), values_are_versions ? text_kind::version : text_kind::plain));
  } else if (j.is_array()) {
    for (auto& v : j) scrub_node(v, values_are_versions);
  } else if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto& [k, v] : j.items()) {
      nlohmann::json value = std::move(v);
      if (value.is_string() && is_secret_name(k) && !value.get_ref<const std::string&>().empty()) {
        value = scan::kRedacted;
      } else {
        bool versions = values_are_versions || k == "version" || std::string_view(k).ends_with("_version") || k == "packages";
        scrub_node(value, versions);
      }
      out[valid_utf8(scrub(k))] = std::move(value);
    }
    j = std::move(out);
  }
}

}  // namespace gs
