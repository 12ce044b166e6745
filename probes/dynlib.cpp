#include "probes/dynlib.h"

#include <dlfcn.h>

namespace ibgpu {

DynLib::DynLib(const std::vector<std::string>& candidates) {
  for (const auto& name : candidates) {
    handle_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_) {
      path_ = name;
      error_.clear();
      return;
    }
    const char* why = dlerror();
    if (!error_.empty()) error_ += "; ";
    error_ += why ? why : (name + ": cannot load");
  }
}

DynLib::~DynLib() {
  if (handle_) dlclose(handle_);
}

DynLib& DynLib::operator=(DynLib&& other) noexcept {
  if (this != &other) {
    if (handle_) dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    path_ = std::move(other.path_);
    error_ = std::move(other.error_);
  }
  return *this;
}

void* DynLib::raw_symbol(const char* name) const { return handle_ ? dlsym(handle_, name) : nullptr; }

std::string DynLib::resolve(std::initializer_list<Symbol> table) const {
  std::string missing;
  for (const Symbol& row : table) {
    void* raw = raw_symbol(row.name());
    row.assign(raw);
    if (raw || !row.is_required()) continue;
    if (!missing.empty()) missing += ", ";
    missing += row.name();
  }
  return missing;
}

}  // namespace ibgpu
