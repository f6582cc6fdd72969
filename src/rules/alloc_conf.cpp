// The allocator-setting parser. Tokenising follows c10::CachingAllocator::ConfigTokenizer
// (',' ':' '[' ']' are tokens of their own, whitespace is dropped); the value checks follow
// AllocatorConfig/CUDAAllocatorConfig parseArgs, whose TORCH_CHECKs raise a RuntimeError at
// the first allocation, i.e. the training script dies before step 0.
#include "rules/alloc_conf.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace gs {
namespace {

std::vector<std::string> tokenize(std::string_view text) {
  std::vector<std::string> out;
  std::string buf;
  for (char ch : text) {
    if (ch == ',' || ch == ':' || ch == '[' || ch == ']') {
      if (!buf.empty()) out.push_back(std::move(buf));
      buf.clear();
      out.emplace_back(1, ch);
    } else if (!std::isspace(static_cast<unsigned char>(ch))) {
      buf += ch;
    }
  }
  if (!buf.empty()) out.push_back(std::move(buf));
  return out;
}

bool is_punct(const std::string& t) { return t == "," || t == ":" || t == "[" || t == "]"; }

std::optional<double> to_number(const std::string& s) {
  if (s.empty() || s.size() > 64) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

std::optional<unsigned long long> to_uint(const std::string& s) {
  if (s.empty() || s.size() > 19 || !std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  return std::strtoull(s.c_str(), nullptr, 10);
}

bool power_of_two(unsigned long long v) { return v && !(v & (v - 1)); }

bool is_bool_option(std::string_view k) {
  return k == "expandable_segments" || k == "release_lock_on_cudamalloc" || k == "release_lock_on_hipmalloc" ||
         k == "pinned_use_cuda_host_register" || k == "pinned_use_hip_host_register" ||
         k == "pinned_use_background_threads" || k == "graph_capture_record_stream_reuse";
}

/// Torch's own checks, in its words where it has them.
void check_value(alloc_conf& conf, const alloc_option& o) {
  auto problem = [&](const std::string& why) { conf.problems.push_back(o.key + ":" + o.value + " " + why); };
  const std::string& k = o.key;
  if (is_bool_option(k)) {
    if (o.value != "True" && o.value != "False") problem("is not accepted: torch wants exactly True or False");
    if (k == "expandable_segments") conf.expandable_segments = o.value;
  } else if (k == "max_split_size_mb" || k == "max_non_split_rounding_mb" || k == "roundup_bypass_threshold_mb") {
    auto v = to_uint(o.value);
    if (!v) {
      problem("is not a whole number of MiB");
    } else if (k != "roundup_bypass_threshold_mb" && *v < 20) {
      problem("is below torch's minimum of 20 MiB (kLargeBuffer)");
    }
    if (v && k == "max_split_size_mb") conf.max_split_size_mb = static_cast<double>(*v);
  } else if (k == "garbage_collection_threshold") {
    auto v = to_number(o.value);
    if (!v || !(*v > 0.0 && *v < 1.0)) problem("is outside (0.0, 1.0), which torch requires");
    if (v) conf.garbage_collection_threshold = *v;
  } else if (k == "per_process_memory_fraction") {
    auto v = to_number(o.value);
    if (!v || !(*v >= 0.0 && *v <= 1.0)) problem("is outside [0.0, 1.0]");
  } else if (k == "roundup_power2_divisions") {
    if (o.value.empty() || o.value.front() != '[') {
      auto v = to_uint(o.value);
      if (!v || !power_of_two(*v)) problem("is not a power of two");
    }
  } else if (k == "pinned_num_register_threads") {
    auto v = to_uint(o.value);
    if (!v || !power_of_two(*v)) problem("is not a power of two");
  } else if (k == "backend") {
    conf.backend = o.value;
    if (o.value != "native" && o.value != "cudaMallocAsync" && o.value != "hipMallocAsync")
      problem("is not a backend torch knows (native, cudaMallocAsync)");
  }
}

}  // namespace

const std::vector<std::string_view>& known_alloc_options() {
  static const std::vector<std::string_view> keys = {
      "max_split_size_mb",           "max_non_split_rounding_mb",    "roundup_power2_divisions",
      "roundup_bypass_threshold_mb", "garbage_collection_threshold", "expandable_segments",
      "release_lock_on_cudamalloc",  "release_lock_on_hipmalloc",    "pinned_use_cuda_host_register",
      "pinned_use_hip_host_register", "pinned_num_register_threads", "pinned_use_background_threads",
      "backend",                     "per_process_memory_fraction",  "graph_capture_record_stream_reuse"};
  return keys;
}

const alloc_option* alloc_conf::find(std::string_view key) const {
  for (auto it = options.rbegin(); it != options.rend(); ++it)
    if (it->key == key) return &*it;
  return nullptr;
}

alloc_conf parse_alloc_conf(std::string_view text) {
  alloc_conf conf;
  std::vector<std::string> t = tokenize(text);
  const auto& known = known_alloc_options();
  size_t i = 0;
  while (i < t.size()) {
    if (t[i] == ",") {  // torch rejects ",," and a leading ','; say so, then carry on
      conf.problems.push_back("stray ',' in the setting");
      ++i;
      continue;
    }
    if (is_punct(t[i])) {
      conf.problems.push_back("unexpected '" + t[i] + "' where an option name should be");
      ++i;
      continue;
    }
    alloc_option o;
    o.key = t[i++];
    if (i >= t.size() || t[i] != ":") {
      conf.problems.push_back("option '" + o.key + "' has no ':value'");
      if (std::find(known.begin(), known.end(), o.key) == known.end()) conf.unknown.push_back(o.key);
      while (i < t.size() && t[i] != ",") ++i;
      if (i < t.size()) ++i;  // the ',' that ends this broken option
      continue;
    }
    ++i;  // ':'
    if (i < t.size() && t[i] == "[") {
      // A list value such as roundup_power2_divisions:[64:8,256:4,>:1]; kept as text.
      o.value.assign(1, '[');  // not = "[": g++ 12 -O2 warns -Wrestrict on that (a false positive, GCC PR 105329)
      ++i;
      while (i < t.size() && t[i] != "]") o.value += t[i++];
      if (i < t.size()) {
        o.value += "]";
        ++i;
      } else {
        conf.problems.push_back("option '" + o.key + "' has a '[' list with no closing ']'");
      }
    } else if (i < t.size() && !is_punct(t[i])) {
      o.value = t[i++];
    } else {
      conf.problems.push_back("option '" + o.key + "' has an empty value");
    }
    if (std::find(known.begin(), known.end(), o.key) == known.end()) {
      conf.unknown.push_back(o.key);
    } else if (!o.value.empty()) {
      check_value(conf, o);
    }
    conf.options.push_back(std::move(o));
    if (i < t.size()) {
      if (t[i] == ",") {
        ++i;  // a trailing ',' is accepted by torch's loop, so it is not a problem
      } else {
        conf.problems.push_back("expected ',' after option '" + conf.options.back().key + "', found '" + t[i] + "'");
        while (i < t.size() && t[i] != ",") ++i;
        if (i < t.size()) ++i;
      }
    }
  }
  return conf;
}

}  // namespace gs
