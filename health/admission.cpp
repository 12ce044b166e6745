#include "health/admission.h"

#include <algorithm>
#include <optional>
#include <set>
#include <span>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "health/decision.h"
#include "probes/topology.h"

namespace ibgpu {

namespace {

struct Component {
  std::string name;  // "gpu3", "mlx5_0:1"
  bool gpu = false;
  HealthState state = HealthState::healthy;
};

// A node's GPUs and rails: a few dozen at most, found by a linear search.
struct NodeParts {
  std::vector<Component> parts;
  std::vector<ReasonCode> findings;  // the codes of its parts' findings (a history record keeps them)
  void add(std::string_view name, bool gpu, HealthState state) {
    auto it = std::find_if(parts.begin(), parts.end(), [&](const Component& c) { return c.name == name; });
    if (it == parts.end())
      parts.push_back(Component{std::string(name), gpu, state});
    else
      it->state = worst(it->state, state);
  }
};

// Host name -> parts, looked up by view: no string built per verdict.
struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using PartsByHost = std::unordered_map<std::string, NodeParts, NameHash, std::equal_to<>>;

NodeParts& parts_of(PartsByHost& parts, std::string_view host) {
  auto it = parts.find(host);
  return it != parts.end() ? it->second : parts.emplace(std::string(host), NodeParts{}).first->second;
}

bool usable(HealthState s) { return s == HealthState::healthy || s == HealthState::degraded; }

// What a node's GPUs (or rails) make of the node's evidence: all healthy
// change nothing; a failed one among usable others is a degraded finding;
// none usable, as bad as they are. An unchecked (unknown) part is missing
// evidence: it is excluded, and the node is not admitted on a guess.
NodeEvidence fold(const std::vector<Component>& parts, bool gpu) {
  bool any = false, some_usable = false;
  HealthState worst_excluded = HealthState::healthy, worst_part = HealthState::healthy;
  NodeEvidence out;
  for (const auto& c : parts) {
    if (c.gpu != gpu) continue;
    any = true;
    if (c.state == HealthState::unknown) out.missing = true;
    if (usable(c.state))
      some_usable = true;
    else if (c.state != HealthState::unknown)
      worst_excluded = worst(worst_excluded, c.state);
    if (c.state != HealthState::unknown) worst_part = worst(worst_part, c.state);
  }
  if (!any || worst_part == HealthState::healthy) return out;
  out.finding = some_usable ? HealthState::degraded : worst_excluded;
  return out;
}

// Each excluded GPU's rail (the ports of its nearest HCA) leaves the usable
// list for the excluded one.
void exclude_rails_of_gpus(Verdict& node, const HostInventory& host) {
  const std::vector<std::string> excluded = node.excluded;
  for (const auto& part : excluded) {
    const auto gpu = gpu_index(part);
    if (!gpu) continue;
    const std::string hca = nearest_hca(host.topology, *gpu);
    if (hca.empty()) continue;
    for (auto it = node.usable.begin(); it != node.usable.end();) {
      if (it->starts_with(hca + ":")) {
        node.excluded.push_back(*it);
        it = node.usable.erase(it);
      } else {
        ++it;
      }
    }
  }
}

// The history step: this check's own record of the node, and what its earlier checks make of it
// (a HISTORY_* reason added, the finding changed).
CheckRecord recall(const NodeHistory& history, Verdict& node, NodeEvidence& evidence, const NodeParts& parts) {
  const DecisionRow& own = decide(evidence.finding, evidence.missing);
  std::vector<ReasonCode> findings = reason_codes(node, Evidence::finding);
  findings.insert(findings.end(), parts.findings.begin(), parts.findings.end());
  // Something missing: the table alone decides, and the check counts as neither bad nor clean.
  CheckRecord now{history.now, history.run, evidence.missing ? HealthState::unknown : own.state, own.action, {}};
  std::set<std::string_view> codes;
  for (ReasonCode c : findings) codes.insert(to_string(c));
  now.codes.assign(codes.begin(), codes.end());
  if (evidence.missing) return now;
  const auto past = history.past.find(node.entity.host());
  const std::span<const CheckRecord> earlier =
      past == history.past.end() ? std::span<const CheckRecord>() : std::span<const CheckRecord>(past->second);
  // A rail's finding of a pair (the localiser blamed one port) can be a transient as the node's can;
  // a node left without a usable GPU or rail is no transient's to admit.
  const bool eligible = transient_codes(findings) && fold(parts.parts, true).finding != HealthState::failed &&
                        fold(parts.parts, false).finding != HealthState::failed;
  HistoryCall call = judge_history(earlier, now, eligible, history.rules);
  if (call.reason) node.reasons.push_back(std::move(*call.reason));
  if (call.finding) evidence.finding = *call.finding;
  return now;
}

}  // namespace

void decide_admission(std::vector<Verdict>& verdicts, const std::vector<HostInventory>& hosts,
                      const NodeExpectations& expect, NodeHistory* history) {
  PartsByHost parts;
  parts.reserve(hosts.size());
  std::unordered_map<std::string_view, const HostInventory*> host_of;
  for (const auto& h : hosts) {
    host_of.emplace(h.name, &h);
    NodeParts& p = parts_of(parts, h.name);
    const AdmittedParts admitted = admitted_parts(h);
    for (const auto& gpu : admitted.gpus) p.add(gpu, true, HealthState::healthy);
    for (const auto& port : admitted.rails) p.add(port, false, HealthState::healthy);
  }
  // Whether the port "mlx5_1:1" of `host` is a rail (an HCA or host not inventoried: yes).
  auto rail = [&](std::string_view host, std::string_view port) {
    const auto it = host_of.find(host);
    if (it == host_of.end()) return true;
    const std::string_view hca = port.substr(0, port.find(':'));
    for (const auto& h : it->second->hcas)
      if (h.name == hca) return h.rail;
    return true;
  };
  std::vector<std::size_t> nodes;  // the node verdicts
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    const Verdict& v = verdicts[i];
    if (v.entity.kind() == EntityKind::node) {
      nodes.push_back(i);
      continue;
    }
    if (v.entity.kind() != EntityKind::gpu && v.entity.kind() != EntityKind::hca_port) continue;
    const bool gpu = v.entity.kind() == EntityKind::gpu;
    if (!gpu && !rail(v.entity.host(), v.entity.part())) continue;
    NodeParts& p = parts_of(parts, v.entity.host());
    p.add(v.entity.part(), gpu, v.state);
    for (ReasonCode c : reason_codes(v, Evidence::finding)) p.findings.push_back(c);
  }
  // Every host of the inventory gets a node verdict.
  {
    std::unordered_set<std::string_view> judged;  // views into the verdicts: before they grow
    for (std::size_t i : nodes) judged.insert(verdicts[i].entity.host());
    std::vector<const std::string*> missing;
    for (const auto& h : hosts)
      if (judged.insert(h.name).second) missing.push_back(&h.name);
    for (const std::string* name : missing) {
      nodes.push_back(verdicts.size());
      verdicts.push_back(Verdict{Entity::node(*name), HealthState::healthy, {}, std::nullopt});
    }
  }
  for (std::size_t i : nodes) {
    Verdict& node = verdicts[i];
    const NodeParts& node_parts = parts_of(parts, node.entity.host());
    const std::vector<Component>& components = node_parts.parts;
    NodeEvidence evidence = evidence_of(node);
    for (bool gpu : {true, false}) {
      const NodeEvidence parts_say = fold(components, gpu);
      evidence.finding = worst(evidence.finding, parts_say.finding);
      evidence.missing = evidence.missing || parts_say.missing;
    }
    std::optional<CheckRecord> record;
    if (history) record = recall(*history, node, evidence, node_parts);
    const DecisionRow& row = decide(evidence.finding, evidence.missing);
    if (record) {
      record->action = row.action;
      history->outcomes.emplace_back(node.entity.host(), std::move(*record));
    }
    node.state = row.state;
    node.action = row.action;
    node.usable.clear();
    node.excluded.clear();
    for (const auto& c : components) {
      if (!usable(c.state))
        node.excluded.push_back(c.name);
      else if (*node.action != Action::drain)
        node.usable.push_back(c.name);
    }
    const auto host = host_of.find(node.entity.host());
    if (expect.exclude_rail_with_gpu && host != host_of.end()) exclude_rails_of_gpus(node, *host->second);
  }
}

