#include "core/verdict.h"

#include <algorithm>

namespace ibgpu {

const char* to_string(HealthState state) {
  switch (state) {
    case HealthState::healthy:
      return "healthy";
    case HealthState::degraded:
      return "degraded";
    case HealthState::unknown:
      return "unknown";
    case HealthState::failed:
      return "failed";
  }
  return "unknown";
}

const char* to_string(Action action) {
  switch (action) {
    case Action::admit:
      return "admit";
    case Action::admit_degraded:
      return "admit_degraded";
    case Action::drain:
      return "drain";
  }
  return "drain";
}

std::optional<HealthState> health_state_from_string(const std::string& text) {
  for (auto s : {HealthState::healthy, HealthState::degraded, HealthState::unknown, HealthState::failed})
    if (text == to_string(s)) return s;
  return std::nullopt;
}

std::optional<Action> action_from_string(const std::string& text) {
  for (auto a : {Action::admit, Action::admit_degraded, Action::drain})
    if (text == to_string(a)) return a;
  return std::nullopt;
}

const char* to_string(Evidence evidence) {
  switch (evidence) {
    case Evidence::finding:
      return "finding";
    case Evidence::unchecked:
      return "unchecked";
    case Evidence::not_judged:
      return "not_judged";
  }
  return "finding";
}

std::optional<Evidence> evidence_from_string(const std::string& text) {
  for (auto e : {Evidence::finding, Evidence::unchecked, Evidence::not_judged})
    if (text == to_string(e)) return e;
  return std::nullopt;
}

const char* to_string(EntityKind kind) {
  switch (kind) {
    case EntityKind::gpu:
      return "gpu";
    case EntityKind::hca_port:
      return "hca_port";
    case EntityKind::link:
      return "link";
    case EntityKind::node:
      return "node";
    case EntityKind::leaf_switch:
      return "switch";
    case EntityKind::uplink:
      return "uplink";
    case EntityKind::path:
      return "path";
  }
  return "unknown";
}

std::optional<EntityKind> entity_kind_from_string(std::string_view text) {
  for (auto k : {EntityKind::gpu, EntityKind::hca_port, EntityKind::link, EntityKind::node, EntityKind::leaf_switch,
                 EntityKind::uplink, EntityKind::path})
    if (text == to_string(k)) return k;
  return std::nullopt;
}

bool is_fabric(EntityKind kind) {
  return kind == EntityKind::leaf_switch || kind == EntityKind::uplink || kind == EntityKind::path;
}

std::string entity_text(const Entity& e) { return std::string(to_string(e.kind)) + " " + e.id; }

namespace {
constexpr std::string_view kLinkSeparator = "<->";
}

std::string link_id(std::string_view a, std::string_view b) {
  std::string id;
  id.reserve(a.size() + kLinkSeparator.size() + b.size());
  return id.append(a).append(kLinkSeparator).append(b);
}

std::optional<std::pair<std::string_view, std::string_view>> link_ends(std::string_view id) {
  const auto at = id.find(kLinkSeparator);
  if (at == std::string_view::npos) return std::nullopt;
  return std::pair{id.substr(0, at), id.substr(at + kLinkSeparator.size())};
}

std::vector<ReasonCode> reason_codes(const Verdict& v, Evidence evidence) {
  std::vector<ReasonCode> codes;
  for (const Reason& r : v.reasons)
    if (r.evidence == evidence && std::find(codes.begin(), codes.end(), r.code) == codes.end()) codes.push_back(r.code);
  return codes;
}

HealthState worst(HealthState a, HealthState b) { return std::max(a, b); }

int exit_code_for(HealthState state) {
  switch (state) {
    case HealthState::healthy:
      return 0;
    case HealthState::degraded:
      return 1;
    case HealthState::failed:
      return 2;
    case HealthState::unknown:
      return 3;
  }
  return 3;
}

}  // namespace ibgpu
