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
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/fabric_topology.h"
#include "core/result.h"
#include "health/verdict_book.h"

namespace ibgpu {

void judge_nvlink_domains(VerdictBook& book, const std::vector<ProbeResult>& probes, const FabricTopology* topology);

// One NVLink domain: the fabric's cluster UUID and the clique within it.
struct NvlinkDomain {
  std::string cluster_uuid;
  long long clique = 0;
  std::string text() const;  // "CLUSTER-UUID/clique N"
  auto operator<=>(const NvlinkDomain&) const = default;
};

// The hosts whose GPUs all joined one NVLink domain, with it: every GPU with a health record
// registered, and in the same domain. A host with a GPU not registered, or split, has no entry.
std::map<std::string, NvlinkDomain> hosts_wholly_in_a_domain(const std::vector<ProbeResult>& probes);

// The NVLink domain an all-reduce ran within, where NCCL takes NVLink between hosts (multi-node
// NVLink, from NCCL 2.25) rather than the RDMA rails: an NCCL result across two hosts or more, each
// of them wholly in that one domain (`hosts`, from hosts_wholly_in_a_domain), multi-node NVLink not
// turned off for the run (params.nccl_mnnvl_enable "0", as the ranks' NCCL_MNNVL_ENABLE said).
// None otherwise: its bytes crossed the network, or stayed on one host.
std::optional<NvlinkDomain> allreduce_nvlink_domain(const ProbeResult& p,
                                                    const std::map<std::string, NvlinkDomain>& hosts);

// Each host's NVLink domain: the one most of its GPUs joined. A host whose GPUs joined none, or
// two or more equally, has no entry. For the report's Kubernetes labels.
std::map<std::string, NvlinkDomain> node_nvlink_domains(const std::vector<ProbeResult>& probes);

}  // namespace ibgpu
