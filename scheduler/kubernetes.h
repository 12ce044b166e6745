#pragma once
// The admission decision as Kubernetes node labels, annotations and taints,
// for an admission controller or an operator script to apply (`kubectl label`,
// `kubectl taint`). Pure: computed with the run summary.
//
// Labels (values always label-legal):
//   ibgpu.io/state             healthy | degraded | failed | unknown
//   ibgpu.io/admission         admit | admit_degraded | drain
//   ibgpu.io/usable-gpus       GPU indices joined by '.', e.g. "0.1.2"; "none"
//   ibgpu.io/usable-gpu-count  e.g. "7" (for nodeAffinity Gt/Lt)
//   ibgpu.io/usable-rails      rails joined by '.', "mlx5_0:1" written "mlx5_0-1";
//                              "none"; "<n>-of-<total>" when the list exceeds 63 characters
//   ibgpu.io/usable-rail-count e.g. "8"
//   ibgpu.io/nvlink-cluster    the NVLink fabric's cluster UUID the node's GPUs joined
//   ibgpu.io/nvlink-clique     the clique within it, e.g. "32766" (both only for a node
//                              in one domain: NVL72 trays; as Slurm features or Topograph
//                              labels group a rack's nodes)
// Annotations (free text, the full lists): ibgpu.io/usable, ibgpu.io/excluded,
// ibgpu.io/reasons, and ibgpu.io/nvlink-domain ("CLUSTER-UUID/clique N").
// Taints: a drained node ibgpu.io/unhealthy=<failed|unknown>:NoSchedule, a
// degraded one ibgpu.io/unhealthy=degraded:PreferNoSchedule.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/verdict.h"
#include "health/nvlink_domains.h"

namespace ibgpu {

inline constexpr std::size_t kLabelValueMax = 63;

// Makes any text a legal label value: at most 63 characters of [A-Za-z0-9._-],
// beginning and ending alphanumeric (or empty). Other characters become '-'.
std::string kubernetes_label_value(std::string_view text);

// One entry per node verdict with an action; a node in `domains` gets its NVLink domain too.
std::map<std::string, KubernetesNode> kubernetes_map(const std::vector<Verdict>& verdicts,
                                                     const std::map<std::string, NvlinkDomain>& domains = {});

}  // namespace ibgpu
