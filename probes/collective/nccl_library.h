#pragma once
// NCCL loaded at run time (libnccl.so.2 via dlopen) through a small typed
// table, and the owner of a communicator. The few types are declared here so
// no NCCL header is needed to build ibgpu; their ABI has been stable since 2.x.
#include <cstddef>
#include <string>
#include <utility>

#include "probes/collective/dtype.h"
#include "probes/cuda/runtime.h"
#include "probes/dynlib.h"

namespace ibgpu {

struct NcclLibrary {
  using Result = int;  // ncclResult_t
  using Comm = struct ncclComm*;
  struct UniqueId {  // ncclUniqueId: passed by value, so the layout matters
    char internal[128];
  };
  static constexpr Result kSuccess = 0;
  static constexpr Result kInProgress = 7;
  static constexpr int kSum = 0;  // ncclSum

  DynLib lib;
  Result (*get_version)(int*) = nullptr;
  Result (*get_unique_id)(UniqueId*) = nullptr;
  Result (*comm_init_rank)(Comm*, int nranks, UniqueId id, int rank) = nullptr;
  Result (*all_reduce)(const void* send, void* recv, std::size_t count, int datatype, int op, Comm comm,
                       CudaRuntime::Stream stream) = nullptr;
  Result (*comm_destroy)(Comm) = nullptr;
  Result (*comm_abort)(Comm) = nullptr;
  Result (*comm_get_async_error)(Comm, Result*) = nullptr;
  const char* (*error_string)(Result) = nullptr;
  int version = 0;  // NCCL_VERSION_CODE of the loaded library, e.g. 22803

  // Empty on success, else why not, e.g. "libnccl.so.2 not found: ...".
  std::string load();
  std::string describe(Result rc) const;  // "unhandled system error (2)"
  // NCCL's convention: a return code, named by ncclGetErrorString. Throws CallError.
  void check(Result rc, const char* call) const;
};

// ncclDataType_t of an element type.
int nccl_data_type(DType type);
// "2.28.3" from NCCL_VERSION_CODE (X*10000+Y*100+Z since 2.9, X*1000+Y*100+Z before).
std::string nccl_version_text(int code);

// Owns an initialised communicator: destroyed normally, or aborted when a
// peer is lost (in-flight kernels then exit instead of waiting forever).
class NcclComm {
 public:
  NcclComm(const NcclLibrary& nccl, NcclLibrary::Comm comm) : nccl_(&nccl), comm_(comm) {}
  ~NcclComm();
  NcclComm(NcclComm&& other) noexcept : nccl_(other.nccl_), comm_(std::exchange(other.comm_, nullptr)) {}
  NcclComm& operator=(NcclComm&&) = delete;
  NcclComm(const NcclComm&) = delete;
  NcclComm& operator=(const NcclComm&) = delete;

  NcclLibrary::Comm get() const { return comm_; }
  void abort() noexcept;

 private:
  const NcclLibrary* nccl_;
  NcclLibrary::Comm comm_;
};

}  // namespace ibgpu
