#pragma once
// What the judge decides: a state per entity with the reasons, an action per
// node, and the exit code that follows (monitoring-plugin convention).
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
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

// What a verdict is about, by its parts. The named constructors build it; its text, id(), is
// what reports print and the JSON carries. Code reads the parts and never parses the text:
//   node       host                                 "node1"
//   gpu        host, part: the GPU                  "node1/gpu3"
//   hca_port   host, part: the port                 "node1/mlx5_0:1"
//   link       host and peer: its two ends          "node1<->node2"
//              an all-reduce's group has neither    "node1<->..<->node4 (4 hosts)"
//   leaf_switch, uplink
//              host: the leaf, part: its rail       "leaf1", "leaf1/mlx5_0"
//   path       host and peer: its two groups        "a[1-2]<->b[1-2]"
class Entity {
 public:
  Entity() = default;  // a node with no name, for a verdict still to be filled in
  static Entity node(std::string_view host);
  static Entity gpu(std::string_view host, std::string_view gpu);
  static Entity port(std::string_view host, std::string_view port);
  static Entity link(std::string_view a, std::string_view b);
  static Entity hosts_group(const std::vector<std::string>& hosts);                   // an all-reduce across 3 or more
  static Entity leaf(EntityKind kind, std::string_view leaf, std::string_view rail);  // switch or uplink
  static Entity path(std::string_view a, std::string_view b);
  // A report's entity read back (the JSON reader): nullopt where the text does not fit the kind.
  static std::optional<Entity> from_text(EntityKind kind, std::string_view id);

  EntityKind kind() const { return kind_; }
  const std::string& id() const { return id_; }
  std::string_view host() const { return std::string_view(id_).substr(0, host_end_); }
  std::string_view part() const { return part_at_ ? std::string_view(id_).substr(part_at_) : std::string_view(); }
  std::string_view peer() const { return peer_at_ ? std::string_view(id_).substr(peer_at_) : std::string_view(); }

  bool operator==(const Entity& o) const { return kind_ == o.kind_ && id_ == o.id_; }
  bool operator<(const Entity& o) const { return kind_ != o.kind_ ? kind_ < o.kind_ : id_ < o.id_; }

 private:
  Entity(EntityKind kind, std::string id, std::size_t host_end, std::size_t part_at, std::size_t peer_at);
  static Entity joined(EntityKind kind, std::string_view a, std::string_view separator, std::string_view b);

  EntityKind kind_ = EntityKind::node;
  std::string id_;
  // Where the parts lie in the text: host [0, host_end_), part and peer from their start to the end
  // (0: none).
  std::uint32_t host_end_ = 0, part_at_ = 0, peer_at_ = 0;
};
std::string entity_text(const Entity& e);  // "gpu node1/gpu3"

// How sure a finding from measurements is (health/confidence.h): the chance `p` that the run's
// noise alone would read a figure this far out, and its word. Findings that are facts (a port
// down, a device error, wrong data) carry none.
enum class ConfidenceLevel : std::uint8_t { weak, likely, certain };
const char* to_string(ConfidenceLevel level);
std::optional<ConfidenceLevel> confidence_level_from_string(std::string_view text);
// Where the noise came from: the run's own measurements of that kind, the profile's stated
// default ([confidence].default_noise, too few measurements to tell), or several findings combined.
enum class ConfidenceMethod : std::uint8_t { run_noise, profile_noise, combined };
const char* to_string(ConfidenceMethod method);
std::optional<ConfidenceMethod> confidence_method_from_string(std::string_view text);

struct Confidence {
  ConfidenceLevel level = ConfidenceLevel::weak;
  ConfidenceMethod method = ConfidenceMethod::run_noise;
  double p = 1;       // the chance of a reading this far out from noise alone, among `count`
  double sigmas = 0;  // how far past the limit, in the noise's sigmas (combined: 0)
  double noise = 0;   // the noise: one measurement's sigma in log space (combined: 0)
  int count = 0;      // measurements of the kind (the family the chance is over); combined: findings
};

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
  // The result it was read from, where one was (cite): its probe, its message size and the ports
  // at its ends (a pair's: the verdict's end first, a link's first host's; then the peer's), so
  // that a reason joins with the result, other runs' and the Prometheus series (port, peer_port).
  std::string probe = {};
  std::optional<std::uint64_t> size_B = {};
  std::string port = {}, peer_port = {};
  std::optional<Confidence> confidence = {};  // findings from measurements only
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

// What an operator does about one cable (check --cabling: health/work_orders.h), one order per
// cable however many verdicts it serves.
struct WorkOrder {
  std::string cable;                          // "h4 mlx5_0:1 <-> leaf2 port 1"; "" where the cabling lists none
  std::string port;                           // the HCA port ("h4 mlx5_0:1") or uplink ("leaf2") it is for
  HealthState state = HealthState::degraded;  // the worst of the verdicts it serves
  std::vector<Entity> entities;               // the verdicts it serves, in the order met
  std::string shortfall;                      // the worst verdict's first reason, in its words
  std::map<std::string, double> counters;     // error counters that moved on the HCA end: name -> increase
  std::vector<std::string> unread;            // what could not be read, each in words
  std::string next;                           // the next act
  bool operator==(const WorkOrder&) const = default;
};

// The codes of a verdict's reasons of one kind of evidence, each once, in order: the findings
// of a drain reason, then what could not be checked (what ibgpu did not judge is no drain reason).
std::vector<ReasonCode> reason_codes(const Verdict& v, Evidence evidence);

// Whether a verdict (none: false) holds a reason with this code, of any evidence.
bool has_reason(const Verdict* v, ReasonCode code);

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
