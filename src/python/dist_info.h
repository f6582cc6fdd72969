// Installed Python distributions as files: the core-metadata headers of *.dist-info/METADATA and
// *.egg-info/PKG-INFO, the dist-info directory name, INSTALLER and PEP 610 direct_url.json.
// Pure text parsers (fuzz targets); the directory walk is in python/site_packages.cpp.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace gs {

/// The core-metadata headers detection uses.
struct dist_metadata {
  std::string metadata_version;  ///< "2.1"; "" when the header is missing (old PKG-INFO)
  std::string name;              ///< as written ("Flash_Attn"); compare through pep503_normalize
  std::string version;           ///< "2.11.0+rocm7.2"
};

/// Parse RFC 822 headers up to the first blank line (the body is the long description).
/// False, with `error` set, when the text is not usable metadata: binary data, no Name or no
/// Version, a Name that is not a PEP 508 name, or a Version with spaces or control characters.
bool parse_dist_metadata(std::string_view text, dist_metadata& out, std::string& error);

/// "{name}-{version}.dist-info" / ".egg-info" split at the first '-' (wheel names escape '-' in
/// the name as '_'). Used only when METADATA is unreadable, to name the broken package.
struct dist_dir_name {
  std::string name;
  std::string version;  ///< "" for "foo.egg-info" (setuptools develop installs have none)
  bool egg_info = false;
};
std::optional<dist_dir_name> split_dist_dir_name(std::string_view dirname);

/// INSTALLER holds one line ("pip", "uv", "conda"); "" when it is empty or not text.
std::string parse_installer(std::string_view text);

/// PEP 610: true when direct_url.json says {"dir_info": {"editable": true}}. Malformed JSON is
/// "not editable", never an exception.
bool direct_url_is_editable(std::string_view json_text);

}  // namespace gs
