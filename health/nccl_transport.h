#pragma once
// What NCCL's own log says it used (collective.nccl.transport, probes/collective/nccl_log.h), judged
// where the profile names the network NCCL should take across hosts ([allreduce].network): a low
// busbw and a socket fallback read the same in a figure; here the fallback is its own finding.
//  - a host whose NCCL took another network across hosts (Socket where IB is expected): the node
//    failed, ALLREDUCE_TRANSPORT_UNEXPECTED, naming the network, the rank and the placement;
//  - with the expected network, a rail of the host (an active port of a compute HCA) that NCCL did
//    not list among its devices: that port degraded, same code (NCCL's traffic leaves it out).
// Without [allreduce].network the records are kept and not judged. Pure; called by judge().
#include <vector>

#include "core/inventory.h"
#include "core/result.h"
#include "health/profile.h"
#include "health/verdict_book.h"

namespace ibgpu {

void judge_nccl_transport(VerdictBook& book, const std::vector<HostInventory>& hosts,
                          const std::vector<ProbeResult>& probes, const Profile& profile);

}  // namespace ibgpu
