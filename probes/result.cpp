#include "probes/result.h"

#include <array>
#include <utility>

namespace ibgpu {

namespace {
constexpr std::array<std::pair<ProbeStatus, const char*>, 5> kStatusNames{{
    {ProbeStatus::ok, "ok"},
    {ProbeStatus::failed, "failed"},
    {ProbeStatus::skipped, "skipped"},
    {ProbeStatus::timeout, "timeout"},
    {ProbeStatus::error, "error"},
}};
}  // namespace

const char* to_string(ProbeStatus status) {
  for (const auto& [s, name] : kStatusNames)
    if (s == status) return name;
  return "error";
}

std::optional<ProbeStatus> probe_status_from_string(const std::string& text) {
  for (const auto& [s, name] : kStatusNames)
    if (text == name) return s;
  return std::nullopt;
}

std::optional<double> Metric::typical() const {
  if (value) return value;
  if (summary && summary->n > 0) return summary->p50;
  return std::nullopt;
}

}  // namespace ibgpu
