#pragma once
// One move-only owner of a dlopen() handle, and one way to fill a typed table
// of entry points from it. GPU libraries (NVML, NCCL, the CUDA runtime and
// driver) are loaded at run time so the same binary starts on nodes without a driver.
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace ibgpu {

// One row of a typed symbol table: the exported name and the function pointer
// it fills. Optional rows are entry points that older library versions lack.
class Symbol {
 public:
  enum Need { required, optional };
  template <class Fn>
  Symbol(const char* name, Fn*& slot, Need need = required)
      : name_(name),
        need_(need),
        slot_(&slot),
        assign_([](void* target, void* raw) { *static_cast<Fn**>(target) = reinterpret_cast<Fn*>(raw); }) {}

  const char* name() const { return name_; }
  bool is_required() const { return need_ == required; }
  void assign(void* raw) const { assign_(slot_, raw); }

 private:
  const char* name_;
  Need need_;
  void* slot_;
  void (*assign_)(void*, void*);
};

class DynLib {
 public:
  DynLib() = default;
  // Tries each candidate in order; `ok()` tells whether one loaded and
  // `error()` says why none did (dlerror of each attempt).
  explicit DynLib(const std::vector<std::string>& candidates);
  ~DynLib();
  DynLib(DynLib&& other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)),
        path_(std::move(other.path_)),
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

  // Fills every row of `table` (nullptr where this library lacks the name) and
  // returns the required names it lacks, ", "-separated: empty when none is missing.
  std::string resolve(std::initializer_list<Symbol> table) const;

 private:
  void* raw_symbol(const char* name) const;
  void* handle_ = nullptr;
  std::string path_;
  std::string error_;
};

}  // namespace ibgpu
