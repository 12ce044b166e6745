#include "health/nvlink_domains.h"

#include <map>
#include <optional>
#include <set>
#include <string>

#include "core/probe_kind.h"
#include "core/reason_codes.h"
#include "core/text.h"

namespace ibgpu {

namespace {

// The domain a GPU's record says it joined; none for a GPU that joined none.
std::optional<NvlinkDomain> domain_of(const ProbeResult& p) {
  const auto& params = p.params;
  if (!params.contains("fabric_cluster_uuid") || !params["fabric_cluster_uuid"].is_string() ||
      !params.contains("fabric_clique") || !params["fabric_clique"].is_number_integer())
    return std::nullopt;
  return NvlinkDomain{params["fabric_cluster_uuid"].get<std::string>(), params["fabric_clique"].get<long long>()};
}

// Per host, its GPUs by domain: domain -> GPUs (in result order).
using HostDomains = std::map<NvlinkDomain, std::vector<std::string>>;

std::map<std::string, HostDomains> host_domains(const std::vector<ProbeResult>& probes) {
  std::map<std::string, HostDomains> hosts;
  for (const auto& p : probes) {
    if (p.id != kGpuHealthProbe || p.status != ProbeStatus::ok || p.scope.hosts.size() != 1 ||
        p.scope.devices.size() != 1)
      continue;
    if (const auto domain = domain_of(p)) hosts[p.scope.hosts[0]][*domain].push_back(p.scope.devices[0]);
  }
  return hosts;
}

// The key most of `counts` hold, or none when two share the most.
template <class Key>
std::optional<Key> majority(const std::map<Key, int>& counts) {
  std::optional<Key> best;
  int most = 0;
  bool tie = false;
  for (const auto& [key, n] : counts) {
    if (n > most) {
      best = key;
      most = n;
      tie = false;
    } else if (n == most) {
      tie = true;
    }
  }
  return tie ? std::nullopt : best;
}

// A node's own domain: the one most of its GPUs joined.
std::optional<NvlinkDomain> node_domain(const HostDomains& domains) {
  std::map<NvlinkDomain, int> counts;
  for (const auto& [domain, gpus] : domains) counts[domain] = static_cast<int>(gpus.size());
  return majority(counts);
}

std::string gpu_lists(const HostDomains& domains) {
  std::string out;
  for (const auto& [domain, gpus] : domains)
    out += (out.empty() ? "" : "; ") + join(gpus, ",") + " in " + domain.text();
  return out;
}

}  // namespace

std::string NvlinkDomain::text() const { return cluster_uuid + "/clique " + std::to_string(clique); }

std::map<std::string, NvlinkDomain> node_nvlink_domains(const std::vector<ProbeResult>& probes) {
  std::map<std::string, NvlinkDomain> out;
  for (const auto& [host, domains] : host_domains(probes))
    if (const auto domain = node_domain(domains)) out[host] = *domain;
  return out;
}

std::map<std::string, NvlinkDomain> hosts_wholly_in_a_domain(const std::vector<ProbeResult>& probes) {
  std::map<std::string, std::optional<NvlinkDomain>> seen;  // a host's one domain so far; none: disqualified
  for (const auto& p : probes) {
    if (p.id != kGpuHealthProbe || p.scope.hosts.size() != 1 || p.scope.devices.size() != 1) continue;
    const std::optional<NvlinkDomain> domain = p.status == ProbeStatus::ok ? domain_of(p) : std::nullopt;
    const auto [at, first] = seen.try_emplace(p.scope.hosts[0], domain);
    if (!first && at->second != domain) at->second.reset();
  }
  std::map<std::string, NvlinkDomain> out;
  for (const auto& [host, domain] : seen)
    if (domain) out.emplace(host, *domain);
  return out;
}

std::optional<NvlinkDomain> allreduce_nvlink_domain(const ProbeResult& p,
                                                    const std::map<std::string, NvlinkDomain>& hosts) {
  if (p.kind().transport != Transport::nccl || p.scope.hosts.size() < 2) return std::nullopt;
  if (const auto it = p.params.find("nccl_mnnvl_enable"); it != p.params.end() && *it == "0") return std::nullopt;
  std::optional<NvlinkDomain> shared;
  for (const auto& host : p.scope.hosts) {
    const auto it = hosts.find(host);
    if (it == hosts.end() || (shared && *shared != it->second)) return std::nullopt;
    shared = it->second;
  }
  return shared;
}

void judge_nvlink_domains(VerdictBook& book, const std::vector<ProbeResult>& probes, const FabricTopology* topology) {
  const std::map<std::string, HostDomains> hosts = host_domains(probes);
  std::set<std::string> checked;  // hosts with a GPU record, whether or not it joined a domain
  for (const auto& p : probes)
    if (p.id == kGpuHealthProbe && p.scope.hosts.size() == 1) checked.insert(p.scope.hosts[0]);
  auto add = [&](const std::string& host, std::string message, double domains) {
    Reason r{ReasonCode::NVLINK_DOMAIN_SPLIT, std::move(message), "nvlink_domains", domains, 1.0};
    book.add(Entity::node(host), HealthState::degraded, std::move(r));
  };
  std::map<std::string, NvlinkDomain> nodes;  // a node's own domain, for its block's count
  for (const auto& [host, domains] : hosts) {
    if (domains.size() > 1)
      add(host,
          "its GPUs joined " + count_text(domains.size(), "NVLink domain") + " (" + gpu_lists(domains) +
              "): rack jobs cannot span them",
          static_cast<double>(domains.size()));
    if (const auto domain = node_domain(domains)) nodes[host] = *domain;  // none when split evenly: said above
  }
  if (!topology || topology->form != TopologyForm::block) return;
  for (const auto& block : topology->switches) {
    std::map<NvlinkDomain, int> counts;
    std::vector<std::string> judged;
    std::size_t in_run = 0;
    for (const auto& host : block.nodes) {
      in_run += checked.count(host);
      const auto it = nodes.find(host);
      if (it == nodes.end()) continue;
      ++counts[it->second];
      judged.push_back(host);
    }
    const std::optional<NvlinkDomain> common = majority(counts);
    if (common && static_cast<std::size_t>(counts[*common]) < in_run) {
      const auto held = static_cast<std::size_t>(counts[*common]);
      Reason r{ReasonCode::NVLINK_DOMAIN_SHORT,
               "NVLink domain " + common->text() + " holds " + std::to_string(held) + " of the " +
                   count_text(in_run, "node") + " of block " + block.name + " checked in this run (" +
                   topology->origin + ")",
               "nvlink_domains", static_cast<double>(held), static_cast<double>(in_run)};
      book.add(Entity::leaf(EntityKind::leaf_switch, block.name, ""), HealthState::degraded, std::move(r));
    }
    if (counts.size() < 2) continue;
    for (const auto& host : judged) {
      const NvlinkDomain& mine = nodes.at(host);
      if (mine == common) continue;
      const std::string message =
          !common ? "block " + block.name + " (" + topology->origin + ") is split evenly between " +
                        count_text(counts.size(), "NVLink domain") + "; this node's is " + mine.text()
                  : "in NVLink domain " + mine.text() + ", where " + std::to_string(counts[*common]) + " of the " +
                        count_text(judged.size(), "node") + " of its block " + block.name + " joined " + common->text();
      add(host, message, static_cast<double>(counts.size()));
    }
  }
}

}  // namespace ibgpu
