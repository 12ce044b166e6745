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

}  // namespace

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
  if (p.status != ProbeStatus::error || it == p.params.end() || !it->is_object()) return std::nullopt;
  const auto reproduced = it->find("reproduced");
  const auto by = it->find("by");
  if (reproduced == it->end() || !reproduced->is_boolean() || reproduced->get<bool>()) return std::nullopt;
  return by != it->end() && by->is_string() ? by->get<std::string>() : std::string("its control passed");
}

}  // namespace ibgpu
