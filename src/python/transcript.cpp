#include "python/transcript.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>

namespace gs {

namespace {
constexpr size_t kStreamCap = size_t{64} << 20;
}

std::optional<std::string> transcript_dir() {
  const char* d = std::getenv("GPUSTACK_TRANSCRIPT_DIR");
  if (!d || !*d) return std::nullopt;
  return std::string(d);
}

std::string transcript_name(std::string_view script_path, const nlohmann::json& args) {
  size_t slash = script_path.rfind('/');
  std::string_view stem = slash == std::string_view::npos ? script_path : script_path.substr(slash + 1);
  if (stem.size() > 3 && stem.substr(stem.size() - 3) == ".py") stem.remove_suffix(3);
  uint32_t h = 2166136261u;  // FNV-1a, 32 bits: a file name, not a security property
  for (unsigned char c : args.dump()) h = (h ^ c) * 16777619u;
  return fmt::format("{}-{:08x}", stem, h);
}

transcript::transcript(const std::string& dir, std::string_view script_path, nlohmann::json args)
    : script_(script_path), args_(std::move(args)) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    error_ = "cannot create " + dir + ": " + ec.message();
    return;
  }
  base_ = dir + "/" + transcript_name(script_path, args_);
  out_.open(base_ + ".stdout", std::ios::binary | std::ios::trunc);
  err_.open(base_ + ".stderr", std::ios::binary | std::ios::trunc);
  if (!out_ || !err_) error_ = "cannot write " + base_ + ".stdout/.stderr";
}

void transcript::append(bool from_stdout, std::string_view bytes) {
  if (!error_.empty() || bytes.empty()) return;
  size_t& n = written_[from_stdout ? 0 : 1];
  std::ofstream& f = from_stdout ? out_ : err_;
  size_t take = std::min(bytes.size(), kStreamCap - std::min(n, kStreamCap));
  f.write(bytes.data(), static_cast<std::streamsize>(take));
  f.flush();
  n += take;
}

void transcript::finish(int exit_code, int signal) {
  if (!error_.empty()) return;
  out_.close();
  err_.close();
  nlohmann::json meta = {{"script", script_},
                         {"args", args_},
                         {"exit_code", exit_code},
                         {"signal", signal},
                         {"truncated", written_[0] >= kStreamCap || written_[1] >= kStreamCap}};
  std::ofstream j(base_ + ".json", std::ios::binary | std::ios::trunc);
  j << meta.dump(2) << "\n";
  if (!j) error_ = "cannot write " + base_ + ".json";
}

}  // namespace gs
