// yaml-cpp access that never throws past the reader and never inserts: a missing key is an
// empty node, a scalar is its text, anything else "".
#pragma once
#include <string>

#include <yaml-cpp/yaml.h>

namespace gs::container_read {

inline YAML::Node child(const YAML::Node& n, const char* key) {
  if (!n || !n.IsMap()) return YAML::Node();
  const YAML::Node& c = n;
  return c[key];
}

inline std::string text(const YAML::Node& n) { return n && n.IsScalar() ? n.Scalar() : std::string(); }

inline bool truthy(const YAML::Node& n) {
  std::string t = text(n);
  return t == "true" || t == "True" || t == "yes" || t == "1";
}

}  // namespace gs::container_read
