#pragma once
// Whether each kind of the probe catalogue (core/probe_kind.h) can run on
// this host, and if not why: the probes' own answers (the library, device or
// file each needs), asked without measuring anything.
#include <optional>
#include <string>

#include "core/probe_kind.h"
#include "probes/sysfs.h"

namespace ibgpu {

// Nothing when the kind can run here, else why not, in the words its probe
// uses when it reports `skipped` ("libnvidia-ml.so.1 not found: ...").
std::optional<std::string> why_not_here(const ProbeKind& kind, const Sysfs& sysfs);

}  // namespace ibgpu
