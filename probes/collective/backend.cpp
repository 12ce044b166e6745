#include "probes/collective/backend.h"

#include <cstdio>

#include "core/deadline.h"
#include "core/errors.h"
#include "core/units.h"
#include "core/waits.h"

namespace ibgpu {

namespace {

std::string timeout_text(const std::string& waited_for, Seconds timeout) {
  if (stop_requested()) return "stopped while waiting for " + waited_for + " (" + error_origin() + ")";
  return "no completion of " + waited_for + " within " + duration_text(timeout) + " (" + error_origin() +
         "): a rank is stopped, dead or stuck";
}

}  // namespace

CollectiveTimeout::CollectiveTimeout(const std::string& waited_for, Seconds timeout)
    : std::runtime_error(timeout_text(waited_for, timeout)), waited_for_(waited_for) {}

std::string describe_allreduce(const char* call, bool in_place, std::size_t count, DType type) {
  return std::string(call) + " of " + std::to_string(count) + " x " + to_string(type) +
         (in_place ? ", in-place" : ", out-of-place");
}

}  // namespace ibgpu
