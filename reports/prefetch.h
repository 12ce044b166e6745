#pragma once
// A hint to the cache for renderers that walk a fleet's probe results.
#include <algorithm>
#include <cstddef>

#include <nlohmann/json.hpp>

#include "probes/result.h"

namespace ibgpu {

// Asks the cache for the heap parts of a probe result (scope, params and
// metrics nodes) that a renderer is about to read. A fleet's results are far
// larger than the cache and each is a small tree of allocations: without a
// hint, every pointer a renderer follows waits on memory, one node after the
// other. A map's nodes are allocated one after the other as its probe fills
// it, so they lie near its first and last node (both known without reading a
// node): a small map's lines from its first node on, a large one's from a
// little before the lower of the two to a little after the higher, at most
// kMaxMapBytes of them.
inline void prefetch_probe(const ProbeResult& p) {
  constexpr std::ptrdiff_t kLine = 64, kSlack = 1024, kMaxMapBytes = 6144;
  constexpr std::size_t kSmallMap = 4;
  auto lines = [](const char* from, std::ptrdiff_t bytes) {
    for (std::ptrdiff_t at = 0; at < bytes; at += kLine) __builtin_prefetch(from + at, 0, 1);
  };
  auto object = [](const void* at) { return static_cast<const char*>(at); };
  auto map_nodes = [&](const auto& map) {
    if (map.empty()) return;
    const char* first = object(&*map.begin());
    if (map.size() <= kSmallMap) return lines(first, static_cast<std::ptrdiff_t>(3 * map.size()) * kLine);
    const char* last = object(&*map.rbegin());
    const char* low = std::min(first, last) - kSlack;
    lines(low, std::min(std::max(first, last) + kSlack - low, kMaxMapBytes));
  };
  lines(object(p.scope.hosts.data()), 1);
  lines(object(p.scope.devices.data()), 1);
  lines(object(p.scope.ranks.data()), 1);
  map_nodes(p.metrics);
  if (p.params.is_object()) map_nodes(p.params.get_ref<const nlohmann::json::object_t&>());
}

}  // namespace ibgpu
