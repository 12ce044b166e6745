#pragma once
// Work orders (check --cabling FILE, core/cabling.h): for each fabric entity a run did not admit
// healthy (an HCA port, a link, a leaf switch or its uplinks, a node blamed for what its pairs
// measured: the rail its findings cite, else each of its cables), the cables to act on, one order per cable
// however many pairs crossed it. Each names the error counters that moved on its HCA end during
// the run, the shortfall its worst verdict read, and the next act. What cannot be read is said,
// never guessed: a switch end's counters (ibgpu reads the hosts'), a port the cabling does not
// list, a link measured without ports (MPI: no order). A leaf switch blamed as a whole gets its
// uplinks' cables, the switch to inspect first (its hosts cannot tell it from its uplinks). Pure.
#include <vector>

#include "core/cabling.h"
#include "core/result.h"
#include "core/verdict.h"

namespace ibgpu {

std::vector<WorkOrder> work_orders(const std::vector<Verdict>& verdicts, const std::vector<ProbeResult>& probes,
                                   const Cabling& cabling);

}  // namespace ibgpu
