#include "probes/collective/nccl_library.h"

#include "core/errors.h"

namespace ibgpu {

std::string NcclLibrary::load() {
  lib = DynLib({"libnccl.so.2"});
  if (!lib.ok()) return "libnccl.so.2 not found: " + lib.error();
  const std::string missing = lib.resolve({{"ncclGetVersion", get_version},
                                           {"ncclGetUniqueId", get_unique_id},
                                           {"ncclCommInitRank", comm_init_rank},
                                           {"ncclAllReduce", all_reduce},
                                           {"ncclCommDestroy", comm_destroy},
                                           {"ncclCommAbort", comm_abort},
                                           {"ncclCommGetAsyncError", comm_get_async_error},
                                           {"ncclGetErrorString", error_string}});
  if (!missing.empty()) return lib.path() + " lacks an NCCL entry point ibgpu needs (NCCL older than 2.4?)";
  if (get_version(&version) != kSuccess) version = 0;
  return {};
}

std::string NcclLibrary::describe(Result rc) const {
  const char* text = error_string ? error_string(rc) : nullptr;
  return std::string(text ? text : "NCCL error") + " (" + std::to_string(rc) + ")";
}

void NcclLibrary::check(Result rc, const char* call) const {
  if (rc != kSuccess) throw CallError(call, describe(rc));
}

int nccl_data_type(DType type) {
  switch (type) {
    case DType::i32:
      return 2;  // ncclInt32
    case DType::f16:
      return 6;  // ncclFloat16
    case DType::f32:
      return 7;  // ncclFloat32
    case DType::f64:
      return 8;  // ncclFloat64
    case DType::bf16:
      return 9;  // ncclBfloat16 (NCCL 2.10+)
  }
  return 7;
}

std::string nccl_version_text(int code) {
  const bool new_scheme = code >= 10000;
  const int major = new_scheme ? code / 10000 : code / 1000;
  const int minor = new_scheme ? code % 10000 / 100 : code % 1000 / 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

NcclComm::~NcclComm() {
  if (comm_) nccl_->comm_destroy(comm_);
}

void NcclComm::abort() noexcept {
  if (comm_) nccl_->comm_abort(std::exchange(comm_, nullptr));
}

}  // namespace ibgpu
