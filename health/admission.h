#pragma once
// Admission: from the verdicts of a node and of its GPUs and rails to the
// node's action. A failed GPU or rail is excluded and the node admitted
// degraded while others of its kind remain; a node failed as a whole, or
// left unchecked, is drained. Pure.
#include <vector>

#include "health/verdict.h"
#include "probes/inventory.h"

namespace ibgpu {

// Folds each node's GPUs and rails into its state and sets its action,
// usable and excluded lists. Every host has a node verdict afterwards.
void decide_admission(std::vector<Verdict>& verdicts, const std::vector<HostInventory>& hosts);

RunSummary summarise(const std::vector<Verdict>& verdicts);

}  // namespace ibgpu
