#pragma once
// Pure judging of a node's own hardware before any traffic: GPUs (NVML
// values, CUDA probes, XIDs) and RDMA ports (state, rate, width, error
// counters over the run, link drops), by the limits of the profile. No MPI,
// no I/O.
#include <vector>

#include "core/inventory.h"
#include "core/result.h"
#include "core/verdict.h"
#include "health/profile.h"

namespace ibgpu {

// Verdicts for `gpu` ("host/gpuN"), `hca_port` ("host/mlx5_0:1") and, for
// device counts and host-wide local checks, `node` entities. A local check
// that was skipped makes its entity unknown, never healthy.
std::vector<Verdict> judge_local_health(const std::vector<HostInventory>& hosts, const std::vector<ProbeResult>& probes,
                                        const Profile& profile);

// The same verdicts written into the caller's book (the judge's), in the same
// order: a fleet has tens of thousands of them, not worth copying from one
// book into another.
class VerdictBook;
void judge_local_health(VerdictBook& book, const std::vector<HostInventory>& hosts,
                        const std::vector<ProbeResult>& probes, const Profile& profile);

// Local probes are judged here entirely; the general judge leaves them alone.
bool is_local_probe(const ProbeResult& probe);

}  // namespace ibgpu
