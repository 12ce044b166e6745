#pragma once
// NVLink domains across hosts (NVL72 racks): each GPU's registration with the NVLink fabric
// (gpu.nvml.health's fabric_cluster_uuid and fabric_clique) names the domain it joined. Rank 0
// groups them:
//  - a node whose GPUs joined more than one domain is split: its GPUs serve jobs on the node, not
//    the rack's jobs across the split (NVLINK_DOMAIN_SPLIT, degraded);
//  - with Slurm's block topology (a block a rack), a node whose domain is not the one most of its
//    block's nodes joined is in the wrong domain for its block (NVLINK_DOMAIN_SPLIT, degraded); a
//    block whose nodes are split evenly between domains has no such majority, and each of its nodes
//    gets the finding.
// GPUs that did not register are the local check's (GPU_FABRIC_NOT_REGISTERED) and join no domain
// here; a host without domains is not judged. Pure; called by judge().
#include <vector>

#include "core/fabric_topology.h"
#include "core/result.h"
#include "health/verdict_book.h"

namespace ibgpu {

void judge_nvlink_domains(VerdictBook& book, const std::vector<ProbeResult>& probes, const FabricTopology* topology);

}  // namespace ibgpu
