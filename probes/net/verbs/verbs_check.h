#pragma once
// One checked call per verbs error convention. rdma-core mixes three, and a
// wrong guess turns a real failure into "Success":
// - ibv_modify_qp, ibv_query_*, ibv_post_*: 0, or an errno value returned;
// - ibv_open_device, ibv_alloc_pd, ibv_reg_*mr, ibv_create_*: NULL, errno set;
// - ibv_poll_cq: a negative count; and a completion may itself carry a bad
//   wc.status (the work request failed on the wire, e.g. retries exhausted).
// Each throws ibgpu::CallError, which names host and rank itself.
#include <infiniband/verbs.h>

#include <cerrno>
#include <string>

#include "core/errors.h"

namespace ibgpu::verbs {

// "Connection timed out (errno 110)"; "errno not set" for 0.
std::string errno_text(int code);

[[noreturn]] void throw_errno(const char* call, int code);

// Returned-errno convention. A few providers return -1 and set errno instead:
// both are read correctly.
inline void check_rc(int rc, const char* call) {
  if (rc == 0) return;
  const int code = rc > 0 ? rc : errno;
  throw_errno(call, code);
}

// NULL-and-errno convention. errno is read before anything else can touch it.
template <class T>
T* check_ptr(T* handle, const char* call) {
  if (handle != nullptr) return handle;
  const int code = errno;
  throw_errno(call, code);
}

// ibv_poll_cq: returns the number of completions (0..max), throws on a negative return.
int poll_cq(ibv_cq* cq, int max, ibv_wc* completions);

// "transport retry counter exceeded (status 12, vendor error 0x81) on work request 5, peer host b rank 1".
std::string describe_bad_completion(const ibv_wc& wc, const std::string& peer);

// Throws CallError("ibv_poll_cq", describe_bad_completion(...)) when wc.status is not success.
inline void check_completion(const ibv_wc& wc, const std::string& peer) {
  if (wc.status != IBV_WC_SUCCESS) throw CallError("ibv_poll_cq", describe_bad_completion(wc, peer));
}

}  // namespace ibgpu::verbs
