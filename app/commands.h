#pragma once
// The library side of each subcommand: one function each, called by cli/.
#include "app/collectives.h"
#include "app/network.h"
#include "app/pipeline.h"
#include "health/admission_actions.h"
#include "health/profile.h"

namespace ibgpu {

struct InventoryOptions {
  CommonOptions common;
};
int run_inventory(MpiSession& session, const InventoryOptions& options);

struct CheckOptions {
  CommonOptions common;
  Profile profile = generic_profile();
  NetOptions net;
  bool collectives = true;  // the all-reduce step, after the network probes
  CollectiveOptions allreduce = check_allreduce_defaults();
  AdmissionActionOptions actions;  // drain / resume in the scheduler, after the report
};
int run_check(MpiSession& session, const CheckOptions& options);

struct ProbeOptions {
  CommonOptions common;
  NetOptions net;  // bandwidth or latency only, per subcommand
};
int run_probe(MpiSession& session, const ProbeOptions& options);

struct AllReduceOptions {
  CommonOptions common;
  CollectiveOptions collectives;
};
int run_allreduce_command(MpiSession& session, const AllReduceOptions& options);

// Shared by commands: the first rank on each host describes the host.
RankResult describe_host(const MpiSession& session, const CommonOptions& options);

}  // namespace ibgpu
