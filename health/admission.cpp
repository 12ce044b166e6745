#include "health/admission.h"

#include <algorithm>
#include <unordered_map>

#include "health/kubernetes.h"

namespace ibgpu {

namespace {

struct Component {
  std::string name;  // "gpu3", "mlx5_0:1"
  bool gpu = false;
  HealthState state = HealthState::healthy;
};

struct NodeParts {
  std::vector<Component> parts;
  std::unordered_map<std::string, std::size_t> index;
  void add(const std::string& name, bool gpu, HealthState state) {
    auto [it, fresh] = index.try_emplace(name, parts.size());
    if (fresh) parts.push_back(Component{name, gpu, state});
    else parts[it->second].state = worst(parts[it->second].state, state);
  }
};

bool usable(HealthState s) { return s == HealthState::healthy || s == HealthState::degraded; }

// What a node's GPUs (or rails) make of the node: all healthy change
// nothing; a failed one among usable others leaves it degraded; none usable
// leaves it as bad as they are. An unchecked (unknown) part keeps the node
// unknown: it is excluded, and the node is not admitted on a guess.
HealthState fold(const std::vector<Component>& parts, bool gpu) {
  bool any = false, some_usable = false, all_healthy = true, some_unknown = false;
  HealthState worst_excluded = HealthState::healthy;
  for (const auto& c : parts) {
    if (c.gpu != gpu) continue;
    any = true;
    if (usable(c.state)) some_usable = true;
    else worst_excluded = worst(worst_excluded, c.state);
    if (c.state != HealthState::healthy) all_healthy = false;
    if (c.state == HealthState::unknown) some_unknown = true;
  }
  if (!any || all_healthy) return HealthState::healthy;
  const HealthState state = some_usable ? HealthState::degraded : worst_excluded;
  return some_unknown ? worst(state, HealthState::unknown) : state;
}

}  // namespace

void decide_admission(std::vector<Verdict>& verdicts, const std::vector<HostInventory>& hosts) {
  std::unordered_map<std::string, NodeParts> parts;
  for (const auto& h : hosts) {
    NodeParts& p = parts[h.name];
    for (const auto& g : h.gpus) p.add("gpu" + std::to_string(g.index), true, HealthState::healthy);
    for (const auto& hca : h.hcas)
      for (const auto& port : hca.ports) p.add(hca.name + ":" + std::to_string(port.port), false, HealthState::healthy);
  }
  std::unordered_map<std::string, std::size_t> node_index;
  for (std::size_t i = 0; i < verdicts.size(); ++i) {
    const Verdict& v = verdicts[i];
    if (v.entity.kind == "node") {
      node_index.emplace(v.entity.id, i);
      continue;
    }
    if (v.entity.kind != "gpu" && v.entity.kind != "hca_port") continue;
    const auto slash = v.entity.id.find('/');
    if (slash == std::string::npos) continue;
    parts[v.entity.id.substr(0, slash)].add(v.entity.id.substr(slash + 1), v.entity.kind == "gpu", v.state);
  }
  for (const auto& h : hosts)
    if (!node_index.count(h.name)) {
      node_index.emplace(h.name, verdicts.size());
      verdicts.push_back(Verdict{{"node", h.name}, HealthState::healthy, {}, std::nullopt});
    }
  for (auto& [host, i] : node_index) {
    Verdict& node = verdicts[i];
    const std::vector<Component>& components = parts[host].parts;
    node.state = worst(node.state, worst(fold(components, true), fold(components, false)));
    node.action = node.state == HealthState::healthy    ? Action::admit
                  : node.state == HealthState::degraded ? Action::admit_degraded
                                                        : Action::drain;
    node.usable.clear();
    node.excluded.clear();
    for (const auto& c : components) {
      if (!usable(c.state)) node.excluded.push_back(c.name);
      else if (*node.action != Action::drain) node.usable.push_back(c.name);
    }
  }
}

RunSummary summarise(const std::vector<Verdict>& verdicts) {
  RunSummary s;
  s.state = verdicts.empty() ? HealthState::unknown : HealthState::healthy;
  for (const auto& v : verdicts) {
    s.state = worst(s.state, v.state);
    if (!v.action) continue;
    switch (*v.action) {
      case Action::admit: s.admit.push_back(v.entity.id); break;
      case Action::admit_degraded: s.admit_degraded.push_back(v.entity.id); break;
      case Action::drain: s.drain.push_back(v.entity.id); break;
    }
  }
  s.exit_code = exit_code_for(s.state);
  s.kubernetes = kubernetes_map(verdicts);
  return s;
}

std::string short_reasons(const Verdict& node, std::size_t max_chars) {
  std::string text = to_string(node.state);
  std::vector<std::string> codes;
  for (const auto& r : node.reasons)
    if (std::find(codes.begin(), codes.end(), r.code) == codes.end()) codes.push_back(r.code);
  for (std::size_t i = 0; i < codes.size(); ++i) text += (i == 0 ? ": " : ",") + codes[i];
  for (std::size_t i = 0; i < node.excluded.size(); ++i) text += (i == 0 ? " (excluded " : ",") + node.excluded[i];
  if (!node.excluded.empty()) text += ")";
  if (text.size() > max_chars && max_chars > 3) text = text.substr(0, max_chars - 3) + "...";
  return text;
}

}  // namespace ibgpu
