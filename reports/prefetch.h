#pragma once
// A hint to the cache for renderers that walk a fleet's probe results.
#include <nlohmann/json.hpp>

#include "probes/result.h"

namespace ibgpu {

// Asks the cache for the heap parts of a probe result (scope, params and the
// first metrics nodes) that a renderer is about to read. A fleet's results
// are far larger than the cache and each is a small tree of allocations:
// without a hint, every pointer a renderer follows waits on memory. A map's
// first node is asked for with the lines after it, where the nodes allocated
// with it usually lie. (Measured on the fleet bench: the JSON reporter gains
// about a tenth; asking for more lines, or for the network table, cost more than it
// saved.)
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

// For a probe with many metrics (a GPU's health has two dozen): the lines
// that hold its metrics nodes, allocated one after the other as the probe
// filled its map, so lying between and around the first and the last node
// (both known without reading a node); at most 8 KiB of lines.
inline void prefetch_metrics_nodes(const ProbeResult& p) {
  if (p.metrics.empty()) return;
  constexpr std::ptrdiff_t kSlack = 512, kMaxBytes = 8192;
  const char* first = reinterpret_cast<const char*>(&*p.metrics.begin());
  const char* last = reinterpret_cast<const char*>(&*p.metrics.rbegin());
  const char* low = (first < last ? first : last) - kSlack;
  const char* high = (first < last ? last : first) + kSlack;
  if (high - low > kMaxBytes) high = low + kMaxBytes;
  for (const char* at = low; at < high; at += 64) __builtin_prefetch(at, 0, 1);
}

}  // namespace ibgpu