RunSummary summarise(const std::vector<Verdict>& verdicts) {
  RunSummary s;
  for (const auto& v : verdicts) {
    if (!v.action) continue;
    switch (*v.action) {
      case Action::admit:
        s.admit.push_back(v.entity.id());
        break;
      case Action::admit_degraded:
        s.admit_degraded.push_back(v.entity.id());
        break;
      case Action::drain:
        s.drain.push_back(v.entity.id());
        break;
    }
  }
  s.exit_code = run_exit_code(verdicts);
  s.state = run_state_for(s.exit_code);
  return s;
}

std::string short_reasons(const Verdict& node, std::size_t max_chars) {
  std::string text = to_string(node.state);
  const std::vector<ReasonCode> codes = reason_codes(node, Evidence::finding);
  const std::vector<ReasonCode> unchecked = reason_codes(node, Evidence::unchecked);
  for (std::size_t i = 0; i < codes.size(); ++i) text += (i == 0 ? ": " : ",") + std::string(to_string(codes[i]));
  for (std::size_t i = 0; i < unchecked.size(); ++i)
    text += (i == 0 ? "; not checked: " : ",") + std::string(to_string(unchecked[i]));
  for (std::size_t i = 0; i < node.excluded.size(); ++i) text += (i == 0 ? " (excluded " : ",") + node.excluded[i];
  if (!node.excluded.empty()) text += ")";
  if (text.size() > max_chars && max_chars > 3) text = text.substr(0, max_chars - 3) + "...";
  return text;
}

}  // namespace ibgpu
