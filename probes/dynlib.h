#pragma once
// One move-only owner of a dlopen() handle. GPU libraries (NVML, NCCL) are
// loaded at run time so the same binary starts on nodes without a driver.
#include <string>
#include <utility>
#include <vector>

namespace ibgpu {

class DynLib {
 public:
  DynLib() = default;
  // Tries each candidate in order; `ok()` tells whether one loaded and
  // `error()` says why none did (dlerror of each attempt).
  explicit DynLib(const std::vector<std::string>& candidates);
  ~DynLib();
  DynLib(DynLib&& other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)), path_(std::move(other.path_)),
        error_(std::move(other.error_)) {}
  DynLib& operator=(DynLib&& other) noexcept;
  DynLib(const DynLib&) = delete;
  DynLib& operator=(const DynLib&) = delete;

  bool ok() const { return handle_ != nullptr; }
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }

  // nullptr when the symbol is absent (older library versions lack newer entry points).
  template <class Fn>
  Fn symbol(const char* name) const {
    return reinterpret_cast<Fn>(raw_symbol(name));
  }

 private:
  void* raw_symbol(const char* name) const;
  void* handle_ = nullptr;
  std::string path_;
  std::string error_;
};

}  // namespace ibgpu
