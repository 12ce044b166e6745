#include "probes/pci.h"

#include <algorithm>
#include <charconv>

namespace ibgpu {

namespace {

constexpr const char* kDevices = "bus/pci/devices/";

std::optional<int> lanes(const Sysfs& sysfs, const std::string& rel) {
  const auto value = sysfs.read_int(rel);
  if (!value || *value <= 0 || *value > 32) return std::nullopt;  // 0 when the link is down
  return static_cast<int>(*value);
}

}  // namespace

std::optional<double> parse_link_speed(const std::string& text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || value <= 0 || value > 1000) return std::nullopt;
  if (std::string_view(end, static_cast<std::size_t>(text.data() + text.size() - end)).substr(0, 5) != " GT/s")
    return std::nullopt;
  return value;
}

PciLink read_pci_link(const Sysfs& sysfs, const std::string& dir) {
  PciLink link;
  if (auto s = sysfs.read(dir + "/current_link_speed")) link.speed_GTps = parse_link_speed(*s);
  if (auto s = sysfs.read(dir + "/max_link_speed")) link.max_speed_GTps = parse_link_speed(*s);
  link.width = lanes(sysfs, dir + "/current_link_width");
  link.max_width = lanes(sysfs, dir + "/max_link_width");
  return link;
}

std::vector<PciGpu> read_pci_gpus(const Sysfs& sysfs) {
  std::vector<PciGpu> gpus;
  for (const auto& address : sysfs.list(kDevices)) {
    const std::string dir = kDevices + address;
    if (sysfs.read(dir + "/vendor") != "0x10de") continue;
    const auto cls = sysfs.read(dir + "/class");
    if (!cls || !(cls->starts_with("0x0300") || cls->starts_with("0x0302"))) continue;
    PciGpu gpu;
    gpu.pci_address = address;
    gpu.device_id = sysfs.read(dir + "/device").value_or("");
    if (auto numa = sysfs.read_int(dir + "/numa_node"); numa && *numa >= 0) gpu.numa_node = static_cast<int>(*numa);
    gpu.link = read_pci_link(sysfs, dir);
    gpus.push_back(std::move(gpu));
  }
  // Bus order: addresses of one width sort as text (Sysfs::list's natural order would not, for hex).
  std::sort(gpus.begin(), gpus.end(), [](const PciGpu& a, const PciGpu& b) { return a.pci_address < b.pci_address; });
  return gpus;
}

}  // namespace ibgpu
