#pragma once
// The all-reduce probe's results, built from plain data: what each rank
// measured for one case (size, in-place or not). Pure; the runner does the
// communication.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/world.h"
#include "core/result.h"
#include "probes/collective/dtype.h"

namespace ibgpu {

struct AllReduceCase {
  std::size_t bytes = 0;
  std::size_t count = 0;
  DType dtype = DType::f32;
  bool in_place = false;
  int iters = 0, warmup = 0, nranks = 1;
};

// What one rank measured for one case.
struct RankOutcome {
  double seconds = 0;                  // per iteration, this rank's wall clock
  std::optional<std::uint64_t> wrong;  // wrong result elements; nullopt: not checked
};

std::string allreduce_probe_id(const std::string& backend);  // "collective.<backend>.all_reduce"
// {size_B, count, dtype, in_place, iters, warmup, nranks}
nlohmann::json allreduce_params(const AllReduceCase& c);

Scope rank_scope(const World& world, const std::string& device);  // this rank (and its device)
Scope world_scope(const World& world);                            // every host and rank

// Rank 0's result for one case from every rank's outcome (indexed by rank):
// time_us (this rank), time_us_min/avg/max and slowest_rank across ranks,
// algbw_GBps and busbw_GBps from the average time (nccl-tests' choice),
// wrong_elements (this rank), wrong_elements_total and wrong_ranks. Status ok:
// wrong data is reported by the ranks that saw it (wrong_data_result), so the
// blame lands on them. Throws std::invalid_argument when by_rank is empty.
ProbeResult allreduce_summary(const std::string& backend, const AllReduceCase& c,
                              const std::vector<RankOutcome>& by_rank, const World& world);

// This rank's `failed` result for wrong elements in its all-reduce result.
ProbeResult wrong_data_result(const std::string& backend, const AllReduceCase& c, std::uint64_t wrong,
                              const World& world, const std::string& device);

}  // namespace ibgpu
