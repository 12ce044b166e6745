#include "core/result.h"

#include <array>
#include <cstdio>
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

const char* to_string(SkippedBy by) { return by == SkippedBy::ibgpu ? "ibgpu" : "node"; }

std::optional<double> Metric::typical() const {
  if (value) return value;
  if (summary && summary->n > 0) return summary->p50;
  return std::nullopt;
}

std::string format_value(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

std::string string_param(const ProbeResult& p, std::string_view key) {
  const auto it = p.params.find(key);
  return it != p.params.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<std::uint64_t> message_size(const ProbeResult& p) {
  const auto it = p.params.find("size_B");
  if (it == p.params.end() || !it->is_number_integer() || it->get<std::int64_t>() < 0) return std::nullopt;
  return it->get<std::uint64_t>();
}

std::string gpu_name(const std::string& device) {
  for (const std::string_view prefix : {"cuda:", "GPU", "gpu"})
    if (device.starts_with(prefix) && device.size() > prefix.size()) return "gpu" + device.substr(prefix.size());
  return device;
}

}  // namespace ibgpu
