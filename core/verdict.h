#pragma once
// What the judge decides: a state per entity with the reasons, an action per
// node, and the exit code that follows (monitoring-plugin convention).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/reason_codes.h"

namespace ibgpu {

// Ordered by severity for aggregation: an unknown check outranks a degraded
// one (an incomplete run must not look better than it is), failed outranks all.
enum class HealthState { healthy = 0, degraded = 1, unknown = 2, failed = 3 };
enum class Action { admit, admit_degraded, drain };

const char* to_string(HealthState state);
const char* to_string(Action action);
std::optional<HealthState> health_state_from_string(const std::string& text);
std::optional<Action> action_from_string(const std::string& text);
HealthState worst(HealthState a, HealthState b);

// The exit code of a run's decision (health/decision.h): 0 every node admitted healthy,
// 1 some admitted degraded (or the fabric has a finding), 2 some node not admitted for a
// finding, 3 some node not decided for missing evidence; 64 is a usage error.
inline constexpr int kExitUsage = 64;
int exit_code_for(HealthState state);

// What a reason is evidence of (docs/verdicts.md):
// - finding: about the hardware (below a floor, a confirmed outlier, a device error);
// - unchecked: the entity should have been checked and could not be, because of the node
//   (no driver where the profile expects GPUs, a device missing, a rank lost): fail closed;
// - not_judged: ibgpu could not or chose not to judge (its own time cap or budget dropped a
//   step, no floor and too few peers to compare): recorded, never changes a state.
enum class Evidence { finding, unchecked, not_judged };
const char* to_string(Evidence evidence);
std::optional<Evidence> evidence_from_string(const std::string& text);

// What a verdict is about (docs/reason-codes.md, "Reading a verdict"): a GPU, an RDMA port (a
// rail), the link between two hosts (or the pseudo-link of an all-reduce across several), a node;
// and from localisation, the fabric: a leaf switch, its uplinks, a path between two groups.
enum class EntityKind : std::uint8_t { gpu, hca_port, link, node, leaf_switch, uplink, path };
const char* to_string(EntityKind kind);  // as reports write it: "gpu", "hca_port", ..., "switch"
std::optional<EntityKind> entity_kind_from_string(std::string_view text);
// The fabric's kinds: given only when localisation blames them (health/fabric.h).
bool is_fabric(EntityKind kind);

struct Entity {
  EntityKind kind = EntityKind::node;
  std::string id;  // "node1", "node1/gpu3", "node1/mlx5_0:1", "node1<->node2", "leaf1", "a[1-2]<->b[1-2]"
  bool operator==(const Entity&) const = default;
};
std::string entity_text(const Entity& e);  // "gpu node1/gpu3"

// A link's id (and a fabric path's) names its two ends, "a<->b": built and read back only here.
std::string link_id(std::string_view a, std::string_view b);
// The two ends of such an id (views into it); nullopt for an id that has no "<->".
std::optional<std::pair<std::string_view, std::string_view>> link_ends(std::string_view id);
// Not for a temporary string: the views would dangle.
template <typename S, typename = std::enable_if_t<std::is_same_v<S, std::string>>>
std::optional<std::pair<std::string_view, std::string_view>> link_ends(S&& id) = delete;

struct Reason {
  ReasonCode code;
  std::string message;
  std::string metric;
  std::optional<double> value;
  std::optional<double> threshold;
  Evidence evidence = Evidence::finding;
  // The state this reason gives its entity (set as it is added to a verdict): a node's
  // decision reads its worst finding apart from what is missing.
  HealthState state = HealthState::healthy;
};

struct Verdict {
  Entity entity;
  HealthState state = HealthState::unknown;
  std::vector<Reason> reasons;
  std::optional<Action> action;  // nodes only
  // Nodes only: the GPUs ("gpu3") and rails ("mlx5_0:1") the pool may use,
  // and those it must not (failed or unchecked).
  std::vector<std::string> usable = {};
  std::vector<std::string> excluded = {};
};

// The codes of a verdict's reasons of one kind of evidence, each once, in order: the findings
// of a drain reason, then what could not be checked (what ibgpu did not judge is no drain reason).
std::vector<ReasonCode> reason_codes(const Verdict& v, Evidence evidence);

// What an admission controller applies to one Kubernetes node: label values
// are label-legal (see scheduler/kubernetes.h), annotations carry the full lists.
struct KubernetesTaint {
  std::string key, value, effect;  // effect: NoSchedule | PreferNoSchedule
  bool operator==(const KubernetesTaint&) const = default;
};
struct KubernetesNode {
  std::map<std::string, std::string> labels, annotations;
  std::vector<KubernetesTaint> taints;
  bool operator==(const KubernetesNode&) const = default;
};

struct RunSummary {
  HealthState state = HealthState::unknown;
  std::vector<std::string> admit, admit_degraded, drain;
  int exit_code = 3;
  std::map<std::string, KubernetesNode> kubernetes;  // by node (host) name; nodes judged only
};

}  // namespace ibgpu
