// dlopen/dlsym wrapper for the vendor tables: every failure is a runtime_status naming the
// library, the candidates tried and the symbols missing.
#include "vendor/dl_library.h"

#include <dlfcn.h>
#include <link.h>

#include <cctype>
#include <cstdlib>
#include <utility>

namespace gs::vendor {

dl_library::dl_library(dl_library&& o) noexcept { *this = std::move(o); }

dl_library& dl_library::operator=(dl_library&& o) noexcept {
  if (this != &o) {
    std::swap(handle_, o.handle_);
    std::swap(owned_, o.owned_);
    std::swap(keep_loaded_, o.keep_loaded_);
    std::swap(path_, o.path_);
    std::swap(missing_optional_, o.missing_optional_);
  }
  return *this;
}

dl_library::~dl_library() {
  if (handle_ && owned_ && !keep_loaded_) dlclose(handle_);
}

runtime_status dl_library::open(const std::vector<std::string>& candidates, bool keep_loaded) {
  std::string tried;
  for (const std::string& c : candidates) {
    dlerror();
    // RTLD_LOCAL: two copies of a vendor library (a venv's torch/lib and /opt/rocm) must not
    // satisfy each other's symbols.
    void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) {
      handle_ = h;
      owned_ = true;
      keep_loaded_ = keep_loaded;
      path_ = c;
      link_map* lm = nullptr;
      if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && *lm->l_name) path_ = lm->l_name;
      return runtime_status::success();
    }
    const char* e = dlerror();
    if (!tried.empty()) tried += "; ";
    tried += e ? e : c + ": unknown dlopen error";
  }
  if (candidates.empty()) tried = "no candidate names";
  return runtime_status::failure("dlopen", 0, "not found: " + tried);
}

void dl_library::borrow(void* handle, std::string path) {
  handle_ = handle;
  owned_ = false;
  path_ = std::move(path);
}

void* dl_library::symbol(const char* name) const {
  if (!handle_) return nullptr;
  dlerror();
  return dlsym(handle_, name);
}

runtime_status dl_library::resolve(std::initializer_list<dl_symbol> symbols) {
  std::string missing;
  for (const dl_symbol& s : symbols) {
    *s.slot = symbol(s.name);
    if (*s.slot) continue;
    if (s.required) {
      missing += missing.empty() ? "" : ", ";
      missing += s.name;
    } else {
      missing_optional_.push_back(s.name);
    }
  }
  if (!missing.empty())
    return runtime_status::failure("dlsym", 0, path_ + " lacks required symbols: " + missing);
  return runtime_status::success();
}

std::vector<std::string> library_candidates(const char* override_env, std::initializer_list<const char*> sonames,
                                            const std::vector<std::string>& extra_dirs) {
  if (override_env) {
    const char* v = std::getenv(override_env);
    if (v && *v) return {v};
  }
  std::vector<std::string> out;
  for (const char* s : sonames) out.emplace_back(s);
  for (const std::string& d : extra_dirs) {
    if (d.empty()) continue;
    for (const char* s : sonames) out.push_back(d + (d.back() == '/' ? "" : "/") + s);
  }
  return out;
}

std::string library_dir(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

bool handle_has_symbol(void* handle, const char* name) {
  if (!handle) return false;
  dlerror();
  return dlsym(handle, name) != nullptr;
}

std::string call_name(const char* statement) {
  std::string s = statement ? statement : "";
  size_t paren = s.find('(');
  if (paren == std::string::npos) return s;
  size_t end = paren;
  size_t begin = end;
  while (begin > 0 && (std::isalnum(static_cast<unsigned char>(s[begin - 1])) || s[begin - 1] == '_')) --begin;
  return begin < end ? s.substr(begin, end - begin) : s.substr(0, paren);
}

}  // namespace gs::vendor
