#pragma once
// Admission: from the verdicts of a node and of its GPUs and rails to the
// node's action. A failed GPU or rail is excluded and the node admitted
// degraded while others of its kind remain; a node failed as a whole, or
// left unchecked, is drained. Pure.
#include <string>
#include <vector>

#include "core/inventory.h"
#include "core/verdict.h"
#include "health/history.h"
#include "health/profile.h"

namespace ibgpu {

// Folds each node's GPUs and rails into its state and sets its action,
// usable and excluded lists. Every host has a node verdict afterwards. The
// rails are the ports of the HCAs a GPU is nearest to (Hca::rail): a storage
// port's verdict stands, but it is no part of the node. With `node.exclude_rail_with_gpu`, an excluded GPU's rail is
// excluded with it.
// With `history` (check --history), each node's earlier checks may change its finding
// (health/history.h), and this check's record of each node is added to history->outcomes.
void decide_admission(std::vector<Verdict>& verdicts, const std::vector<HostInventory>& hosts,
                      const NodeExpectations& node = {}, NodeHistory* history = nullptr);

// The run summary: its state, exit code and each node's action. The
// Kubernetes map of the nodes is the scheduler's (scheduler/kubernetes.h).
RunSummary summarise(const std::vector<Verdict>& verdicts);

// A node's verdict in one short line, for a scheduler's drain reason or an
// annotation: "failed: PROBE_TIMEOUT,IB_RAIL_DOWN (excluded gpu1,mlx5_1:1)",
// cut at `max_chars` with "...".
std::string short_reasons(const Verdict& node, std::size_t max_chars = 120);

}  // namespace ibgpu
