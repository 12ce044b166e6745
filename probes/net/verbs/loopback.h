#pragma once
// The control for a verbs pair that ended in an error (DESIGN.md, "ibgpu's own faults"): the same
// port alone, writing to itself through two RC queue pairs connected to each other. It uses less
// of the stack than the pair did (no peer, no fabric, no exchange over MPI), so an error it
// reproduces is the port's; one it does not reproduce is the link's, the path's or ibgpu's, and
// never the device's (health/controls.h reads the two together).
#include <string>

#include "core/result.h"
#include "core/waits.h"

namespace ibgpu {

struct LoopbackTarget {
  std::string host;
  int rank = 0;
  std::string device;  // the rail the pair ran on, "mlx5_0:1"
  int gid_index = -1;  // as the pair's (--gid-index; -1 picks one)
  Seconds timeout = kDefaultTimeout;
};

// net.verbs.loopback on the target's port: `ok` when every write completed and the bytes landed
// as sent; `failed` when they landed changed; `error` with the verbs call's own words when a step
// failed (the port not ACTIVE, a completion in error); `skipped` where verbs cannot run at all.
ProbeResult verbs_loopback(const LoopbackTarget& target);

}  // namespace ibgpu
