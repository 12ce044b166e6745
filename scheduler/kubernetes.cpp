#include "scheduler/kubernetes.h"

#include <cctype>

#include "core/text.h"
#include "health/admission.h"

namespace ibgpu {

namespace {

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool label_char(char c) { return alnum(c) || c == '.' || c == '_' || c == '-'; }

std::string trim_to_alnum(std::string s) {
  std::size_t first = 0;
  while (first < s.size() && !alnum(s[first])) ++first;
  std::size_t last = s.size();
  while (last > first && !alnum(s[last - 1])) --last;
  return s.substr(first, last - first);
}

// "gpu3" -> "3"; anything else is a rail.
bool gpu_index(const std::string& part, std::string& index) {
  if (part.size() <= 3 || part.compare(0, 3, "gpu") != 0) return false;
  for (std::size_t i = 3; i < part.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(part[i]))) return false;
  index = part.substr(3);
  return true;
}

// A list as a label value: the sanitised items joined by '.', "none" when
// empty, and a count when it would not fit (the annotation keeps the list).
std::string list_label(const std::vector<std::string>& usable, std::size_t total) {
  if (usable.empty()) return "none";
  std::vector<std::string> items;
  for (const auto& item : usable) items.push_back(kubernetes_label_value(item));
  const std::string list = join(items, ".");
  if (list.size() <= kLabelValueMax) return list;
  return std::to_string(usable.size()) + "-of-" + std::to_string(total);
}

KubernetesNode node_entry(const Verdict& node, const NvlinkDomain* domain) {
  std::vector<std::string> gpus, rails;
  std::size_t gpus_total = 0, rails_total = 0;
  for (const auto* list : {&node.usable, &node.excluded})
    for (const auto& part : *list) {
      std::string index;
      const bool gpu = gpu_index(part, index);
      (gpu ? gpus_total : rails_total) += 1;
      if (list != &node.usable) continue;
      if (gpu)
        gpus.push_back(index);
      else
        rails.push_back(part);
    }
  KubernetesNode k;
  k.labels["ibgpu.io/state"] = to_string(node.state);
  k.labels["ibgpu.io/admission"] = to_string(*node.action);
  k.labels["ibgpu.io/usable-gpus"] = list_label(gpus, gpus_total);
  k.labels["ibgpu.io/usable-gpu-count"] = std::to_string(gpus.size());
  k.labels["ibgpu.io/usable-rails"] = list_label(rails, rails_total);
  k.labels["ibgpu.io/usable-rail-count"] = std::to_string(rails.size());
  k.annotations["ibgpu.io/usable"] = join(node.usable, ",");
  k.annotations["ibgpu.io/excluded"] = join(node.excluded, ",");
  k.annotations["ibgpu.io/reasons"] = short_reasons(node);
  if (domain) {
    k.labels["ibgpu.io/nvlink-cluster"] = kubernetes_label_value(domain->cluster_uuid);
    k.labels["ibgpu.io/nvlink-clique"] = std::to_string(domain->clique);
    k.annotations["ibgpu.io/nvlink-domain"] = domain->text();
  }
  if (*node.action == Action::drain)
    k.taints.push_back({"ibgpu.io/unhealthy", kubernetes_label_value(to_string(node.state)), "NoSchedule"});
  else if (*node.action == Action::admit_degraded)
    k.taints.push_back({"ibgpu.io/unhealthy", "degraded", "PreferNoSchedule"});
  return k;
}

}  // namespace

std::string kubernetes_label_value(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (!label_char(c)) c = '-';
  out = trim_to_alnum(std::move(out));
  if (out.size() > kLabelValueMax) out = trim_to_alnum(out.substr(0, kLabelValueMax));
  return out;
}

std::map<std::string, KubernetesNode> kubernetes_map(const std::vector<Verdict>& verdicts,
                                                     const std::map<std::string, NvlinkDomain>& domains) {
  std::map<std::string, KubernetesNode> out;
  for (const auto& v : verdicts) {
    if (v.entity.kind() != EntityKind::node || !v.action) continue;
    const auto domain = domains.find(std::string(v.entity.host()));
    out[v.entity.id()] = node_entry(v, domain == domains.end() ? nullptr : &domain->second);
  }
  return out;
}

}  // namespace ibgpu
