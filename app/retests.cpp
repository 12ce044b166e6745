#include "app/retests.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <set>

#include "app/check_plan.h"
#include "cluster/gather.h"
#include "cluster/liveness.h"
#include "cluster/rank_pairs.h"
#include "core/text.h"
#include "core/units.h"
#include "health/judge.h"
#include "health/localise.h"
#include "health/thresholds.h"
#include "reports/json.h"

namespace ibgpu {

namespace {

using nlohmann::json;

std::string pairs_text(const std::vector<HostPair>& pairs) {
  std::vector<std::string> texts;
  for (const auto& [a, b] : pairs) texts.push_back(a + "-" + b);
  return short_list(texts, 4);
}

json decision_to_json(const RetestDecision& d) {
  return json{{"rounds", d.rounds}, {"suspects", d.suspects}, {"collectives", d.collectives}, {"notes", d.notes}};
}

RetestDecision decision_from_json(const json& j) {
  RetestDecision d;
  d.rounds = j.at("rounds").get<decltype(d.rounds)>();
  d.suspects = j.at("suspects").get<std::size_t>();
  d.collectives = j.at("collectives").get<bool>();
  d.notes = j.at("notes").get<std::vector<std::string>>();
  return d;
}

// Host pairs by name -> rank rounds of this launch.
std::vector<RankRound> to_rank_rounds(const World& world, const RetestDecision& d) {
  const std::vector<std::string> hosts = world.hosts();
  auto index = [&](const std::string& h) {
    return static_cast<int>(std::find(hosts.begin(), hosts.end(), h) - hosts.begin());
  };
  std::vector<Round> host_rounds;
  for (const auto& round : d.rounds) {
    Round r;
    for (const auto& [a, b] : round) {
      const int ia = index(a), ib = index(b);
      if (ia < static_cast<int>(hosts.size()) && ib < static_cast<int>(hosts.size()))
        r.push_back(NodePair{std::min(ia, ib), std::max(ia, ib)});
    }
    host_rounds.push_back(std::move(r));
  }
  return rank_rounds_for(world, host_rounds);
}

}  // namespace

RetestDecision decide_retests(const std::vector<std::optional<std::string>>& payloads,
                              const std::vector<std::string>& rank_hosts, const Profile& profile, int pass,
                              int peers_per_suspect, bool retest_allowed,
                              const std::unordered_map<std::string, double>* reference_medians) {
  std::vector<ProbeResult> probes;
  std::set<std::string> absent;  // hosts with a rank that did not check in: not re-tested
  for (std::size_t r = 0; r < payloads.size(); ++r) {
    bool read = false;
    if (payloads[r]) {
      try {
        auto mine = json::parse(*payloads[r]).get<std::vector<ProbeResult>>();
        probes.insert(probes.end(), std::make_move_iterator(mine.begin()), std::make_move_iterator(mine.end()));
        read = true;
      } catch (const std::exception&) {
      }
    }
    if (!read && r < rank_hosts.size()) absent.insert(rank_hosts[r]);
  }
  return decide_retests_from(probes, absent, profile, pass, peers_per_suspect, retest_allowed, reference_medians);
}

RetestDecision decide_retests_from(const std::vector<ProbeResult>& probes, const std::set<std::string>& absent,
                                   const Profile& profile, int pass, int peers_per_suspect, bool retest_allowed,
                                   const std::unordered_map<std::string, double>* reference_medians) {
  RetestDecision d;
  RetestCandidates c = retest_candidates(probes, profile, reference_medians);
  std::erase_if(c.suspects, [&](const HostPair& p) { return absent.count(p.first) || absent.count(p.second); });
  std::erase_if(c.known_good, [&](const std::string& h) { return absent.count(h) > 0; });
  d.suspects = c.suspects.size();
  if (c.suspects.empty()) return d;
  if (!retest_allowed) {
    if (pass > 1)
      d.notes.push_back(count_text(c.suspects.size(), "pair") + " still suspect after " +
                        count_text(pass - 1, "re-test pass", "re-test passes") + ": " + pairs_text(c.suspects));
    return d;
  }
  for (const auto& round : plan_retests(c.suspects, c.known_good, peers_per_suspect)) d.rounds.push_back(round.pairs);
  std::size_t pairs = 0;
  for (const auto& r : d.rounds) pairs += r.size();
  d.notes.push_back("re-test pass " + std::to_string(pass) + ": " + count_text(c.suspects.size(), "suspect pair") +
                    " (" + pairs_text(c.suspects) + "): " + count_text(pairs, "measurement") + " in " +
                    count_text(d.rounds.size(), "round") + ", " +
                    (c.known_good.empty() ? "no cleared host to re-pair with: a bad pair's ends cannot be told apart"
                                          : count_text(c.known_good.size(), "cleared host") + " to re-pair with"));
  return d;
}

void trim_retests_to_budget(RetestDecision& d, const BetweenSteps& steps, Seconds elapsed) {
  if (!steps.budget || d.rounds.empty() || steps.retest_round_s <= 0) return;
  const double left = kBudgetForMeasuring * steps.budget->count() - elapsed.count();
  const auto fit = static_cast<std::size_t>(std::max(0.0, std::floor(left / steps.retest_round_s)));
  if (fit >= d.rounds.size()) return;
  d.notes.push_back("budget: re-tests cut to " + std::to_string(fit) + " of " + count_text(d.rounds.size(), "round") +
                    " (" + duration_text(elapsed) + " of " + duration_text(*steps.budget) + " spent, up to " +
                    duration_text(steps.retest_round_s) + " a round)");
  d.rounds.resize(fit);
}

BetweenOutcome run_between_steps(MpiSession& session, const NetOptions& net, const Profile& profile,
                                 const BetweenSteps& steps, std::vector<ProbeResult> network, Seconds timeout,
                                 LiveChannel& live) {
  const World& world = session.world();
  BetweenOutcome out;
  out.collectives = steps.collectives;
  if (!world.mpi || world.size < 2 || (steps.passes == 0 && !steps.budget)) return out;

  std::erase_if(network, [](const ProbeResult& p) { return !is_pair_probe(p); });
  std::vector<std::string> rank_hosts;
  for (const auto& place : world.places) rank_hosts.push_back(place.host);
  std::size_t next_round = rank_rounds(world, net.pairs).size() + 1;
  for (int pass = 1;; ++pass) {
    // Rank 0 alone decides, on its clock; everyone follows its answer.
    auto decide = [&](const std::vector<std::optional<std::string>>& payloads) {
      const Seconds elapsed = Clock::now() - steps.started;
      const bool time_left = time_left_for_another_step(steps.budget, elapsed);
      RetestDecision d = decide_retests(payloads, rank_hosts, profile, pass, steps.peers_per_suspect,
                                        pass <= steps.passes && time_left, steps.reference_medians);
      if (d.suspects > 0 && pass <= steps.passes && !time_left)
        d.notes.push_back("budget: re-tests dropped (" + duration_text(elapsed) + " of " +
                          duration_text(*steps.budget) + " spent)");
      trim_retests_to_budget(d, steps, elapsed);
      if (d.rounds.empty() && steps.collectives && steps.budget &&
          elapsed.count() + steps.collectives_estimate_s > steps.budget->count()) {
        d.collectives = false;
        d.notes.push_back("budget: the all-reduce (about " + duration_text(steps.collectives_estimate_s) +
                          ") dropped, " + duration_text(elapsed) + " of " + duration_text(*steps.budget) + " spent");
      }
      return decision_to_json(d).dump();
    };
    set_phase(static_cast<int>(next_round - 1));  // between the rounds before and after
    const auto answer = consult(session.comm(), kTagConsult, json(network).dump(), timeout, decide);
    if (!answer) return out;  // rank 0 is silent: the all-reduce's roll call will name it
    RetestDecision d;
    try {
      d = decision_from_json(json::parse(*answer));
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("unreadable re-test plan from rank 0: ") + e.what());
    }
    if (world.rank == 0) {
      for (const auto& n : d.notes) std::cerr << "ibgpu: " << n << '\n';
      out.notes.insert(out.notes.end(), d.notes.begin(), d.notes.end());
    }
    out.collectives = steps.collectives && d.collectives;
    if (d.rounds.empty()) return out;
    const std::vector<RankRound> rounds = to_rank_rounds(world, d);
    std::vector<ProbeResult> got =
        run_rank_rounds(session, net, timeout, rounds, next_round, "re-test " + std::to_string(pass), live);
    next_round += rounds.size() + 1;
    for (auto& r : got) {
      r.params["retest"] = pass;
      if (is_pair_probe(r)) network.push_back(r);
      out.results.push_back(std::move(r));
    }
  }
}

}  // namespace ibgpu
