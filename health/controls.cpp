#include "health/controls.h"

#include <algorithm>
#include <map>
#include <utility>

#include "core/probe_kind.h"
#include "core/text.h"

namespace ibgpu {

namespace {

using nlohmann::json;

// A pair's round, where its record carries one (every pair of the network rounds does).
std::optional<std::size_t> round_of(const json& params) {
  const auto it = params.find("round");
  if (it == params.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<std::size_t>();
}

bool verbs_pair_error(const ProbeResult& p) {
  return p.status == ProbeStatus::error && is_pair_probe(p) && p.kind().transport == Transport::verbs &&
         p.scope.ranks.size() == 2 && p.scope.devices.size() == 2 && round_of(p.params);
}

bool ordered(const std::vector<ControlOrder>& orders, std::size_t round, int rank) {
  return std::any_of(orders.begin(), orders.end(),
                     [&](const ControlOrder& o) { return o.round == round && o.rank == rank; });
}

bool allreduce_error(const ProbeResult& p) {
  return (p.status == ProbeStatus::error || p.status == ProbeStatus::timeout) && p.kind().all_reduce() &&
         !p.params.contains("control_of") && p.params.value("placement", std::string()) != "";
}

// A group control's result: its placement and the group's ranks.
std::optional<std::pair<std::string, std::vector<int>>> group_of_control(const ProbeResult& r) {
  if (!r.kind().all_reduce()) return std::nullopt;
  const auto of = r.params.find("control_of");
  if (of == r.params.end() || !of->is_object()) return std::nullopt;
  const auto placement = of->find("placement");
  const auto ranks = of->find("ranks");
  if (placement == of->end() || !placement->is_string() || ranks == of->end() || !ranks->is_array())
    return std::nullopt;
  std::vector<int> group;
  for (const json& member : *ranks)
    if (member.is_number_integer()) group.push_back(member.get<int>());
  return std::pair{placement->get<std::string>(), std::move(group)};
}

// What a group's control came to: reproduced or not, in words, and the group's hosts; nullopt
// where it tells nothing (a member timed out or skipped it, or no summary came).
struct GroupOutcome {
  bool reproduced = false;
  std::string by;
  std::vector<std::string> hosts;
};

std::map<std::pair<std::string, std::vector<int>>, GroupOutcome> group_outcomes(
    const std::vector<ProbeResult>& results) {
  struct Tally {
    const ProbeResult* summary = nullptr;
    std::vector<std::string> failures;
    bool inconclusive = false;
  };
  std::map<std::pair<std::string, std::vector<int>>, Tally> tallies;
  for (const ProbeResult& r : results) {
    auto group = group_of_control(r);
    if (!group) continue;
    Tally& t = tallies[*group];
    if (r.status == ProbeStatus::ok && r.scope.ranks == group->second)
      t.summary = &r;
    else if (r.status == ProbeStatus::error || r.status == ProbeStatus::failed)
      t.failures.push_back("rank " + join(r.scope.ranks, ",") + ": " + r.error.value_or(to_string(r.status)));
    else if (r.status != ProbeStatus::ok)
      t.inconclusive = true;
  }
  std::map<std::pair<std::string, std::vector<int>>, GroupOutcome> out;
  for (const auto& [group, t] : tallies) {
    const std::string ring = "the same all-reduce by a ring of MPI point-to-point messages on host memory (ranks " +
                             join(group.second, ",") + ")";
    if (!t.failures.empty())
      out[group] = GroupOutcome{true, ring + " failed too (" + t.failures.front() + ")", {}};
    else if (t.summary && !t.inconclusive)
      out[group] = GroupOutcome{false, ring + " passed", t.summary->scope.hosts};
  }
  return out;
}

// An error on the GPU's side of an all-reduce: a CUDA call's (params.error_call), or NCCL's own
// "unhandled cuda error". A ring on host memory uses no GPU, so it cannot speak for one.
bool gpu_side_error(const ProbeResult& p) {
  return p.status == ProbeStatus::error && (p.params.value("error_call", std::string()).starts_with("cuda") ||
                                            (p.error && p.error->find("unhandled cuda error") != std::string::npos));
}

void settle_groups(std::vector<ProbeResult>& results) {
  const auto outcomes = group_outcomes(results);
  if (outcomes.empty()) return;
  // The group's error and the waits it ended, by position in `results`; a group with an error on a
  // GPU's side is left as it was, its waits with it (as without a control).
  struct Members {
    std::vector<std::size_t> positions;
    bool gpu_side = false;
  };
  std::map<std::pair<std::string, std::vector<int>>, Members> members;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const ProbeResult& p = results[i];
    if (!allreduce_error(p) || p.scope.ranks.empty()) continue;
    const std::string placement = p.params.value("placement", std::string());
    for (const auto& entry : outcomes) {
      const std::vector<int>& ranks = entry.first.second;
      const auto in_group = [&ranks](int rank) { return std::find(ranks.begin(), ranks.end(), rank) != ranks.end(); };
      if (entry.first.first != placement || !std::all_of(p.scope.ranks.begin(), p.scope.ranks.end(), in_group))
        continue;
      Members& m = members[entry.first];
      m.positions.push_back(i);
      m.gpu_side = m.gpu_side || gpu_side_error(p);
      break;
    }
  }
  for (const auto& [group, m] : members) {
    if (m.gpu_side) continue;
    const GroupOutcome& outcome = outcomes.at(group);
    for (const std::size_t i : m.positions) {
      json& control = results[i].params["control"];
      control = json{{"reproduced", outcome.reproduced}, {"by", outcome.by}};
      if (!outcome.reproduced) control["hosts"] = outcome.hosts;
    }
  }
}

}  // namespace

std::string to_text(const std::vector<GroupControlOrder>& orders) {
  json out = json::array();
  for (const GroupControlOrder& o : orders)
    out.push_back(json{{"index", o.index}, {"placement", o.placement}, {"ranks", o.ranks}});
  return out.dump();
}

std::optional<std::vector<GroupControlOrder>> group_controls_from_text(const std::string& text) {
  const json parsed = json::parse(text, nullptr, false);
  if (!parsed.is_array()) return std::nullopt;
  std::vector<GroupControlOrder> out;
  for (const json& o : parsed) {
    if (!o.is_object() || !o.contains("index") || !o["index"].is_number_unsigned() || !o.contains("placement") ||
        !o["placement"].is_string() || !o.contains("ranks") || !o["ranks"].is_array())
      return std::nullopt;
    GroupControlOrder order{o["index"].get<std::size_t>(), o["placement"].get<std::string>(), {}};
    for (const json& r : o["ranks"]) {
      if (!r.is_number_integer()) return std::nullopt;
      order.ranks.push_back(r.get<int>());
    }
    out.push_back(std::move(order));
  }
  return out;
}

std::vector<GroupControlOrder> plan_group_controls(const std::vector<std::optional<std::string>>& payloads) {
  // Ranks of the job only: a payload is one per rank.
  const auto in_job = [&payloads](int r) { return r >= 0 && static_cast<std::size_t>(r) < payloads.size(); };
  std::vector<GroupControlOrder> out;
  for (const auto& payload : payloads) {
    if (!payload) continue;
    // Every rank of a group that failed whole names it: it is read once, not once per rank.
    for (GroupControlOrder& o : group_controls_from_text(*payload).value_or(std::vector<GroupControlOrder>{})) {
      if (o.ranks.empty() || !std::all_of(o.ranks.begin(), o.ranks.end(), in_job) ||
          std::find(out.begin(), out.end(), o) != out.end())
        continue;
      out.push_back(std::move(o));
    }
  }
  std::sort(out.begin(), out.end(), [](const GroupControlOrder& a, const GroupControlOrder& b) {
    return std::pair(a.index, a.ranks.front()) < std::pair(b.index, b.ranks.front());
  });
  return out;
}

void mark_control(ProbeResult& control, const GroupControlOrder& order) {
  control.params["control_of"] = json{{"placement", order.placement}, {"ranks", order.ranks}};
}

std::vector<ControlOrder> plan_controls(const std::vector<ProbeResult>& results,
                                        const std::vector<ControlOrder>& done) {
  std::vector<ControlOrder> out;
  for (const ProbeResult& p : results) {
    if (!verbs_pair_error(p)) continue;
    const std::size_t round = *round_of(p.params);
    for (std::size_t end = 0; end < 2; ++end) {
      const int rank = p.scope.ranks[end];
      if (p.scope.devices[end].empty() || ordered(out, round, rank) || ordered(done, round, rank)) continue;
      out.push_back(ControlOrder{rank, p.scope.devices[end], round, p.scope.ranks});
    }
  }
  return out;
}

void mark_control(ProbeResult& control, const ControlOrder& order) {
  control.params["control_of"] = json{{"round", order.round}, {"ranks", order.pair}};
}

void settle_by_controls(std::vector<ProbeResult>& results) {
  settle_groups(results);
  std::map<std::pair<std::size_t, int>, const ProbeResult*> controls;  // by (round, rank)
  for (const ProbeResult& r : results) {
    if (r.id != kVerbsLoopbackProbe || r.scope.ranks.size() != 1) continue;
    const auto of = r.params.find("control_of");
    if (of == r.params.end() || !of->is_object()) continue;
    if (const auto round = round_of(*of)) controls.emplace(std::pair{*round, r.scope.ranks[0]}, &r);
  }
  if (controls.empty()) return;
  for (ProbeResult& p : results) {
    if (!verbs_pair_error(p)) continue;
    std::vector<std::string> reproduced, passed;
    for (std::size_t end = 0; end < 2; ++end) {
      const auto it = controls.find({*round_of(p.params), p.scope.ranks[end]});
      // A control that did not run (lost with its rank, skipped) tells nothing either way.
      if (it == controls.end() || it->second->status == ProbeStatus::skipped) break;
      const ProbeResult& c = *it->second;
      const std::string port = p.scope.hosts[end] + " " + p.scope.devices[end];
      if (c.status == ProbeStatus::ok)
        passed.push_back(port);
      else
        reproduced.push_back(port + " (" + c.error.value_or(to_string(c.status)) + ")");
    }
    if (reproduced.size() + passed.size() < 2) continue;
    p.params["control"] =
        reproduced.empty()
            ? json{{"reproduced", false}, {"by", "loopback on " + join(passed, " and ") + " passed"}}
            : json{{"reproduced", true}, {"by", "loopback on " + join(reproduced, " and ") + " failed too"}};
  }
}

std::optional<std::string> not_reproduced(const ProbeResult& p) {
  const auto it = p.params.find("control");
  const bool excusable = p.status == ProbeStatus::error || (p.status == ProbeStatus::timeout && p.kind().all_reduce());
  if (!excusable || it == p.params.end() || !it->is_object()) return std::nullopt;
  const auto reproduced = it->find("reproduced");
  const auto by = it->find("by");
  if (reproduced == it->end() || !reproduced->is_boolean() || reproduced->get<bool>()) return std::nullopt;
  return by != it->end() && by->is_string() ? by->get<std::string>() : std::string("its control passed");
}

std::vector<std::string> not_reproduced_in_group(const ProbeResult& p) {
  if (!p.kind().all_reduce() || !not_reproduced(p)) return {};
  std::vector<std::string> hosts;
  for (const json& h : p.params.at("control").value("hosts", json::array()))
    if (h.is_string()) hosts.push_back(h.get<std::string>());
  return hosts;
}

}  // namespace ibgpu
