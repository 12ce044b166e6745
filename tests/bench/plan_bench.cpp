// Times what every rank does to plan its pair rounds at fleet scale: rank_rounds for N hosts of 8
// ranks under --pairs peers:8 (each rank builds the whole plan, so this is paid once per rank,
// at the same moment, before the first round). Not a test: run it by hand (build target
// ibgpu_plan_bench) and read the numbers.
//   ibgpu_plan_bench [hosts...]     (default: 256 1024 4096)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cluster/rank_pairs.h"
#include "cluster/world.h"

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {256, 1024, 4096};
  constexpr int kRanksPerHost = 8;
  for (int hosts : sizes) {
    std::vector<std::string> names;
    for (int h = 0; h < hosts; ++h)
      for (int l = 0; l < kRanksPerHost; ++l) names.push_back("node" + std::to_string(h));
    ibgpu::World world;
    world.places = ibgpu::places_from_hosts(names);
    world.size = static_cast<int>(names.size());
    world.mpi = true;
    ibgpu::PairPlan plan;
    plan.mode = ibgpu::PairMode::peers;
    plan.peers = 8;
    const auto started = std::chrono::steady_clock::now();
    const auto rounds = ibgpu::rank_rounds(world, plan);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::printf("%5d hosts x %d ranks, peers:8: %zu rounds of %zu rank pairs planned in %.3f s\n", hosts, kRanksPerHost,
                rounds.size(), rounds.empty() ? std::size_t{0} : rounds.front().size(), seconds);
  }
}
