#include "probes/topology.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstddef>
#include <regex>
#include <set>
#include <tuple>

#include "probes/ib/ports.h"
#include "probes/pci.h"

namespace ibgpu {

std::string normalize_pci_address(const std::string& address) {
  std::string a = address;
  for (auto& c : a) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // NVML pads the domain to 8 digits; the kernel writes 4.
  const auto colon = a.find(':');
  if (colon != std::string::npos && colon > 4 && a.find_first_not_of('0') >= colon - 4) a = a.substr(colon - 4);
  return a;
}

std::optional<PciPlace> read_pci_place(const Sysfs& sysfs, const std::string& rel) {
  const auto resolved = sysfs.resolve(rel);
  if (!resolved) return std::nullopt;
  static const std::regex function(R"(^[0-9a-f]{4,}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$)");
  static const std::regex bridge(R"(^pci[0-9a-f]{4,}:[0-9a-f]{2}$)");
  PciPlace place;
  for (const auto& part : *resolved) {
    const std::string name = part.string();
    if (std::regex_match(name, bridge)) {
      place.host_bridge = name;
      place.path.clear();
    } else if (!place.host_bridge.empty() && std::regex_match(name, function)) {
      place.path.push_back(name);
    }
  }
  if (place.host_bridge.empty() || place.path.empty()) return std::nullopt;
  place.address = place.path.back();
  // numa_node is -1 when the platform does not say.
  if (auto numa = sysfs.read_int(rel + "/numa_node"); numa && *numa >= 0) place.numa_node = static_cast<int>(*numa);
  return place;
}

namespace {

// PCI functions above both devices (their shared bridges).
std::size_t shared_bridges(const PciPlace& a, const PciPlace& b) {
  if (a.host_bridge != b.host_bridge) return 0;
  std::size_t n = 0;
  while (n + 1 < a.path.size() && n + 1 < b.path.size() && a.path[n] == b.path[n]) ++n;
  return n;
}

}  // namespace

PciProximity pci_proximity(const PciPlace& a, const PciPlace& b) {
  if (shared_bridges(a, b) > 0) return PciProximity::same_switch;
  if (a.numa_node && b.numa_node && *a.numa_node == *b.numa_node) return PciProximity::same_numa;
  return PciProximity::other;
}

std::vector<GpuHcaAffinity> gpu_hca_affinity(const Sysfs& sysfs, const std::vector<GpuInfo>& gpus,
                                             const std::vector<Hca>& hcas) {
  struct Placed {
    const Hca* hca;
    PciPlace place;
  };
  std::vector<Placed> placed;
  for (const auto& hca : hcas)
    if (auto place = read_pci_place(sysfs, "class/infiniband/" + hca.name + "/device"))
      placed.push_back(Placed{&hca, std::move(*place)});

  std::vector<GpuHcaAffinity> out;
  std::set<const Hca*> taken;
  for (const auto& gpu : gpus) {
    GpuHcaAffinity a;
    a.gpu = gpu.index;
    a.gpu_pci = normalize_pci_address(gpu.pci_bus_id);
    const auto place = a.gpu_pci.empty() ? std::nullopt : read_pci_place(sysfs, "bus/pci/devices/" + a.gpu_pci);
    if (place) {
      a.gpu_numa_node = place->numa_node;
      const Placed* best = nullptr;
      for (const auto& candidate : placed) {
        if (!best) {
          best = &candidate;
          continue;
        }
        // Nearer, then a longer shared path, then free: lower is better.
        auto rank = [&](const Placed& c) {
          const auto shared = static_cast<std::ptrdiff_t>(shared_bridges(*place, c.place));
          return std::tuple(pci_proximity(*place, c.place), -shared, taken.count(c.hca));
        };
        if (rank(candidate) < rank(*best)) best = &candidate;
      }
      if (best) {
        taken.insert(best->hca);
        a.hca = best->hca->name;
        a.hca_pci = best->place.address;
        a.proximity = pci_proximity(*place, best->place);
      }
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::string nearest_hca(const std::vector<GpuHcaAffinity>& topology, int gpu) {
  for (const auto& a : topology)
    if (a.gpu == gpu) return a.hca;
  return "";
}

void mark_rails(std::vector<Hca>& hcas, const std::vector<std::vector<GpuHcaAffinity>>& placements) {
  std::vector<std::string> near;
  for (const auto& topology : placements)
    for (const auto& gpu : topology)
      if (!gpu.hca.empty()) near.push_back(gpu.hca);
  for (auto& hca : hcas) hca.rail = near.empty() || std::find(near.begin(), near.end(), hca.name) != near.end();
}

std::vector<int> visible_gpus(int count, const char* cuda_visible_devices) {
  std::vector<int> all;
  for (int i = 0; i < count; ++i) all.push_back(i);
  if (!cuda_visible_devices || !*cuda_visible_devices) return all;
  std::vector<int> listed;
  const std::string text = cuda_visible_devices;
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t comma = std::min(text.find(',', from), text.size());
    const std::string item = text.substr(from, comma - from);
    int index = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), index);
    if (ec != std::errc() || end != item.data() + item.size()) return all;  // a UUID or MIG name: needs the driver
    if (index < 0 || index >= count) break;  // CUDA ignores the list from the first invalid entry on
    listed.push_back(index);
    from = comma + 1;
  }
  return listed;
}

std::vector<RailAssignment> rail_plan(const std::vector<GpuHcaAffinity>& topology, const std::vector<Hca>& hcas,
                                      int local_ranks, const char* cuda_visible_devices) {
  std::vector<RailAssignment> plan;
  const std::vector<int> visible = visible_gpus(static_cast<int>(topology.size()), cuda_visible_devices);
  if (visible.empty()) return plan;
  for (int r = 0; r < local_ranks; ++r) {
    const GpuHcaAffinity& gpu =
        topology[static_cast<std::size_t>(visible[static_cast<std::size_t>(r) % visible.size()])];
    RailAssignment a;
    a.local_rank = r;
    a.gpu_pci = gpu.gpu_pci;
    a.proximity = gpu.proximity;
    for (const auto& hca : hcas)
      if (hca.name == gpu.hca)
        for (const auto& port : hca.ports)
          if (a.port.empty() && port.active()) a.port = hca.name + ":" + std::to_string(port.port);
    if (a.port.empty() || gpu.proximity == PciProximity::other) {
      a.note = a.port.empty() ? "no active port on an HCA near the GPU" : "no HCA near the GPU (other NUMA node)";
    } else {
      for (const auto& earlier : plan)
        if (earlier.port == a.port && earlier.gpu_pci != a.gpu_pci)
          a.note = "shares " + a.port + " with local rank " + std::to_string(earlier.local_rank) + "'s GPU";
    }
    plan.push_back(std::move(a));
  }
  return plan;
}

std::vector<GpuInfo> gpus_on_the_bus(const std::vector<PciGpu>& pci_gpus) {
  std::vector<GpuInfo> gpus;
  for (const auto& pci : pci_gpus) {
    GpuInfo g;
    g.index = static_cast<int>(gpus.size());
    g.pci_bus_id = pci.pci_address;
    gpus.push_back(std::move(g));
  }
  return gpus;
}

std::vector<RailAssignment> read_rail_plan(const Sysfs& sysfs, int local_ranks, const char* cuda_visible_devices) {
  const std::vector<Hca> hcas = read_hcas(sysfs);
  return rail_plan(gpu_hca_affinity(sysfs, gpus_on_the_bus(read_pci_gpus(sysfs)), hcas), hcas, local_ranks,
                   cuda_visible_devices);
}

}  // namespace ibgpu
