#include "probes/ib/ports.h"

#include <charconv>

#include "probes/pci.h"

namespace ibgpu {

namespace {

std::optional<int> to_int(const std::string& s) {
  int v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

IbPort read_port(const Sysfs& sysfs, const std::string& device, int port) {
  const std::string base = "class/infiniband/" + device + "/ports/" + std::to_string(port) + "/";
  IbPort p;
  p.port = port;
  if (auto s = sysfs.read(base + "state")) p.state = parse_coded_state(*s);
  if (auto s = sysfs.read(base + "phys_state")) p.phys_state = parse_coded_state(*s);
  if (auto s = sysfs.read(base + "rate")) {
    p.rate_text = *s;
    p.rate = parse_rate(*s);
  }
  p.link_layer = sysfs.read(base + "link_layer").value_or("");
  p.lid = sysfs.read(base + "lid");
  for (const auto& name : sysfs.list(base + "counters")) {
    // Some counters are unreadable without privileges or unsupported (EINVAL): leave them out.
    if (auto v = sysfs.read_int(base + "counters/" + name); v && *v >= 0)
      p.counters[name] = static_cast<std::uint64_t>(*v);
  }
  return p;
}

std::string no_rdma_device_text(const Sysfs& sysfs) {
  return "no RDMA device under " + sysfs.path("class/infiniband").string();
}

std::vector<Hca> read_hcas(const Sysfs& sysfs) {
  std::vector<Hca> hcas;
  for (const auto& name : sysfs.list("class/infiniband")) {
    const std::string base = "class/infiniband/" + name + "/";
    Hca hca;
    hca.name = name;
    hca.node_guid = sysfs.read(base + "node_guid").value_or("");
    hca.fw_ver = sysfs.read(base + "fw_ver").value_or("");
    hca.board_id = sysfs.read(base + "board_id").value_or("");
    hca.hca_type = sysfs.read(base + "hca_type").value_or("");
    hca.pci_address = sysfs.link_name(base + "device").value_or("");
    // numa_node is -1 when the platform does not say.
    if (auto numa = sysfs.read_int(base + "device/numa_node"); numa && *numa >= 0)
      hca.numa_node = static_cast<int>(*numa);
    hca.link = read_pci_link(sysfs, base + "device");
    for (const auto& port : sysfs.list(base + "ports"))
      if (auto n = to_int(port)) hca.ports.push_back(read_port(sysfs, name, *n));
    hcas.push_back(std::move(hca));
  }
  return hcas;
}

}  // namespace ibgpu
