#pragma once
// Two saved runs compared per entity: states, entities new or vanished, and
// the judged measurements (bandwidth, latency, bus bandwidth, GPU copy and
// memory bandwidth) that moved by more than a relative threshold. Pure.
#include "core/comparison.h"
#include "core/report.h"

namespace ibgpu {

// Measurements are matched by probe id, size and shape, hosts and devices;
// re-tests of one are reduced to their median first.
Comparison compare_reports(const Report& old_run, const Report& new_run, double threshold);

}  // namespace ibgpu
