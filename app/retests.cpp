#include "app/retests.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <set>

#include "app/check_plan.h"
#include "app/pipeline.h"
#include "cluster/gather.h"
#include "cluster/liveness.h"
#include "cluster/rank_pairs.h"
#include "core/text.h"
#include "core/units.h"
#include "health/judge.h"
#include "health/localise.h"
#include "health/thresholds.h"
#include "probes/net/verbs/loopback.h"
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
  json controls = json::array();
  for (const ControlOrder& c : d.controls)
    controls.push_back(json{{"rank", c.rank}, {"device", c.device}, {"round", c.round}, {"pair", c.pair}});
  return json{{"rounds", d.rounds},
              {"controls", controls},
              {"suspects", d.suspects},
              {"collectives", d.collectives},
              {"notes", d.notes}};
}

RetestDecision decision_from_json(const json& j) {
  RetestDecision d;
  d.rounds = j.at("rounds").get<decltype(d.rounds)>();
  d.suspects = j.at("suspects").get<std::size_t>();
  d.collectives = j.at("collectives").get<bool>();
  d.notes = j.at("notes").get<std::vector<std::string>>();
  for (const json& c : j.at("controls"))
    d.controls.push_back(ControlOrder{c.at("rank").get<int>(), c.at("device").get<std::string>(),
                                      c.at("round").get<std::size_t>(), c.at("pair").get<std::vector<int>>()});
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

// This rank's part of the controls rank 0 ordered: its port writing to itself, recorded as the
// control of the pair (health/controls.h). Milliseconds, bounded by the timeout; the rank's next
// partners hear its heartbeats meanwhile.
void run_controls(const World& world, const NetOptions& net, const std::vector<ControlOrder>& controls, Seconds timeout,
                  std::vector<ProbeResult>& out) {
  for (const ControlOrder& c : controls) {
    if (c.rank != world.rank) continue;
    out.push_back(verbs_loopback(LoopbackTarget{world.host(), world.rank, c.device, net.settings.gid_index, timeout}));
    mark_control(out.back(), c);
    stamp_time(out, out.size() - 1);
  }
}

}  // namespace

RetestDecision decide_retests(const std::vector<std::optional<std::string>>& payloads,
                              const std::vector<std::string>& rank_hosts, const Profile& profile, int pass,
                              int peers_per_suspect, bool retest_allowed,
                              const std::unordered_map<std::string, double>* reference_medians,
                              const std::vector<ControlOrder>& controls_done) {
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
  RetestDecision d =
      decide_retests_from(probes, absent, profile, pass, peers_per_suspect, retest_allowed, reference_medians);
  d.controls = plan_controls(probes, controls_done);
  std::erase_if(d.controls, [&](const ControlOrder& c) {  // a rank this launch does not have
    return c.rank < 0 || static_cast<std::size_t>(c.rank) >= rank_hosts.size();
  });
  if (!d.controls.empty()) {
    std::vector<std::string> ports;
    for (const ControlOrder& c : d.controls)
      ports.push_back(rank_hosts.at(static_cast<std::size_t>(c.rank)) + " " + c.device);
    d.notes.insert(d.notes.begin(), "controls: " + count_text(ports.size(), "port") +
                                        " write to themselves after a verbs pair error (" + short_list(ports, 4) +
                                        "): an error they do not reproduce is not the device's");
  }
  return d;
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
  std::vector<ControlOrder> controls_done;  // rank 0's: each control runs once
  for (int pass = 1;; ++pass) {
    // Rank 0 alone decides, on its clock; everyone follows its answer.
    auto decide = [&](const std::vector<std::optional<std::string>>& payloads) {
      const Seconds elapsed = Clock::now() - steps.started;
      const bool time_left = time_left_for_another_step(steps.budget, elapsed);
      RetestDecision d = decide_retests(payloads, rank_hosts, profile, pass, steps.peers_per_suspect,
                                        pass <= steps.passes && time_left, steps.reference_medians, controls_done);
      controls_done.insert(controls_done.end(), d.controls.begin(), d.controls.end());
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
    run_controls(world, net, d.controls, timeout, out.results);
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
