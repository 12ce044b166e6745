#pragma once
// All-reduce over three placements of the ranks, each a set of groups that run
// at the same time: the whole job; each node alone (intra-node: NVLink for
// NCCL, shared memory for MPI); each rail, the ranks with the same local rank
// on every node (one GPU per node: the network path of that rail).
#include <optional>
#include <string>
#include <vector>

#include "app/pipeline.h"
#include "cluster/world.h"
#include "core/probe_kind.h"
#include "probes/collective/run_allreduce.h"

namespace ibgpu {

enum class Placement { job, node, rail };
const char* to_string(Placement placement);
std::optional<Placement> placement_from_string(const std::string& text);

// Pure: the groups of a placement, each the ascending ranks of `world`, in
// order of their lowest rank. Groups of one rank are included.
std::vector<std::vector<int>> placement_groups(const World& world, Placement placement);

// Pure: the placements that measure something of their own here. The job
// always; node and rail when there are two hosts or more and some host runs
// two ranks or more (on one host a node is the job; with one rank per host a
// rail is the job).
std::vector<Placement> default_placements(const World& world);

// allreduce --backend, check --allreduce: which library sums. `automatic` ("auto") is nccl where
// every rank can run it, else mpi; the ranks agree on one (choose_backend), and the results say
// which ran as their probe kind's transport (Transport::nccl or Transport::mpi).
enum class CollectiveBackend { nccl, mpi, automatic };
const char* to_string(CollectiveBackend backend);  // "nccl", "mpi", "auto": the option's own words
std::optional<CollectiveBackend> collective_backend_from_string(const std::string& text);

struct CollectiveOptions {
  CollectiveBackend backend = CollectiveBackend::automatic;
  std::vector<Placement> placements;  // empty: default_placements
  AllReduceSettings settings;
  // Sizes in the sweep only to reach the profile's all-reduce floor (check --allreduce-sizes
  // judged): they run where the backend is the one the floor is written for (floor_backend), and
  // are not run, said why, where it is another (the MPI host backend is not judged by an NVLink
  // floor, and would hold gigabytes of host memory per rank for nothing).
  std::vector<std::size_t> floor_sizes;
  Transport floor_backend = Transport::nccl;  // nccl | mpi, as the profile's AllReduceLimits
  int device = -1;                            // CUDA device for NCCL; -1: the rank's local rank
  // Hidden test hook: this rank (of the job) flips one bit of its results.
  int test_corrupt_rank = -1;
  // Hidden, for tests: this rank hears no answer to the first roll call (as a rank too slow to
  // hear it would), while rank 0 counts it among the ranks that came.
  int test_deaf_rank = -1;
  // Hidden, for tests: this rank (of the job) reports an error in the job placement's sweep, after
  // its first all-reduce completed, for its group's control to run (health/controls.h).
  int test_error_rank = -1;
};

// What `ibgpu check` runs: backend auto, 1M and 16M floats, 10 iterations.
CollectiveOptions check_allreduce_defaults();

// Every rank, before anything runs: sizes that are not whole elements, a type
// the chosen backend cannot sum, more ranks than the exact-sum pattern allows.
// Empty when fine, else the usage error.
std::string collectives_preflight(const MpiSession& session, const CollectiveOptions& options);

// Rank 0, once the results are in: a collective that timed out in a group with a rank that
// was lost (sent no results: `lost`, ranks of `world`) waited on that rank. A blocking
// all-reduce cannot tell which member stopped, so every member's own account blames itself;
// but a member whose results arrived was alive, and the lost rank is named by its missing
// results. Such timeouts become `skipped` by ibgpu (not judged), naming the lost rank. Pure.
void excuse_waits_on_lost(std::vector<ProbeResult>& results, const World& world, const std::vector<int>& lost);

// Every rank: for each placement, a roll call (absent ranks become a `timeout`
// result naming them, and the ranks that came run the placement among
// themselves), then the sweep in each group of two ranks or more. Results
// carry params placement and group.
std::vector<ProbeResult> run_collectives(MpiSession& session, const CollectiveOptions& options, LiveChannel& live);

}  // namespace ibgpu
