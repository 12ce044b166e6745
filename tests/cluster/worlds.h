#pragma once
// A launch's World as the tests need one: MPI ranks on the hosts given, one entry per rank.
#include <string>
#include <utility>
#include <vector>

#include "cluster/world.h"

namespace ibgpu::testing {

inline World mpi_world(const std::vector<std::string>& rank_hosts, int rank = 0) {
  World w;
  w.rank = rank;
  w.size = static_cast<int>(rank_hosts.size());
  w.mpi = true;
  w.places = places_from_hosts(rank_hosts);
  return w;
}

}  // namespace ibgpu::testing
