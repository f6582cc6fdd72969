// The versions `gpustack bisect` searches: read from the listing probes/python/bisect_index.py
// prints (the user's package index or a wheelhouse, judged by the user's own interpreter), cut to
// the range between --good and --bad, and put in a line from the good end to the bad end.
// Pre-releases are left out unless an end is one or --pre is given; yanked releases unless an
// end is one; releases with no file this Python can install are kept aside with the reason (they
// are no trial: nothing would run).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gs {

struct listed_version {
  std::string version;     ///< as the index spells it
  bool installable = true; ///< a wheel this interpreter accepts, or an sdist
  std::string why_not;     ///< when not installable
  bool yanked = false;
  std::string uploaded;    ///< earliest upload time of its files (PEP 700), "" when the index gives none
};

struct version_listing {
  std::string source;                  ///< "index" | "find-links"
  std::vector<std::string> locations;  ///< index URLs or the wheelhouse
  std::vector<listed_version> versions;
  std::string changelog, releases, links_from;  ///< the project's links, where the index names them
  std::vector<std::string> errors;     ///< locations that could not be read
};

/// The helper's JSON; nullopt and *why when it is not that shape.
std::optional<version_listing> parse_version_listing(const nlohmann::json& j, std::string* why);

struct bisect_range {
  std::vector<listed_version> line;      ///< good end first, bad end last
  std::vector<listed_version> left_out;  ///< in the range but not tried: not installable (why_not set)
  bool descending = false;               ///< the good end is the newer release: searching for a fix
  size_t prereleases_left_out = 0, yanked_left_out = 0;
};

/// Cut `l` to [good, bad] (either order). nullopt and *why when an end is no release in the listing
/// (naming the nearest releases) or the two ends are the same release.
std::optional<bisect_range> select_range(const version_listing& l, const std::string& good, const std::string& bad,
                                         bool include_prereleases, std::string* why);

}  // namespace gs
