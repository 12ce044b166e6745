#include "health/nvlink_domains.h"

#include <map>
#include <string>

#include "core/probe_kind.h"
#include "core/reason_codes.h"
#include "core/text.h"

namespace ibgpu {

namespace {

// "CLUSTER-UUID/clique N", or "" for a GPU that joined none.
std::string domain_of(const ProbeResult& p) {
  const auto& params = p.params;
  if (!params.contains("fabric_cluster_uuid") || !params["fabric_cluster_uuid"].is_string() ||
      !params.contains("fabric_clique") || !params["fabric_clique"].is_number_integer())
    return {};
  return params["fabric_cluster_uuid"].get<std::string>() + "/clique " +
         std::to_string(params["fabric_clique"].get<long long>());
}

// Per host, its GPUs by domain: domain -> GPUs (in result order).
using HostDomains = std::map<std::string, std::vector<std::string>>;

// The domain most of `domains` hold (by count), or "" when two share the most.
std::string majority(const std::map<std::string, int>& counts) {
  std::string best;
  int most = 0;
  bool tie = false;
  for (const auto& [domain, n] : counts) {
    if (n > most) {
      best = domain;
      most = n;
      tie = false;
    } else if (n == most) {
      tie = true;
    }
  }
  return tie ? std::string() : best;
}

std::string gpu_lists(const HostDomains& domains) {
  std::string out;
  for (const auto& [domain, gpus] : domains) out += (out.empty() ? "" : "; ") + join(gpus, ",") + " in " + domain;
  return out;
}

}  // namespace

void judge_nvlink_domains(VerdictBook& book, const std::vector<ProbeResult>& probes, const FabricTopology* topology) {
  std::map<std::string, HostDomains> hosts;  // host -> its GPUs' domains
  for (const auto& p : probes) {
    if (p.id != kGpuHealthProbe || p.status != ProbeStatus::ok || p.scope.hosts.size() != 1 ||
        p.scope.devices.size() != 1)
      continue;
    const std::string domain = domain_of(p);
    if (!domain.empty()) hosts[p.scope.hosts[0]][domain].push_back(p.scope.devices[0]);
  }
  auto add = [&](const std::string& host, std::string message, double domains) {
    Reason r{ReasonCode::NVLINK_DOMAIN_SPLIT, std::move(message), "nvlink_domains", domains, 1.0};
    book.add(Entity::node(host), HealthState::degraded, std::move(r));
  };
  // A node's own domain: the one most of its GPUs joined (a split node's, for its block's count).
  std::map<std::string, std::string> node_domain;
  for (const auto& [host, domains] : hosts) {
    if (domains.size() > 1)
      add(host,
          "its GPUs joined " + count_text(domains.size(), "NVLink domain") + " (" + gpu_lists(domains) +
              "): rack jobs cannot span them",
          static_cast<double>(domains.size()));
    std::map<std::string, int> counts;
    for (const auto& [domain, gpus] : domains) counts[domain] = static_cast<int>(gpus.size());
    node_domain[host] = majority(counts);
  }
  if (!topology || topology->form != TopologyForm::block) return;
  for (const auto& block : topology->switches) {
    std::map<std::string, int> counts;
    std::vector<std::string> judged;
    for (const auto& host : block.nodes) {
      const auto it = node_domain.find(host);
      if (it == node_domain.end() || it->second.empty()) continue;  // no domain, or split evenly: said above
      ++counts[it->second];
      judged.push_back(host);
    }
    if (counts.size() < 2) continue;
    const std::string common = majority(counts);
    for (const auto& host : judged) {
      const std::string& mine = node_domain[host];
      if (mine == common) continue;
      const std::string message =
          common.empty() ? "block " + block.name + " (" + topology->origin + ") is split evenly between " +
                               count_text(counts.size(), "NVLink domain") + "; this node's is " + mine
                         : "in NVLink domain " + mine + ", where " + std::to_string(counts[common]) + " of the " +
                               count_text(judged.size(), "node") + " of its block " + block.name + " joined " + common;
      add(host, message, static_cast<double>(counts.size()));
    }
  }
}

}  // namespace ibgpu
