// Text parsers behind detect_toolkits (fuzz targets): ROCm's .info/version, CUDA's version.json
// and version.txt, and ld.so.conf fragments.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace gs {

/// Leading "\d+.\d+.\d+" of /opt/rocm/.info/version ("7.2.0-43" -> "7.2.0"); "" otherwise.
std::string parse_rocm_version_text(std::string_view text);
/// Toolkit version from CUDA's version.json: "cuda".version, else "cuda_nvcc", else
/// "cuda_cudart"; "" when malformed or absent.
std::string parse_cuda_version_json(std::string_view text);
/// Old toolkits' version.txt: "CUDA Version 11.8.89" -> "11.8.89"; "" otherwise.
std::string parse_cuda_version_txt(std::string_view text);
/// Absolute directory lines of an ld.so.conf file ("include" lines and comments skipped).
std::vector<std::string> parse_ld_so_conf(std::string_view text);

}  // namespace gs
