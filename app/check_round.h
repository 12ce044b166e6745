#pragma once
// One round of `ibgpu check`: the plan (fitted to --budget), then on every
// rank local checks, the network pairs, re-tests, the all-reduce and the error
// counters; rank 0 judges. `check` runs it once, `burn-in` many times.
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "app/check_plan.h"
#include "app/commands.h"
#include "core/cabling.h"

namespace ibgpu {

class CheckRound {
 public:
  CheckRound(const World& world, const CheckOptions& options);
  CheckRound(const CheckRound&) = delete;
  CheckRound& operator=(const CheckRound&) = delete;

  const CheckPlan& plan() const { return plan_; }
  void print_plan() const;  // rank 0, on stderr
  // The pipeline's steps; the command refers to this round, which must outlive it.
  Command command();

 private:
  RankResult run(MpiSession& session, LiveChannel& live);
  void judge_report(Report& report) const;
  std::string preflight(MpiSession& session) const;

  const World& world_;
  const CheckOptions& options_;
  LaunchShape shape_;
  CostModel cost_;
  CheckPlan plan_;
  std::vector<std::string> plan_notes_;
  std::vector<std::string> notes_;  // this round's: the plan's, then re-tests and budget decisions
  // --cabling, read by rank 0 in the preflight (a file that cannot be read stops the job there).
  mutable std::optional<Cabling> cabling_;
  // A saved baseline's medians (check --baseline), for re-tests and the judge alike.
  std::unordered_map<std::string, double> reference_;
  const std::unordered_map<std::string, double>* reference() const { return options_.baseline ? &reference_ : nullptr; }
};

}  // namespace ibgpu
