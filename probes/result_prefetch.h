#pragma once
// Hints to the cache for walks over a fleet's probe results. A fleet's
// results (4096 hosts x 8 rails: ~170k) are far larger than the cache and
// each holds several allocations: without a hint, every pointer a walk
// follows waits on memory. Used by the judge's one read of the results
// (health/result_facts.cpp) and by the renderers.
#include <algorithm>
#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/result.h"

namespace ibgpu {

// The heap text a walk over results reads first: the id and the scope's
// hosts. Ask kPrefetchAhead results ahead.
inline void prefetch_heads(const std::vector<ProbeResult>& probes, std::size_t i) {
  if (i >= probes.size()) return;
  __builtin_prefetch(probes[i].id.data());
  __builtin_prefetch(probes[i].scope.hosts.data());
}
constexpr std::size_t kPrefetchAhead = 8;

// The heap parts of a result (scope, params and the start of its metrics)
// that a renderer is about to read. (Measured on the fleet bench: the JSON
// reporter gains about a tenth; asking for more lines, or for the table,
// cost more than it saved.)
inline void prefetch_probe(const ProbeResult& p) {
  auto lines = [](const void* at, int count) {
    for (int i = 0; i < count; ++i) __builtin_prefetch(static_cast<const char*>(at) + 64 * i, 0, 1);
  };
  lines(p.scope.hosts.data(), 1);
  lines(p.scope.devices.data(), 1);
  lines(p.scope.ranks.data(), 1);
  if (!p.metrics.empty()) lines(&*p.metrics.begin(), 4);
  if (p.params.is_object() && !p.params.empty()) lines(&*p.params.get_ref<const nlohmann::json::object_t&>().begin(), 3);
}

// For a probe with many metrics (a GPU's health has two dozen): all of its
// metrics, which lie in one array; at most 8 KiB of lines.
inline void prefetch_metrics(const ProbeResult& p) {
  if (p.metrics.empty()) return;
  const char* first = reinterpret_cast<const char*>(&*p.metrics.begin());
  const std::size_t bytes = std::min<std::size_t>(p.metrics.size() * sizeof(Metrics::value_type), 8192);
  for (std::size_t at = 0; at < bytes; at += 64) __builtin_prefetch(first + at, 0, 1);
}

}  // namespace ibgpu
