#include "probes/net/verbs/verbs_check.h"

#include <cstdio>
#include <cstring>

namespace ibgpu::verbs {

std::string errno_text(int code) {
  if (code == 0) return "errno not set";
  return std::string(std::strerror(code)) + " (errno " + std::to_string(code) + ")";
}

void throw_errno(const char* call, int code) { throw CallError(call, errno_text(code)); }

int poll_cq(ibv_cq* cq, int max, ibv_wc* completions) {
  const int n = ibv_poll_cq(cq, max, completions);
  if (n >= 0) return n;
  // Providers return -1 or -errno here and may leave errno untouched; report both.
  const int code = errno;
  throw CallError("ibv_poll_cq", "returned " + std::to_string(n) + (code != 0 ? ", " + errno_text(code) : ""));
}

std::string describe_bad_completion(const ibv_wc& wc, const std::string& peer) {
  char vendor[16];
  std::snprintf(vendor, sizeof vendor, "0x%x", wc.vendor_err);
  return std::string(ibv_wc_status_str(wc.status)) + " (status " + std::to_string(static_cast<int>(wc.status)) +
         ", vendor error " + vendor + ") on work request " + std::to_string(wc.wr_id) + ", peer " + peer;
}

}  // namespace ibgpu::verbs
