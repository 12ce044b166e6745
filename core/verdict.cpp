#include "core/verdict.h"

#include <algorithm>
#include <utility>

#include "core/text.h"

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

const char* to_string(ConfidenceLevel level) {
  switch (level) {
    case ConfidenceLevel::weak:
      return "weak";
    case ConfidenceLevel::likely:
      return "likely";
    case ConfidenceLevel::certain:
      return "certain";
  }
  return "weak";
}

std::optional<ConfidenceLevel> confidence_level_from_string(std::string_view text) {
  for (auto l : {ConfidenceLevel::weak, ConfidenceLevel::likely, ConfidenceLevel::certain})
    if (text == to_string(l)) return l;
  return std::nullopt;
}

const char* to_string(ConfidenceMethod method) {
  switch (method) {
    case ConfidenceMethod::run_noise:
      return "run_noise";
    case ConfidenceMethod::profile_noise:
      return "profile_noise";
    case ConfidenceMethod::combined:
      return "combined";
  }
  return "run_noise";
}

std::optional<ConfidenceMethod> confidence_method_from_string(std::string_view text) {
  for (auto m : {ConfidenceMethod::run_noise, ConfidenceMethod::profile_noise, ConfidenceMethod::combined})
    if (text == to_string(m)) return m;
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

std::string entity_text(const Entity& e) { return std::string(to_string(e.kind())) + " " + e.id(); }

namespace {
constexpr std::string_view kLinkSeparator = "<->";
constexpr std::string_view kGroupSeparator = "<->..<->";
}  // namespace

Entity::Entity(EntityKind kind, std::string id, std::size_t host_end, std::size_t part_at, std::size_t peer_at)
    : kind_(kind),
      id_(std::move(id)),
      host_end_(static_cast<std::uint32_t>(host_end)),
      part_at_(static_cast<std::uint32_t>(part_at)),
      peer_at_(static_cast<std::uint32_t>(peer_at)) {}

Entity Entity::joined(EntityKind kind, std::string_view a, std::string_view separator, std::string_view b) {
  std::string id;
  id.reserve(a.size() + separator.size() + b.size());
  id.append(a).append(separator).append(b);
  const bool link = separator == kLinkSeparator;
  const std::size_t second = a.size() + separator.size();
  return Entity(kind, std::move(id), a.size(), link ? 0 : second, link ? second : 0);
}

Entity Entity::node(std::string_view host) { return Entity(EntityKind::node, std::string(host), host.size(), 0, 0); }
Entity Entity::gpu(std::string_view host, std::string_view gpu) { return joined(EntityKind::gpu, host, "/", gpu); }
Entity Entity::port(std::string_view host, std::string_view port) {
  return joined(EntityKind::hca_port, host, "/", port);
}
Entity Entity::link(std::string_view a, std::string_view b) { return joined(EntityKind::link, a, kLinkSeparator, b); }
Entity Entity::path(std::string_view a, std::string_view b) { return joined(EntityKind::path, a, kLinkSeparator, b); }

Entity Entity::hosts_group(const std::vector<std::string>& hosts) {
  if (hosts.size() == 2) return link(hosts[0], hosts[1]);
  std::string id;
  if (!hosts.empty())
    id.append(hosts.front())
        .append(kGroupSeparator)
        .append(hosts.back())
        .append(" (")
        .append(count_text(hosts.size(), "host"))
        .append(")");
  return Entity(EntityKind::link, std::move(id), 0, 0, 0);
}

Entity Entity::leaf(EntityKind kind, std::string_view leaf, std::string_view rail) {
  if (rail.empty()) return Entity(kind, std::string(leaf), leaf.size(), 0, 0);
  return joined(kind, leaf, "/", rail);
}

std::optional<Entity> Entity::from_text(EntityKind kind, std::string_view id) {
  switch (kind) {
    case EntityKind::node:
      return node(id);
    case EntityKind::gpu:
    case EntityKind::hca_port:
    case EntityKind::leaf_switch:
    case EntityKind::uplink: {
      const auto slash = id.find('/');
      if (slash == std::string_view::npos) return is_fabric(kind) ? std::optional(leaf(kind, id, {})) : std::nullopt;
      return joined(kind, id.substr(0, slash), "/", id.substr(slash + 1));
    }
    case EntityKind::link:
    case EntityKind::path: {
      if (kind == EntityKind::link && id.find(kGroupSeparator) != std::string_view::npos)
        return Entity(kind, std::string(id), 0, 0, 0);
      const auto at = id.find(kLinkSeparator);
      if (at == std::string_view::npos) return std::nullopt;
      return joined(kind, id.substr(0, at), kLinkSeparator, id.substr(at + kLinkSeparator.size()));
    }
  }
  return std::nullopt;
}

std::vector<ReasonCode> reason_codes(const Verdict& v, Evidence evidence) {
  std::vector<ReasonCode> codes;
  for (const Reason& r : v.reasons)
    if (r.evidence == evidence && std::find(codes.begin(), codes.end(), r.code) == codes.end()) codes.push_back(r.code);
  return codes;
}

bool has_reason(const Verdict* v, ReasonCode code) {
  return v && std::any_of(v->reasons.begin(), v->reasons.end(), [&](const Reason& r) { return r.code == code; });
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
