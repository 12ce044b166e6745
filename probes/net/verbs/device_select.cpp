#include "probes/net/verbs/device_select.h"

#include <infiniband/verbs.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>

#include "core/errors.h"
#include "core/text.h"
#include "probes/net/verbs/verbs_check.h"
#include "probes/net/verbs/verbs_handles.h"
#include "probes/sysfs.h"

namespace ibgpu {
namespace verbs {

namespace {

[[noreturn]] void bad_spec(const std::string& text) {
  throw UsageError("invalid RDMA device '" + text + "': expected <device>[:<port>], e.g. mlx5_0:1");
}

bool valid_device_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

// "mlx5_0, mlx5_1", or "none".
std::string names_or_none(const std::vector<std::string>& names) { return names.empty() ? "none" : join(names, ", "); }

}  // namespace

DeviceSpec parse_device_spec(const std::string& text) {
  if (text.empty()) return {};
  const auto colon = text.find(':');
  DeviceSpec spec;
  spec.device = text.substr(0, colon);
  spec.port = 1;
  if (!valid_device_name(spec.device)) bad_spec(text);
  if (colon != std::string::npos) {
    const std::string port = text.substr(colon + 1);
    int value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    // Port numbers are 1-based and fit the uint8_t that verbs takes.
    if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value < 1 || value > 255)
      bad_spec(text);
    spec.port = value;
  }
  return spec;
}

Survey survey_devices() {
  Survey survey;
  int count = 0;
  errno = 0;
  ibv_device** raw = ibv_get_device_list(&count);
  if (!raw) {
    const int code = errno;
    // ENOSYS: rdma-core found no uverbs class in sysfs, i.e. no RDMA driver at all.
    survey.problem = "no RDMA device (ibv_get_device_list failed: " + errno_text(code) +
                     (code == ENOSYS ? "; no RDMA driver or ib_uverbs loaded" : "") + ")";
    return survey;
  }
  const DeviceList list = DeviceList::adopt(raw, count);
  if (list.size() == 0) {
    survey.problem = "no RDMA device (ibv_get_device_list returned 0 devices)";
    return survey;
  }
  for (int i = 0; i < list.size(); ++i) {
    DeviceSurvey device;
    device.name = ibv_get_device_name(list.at(i));
    try {
      const Context context = open_device(list.at(i));
      ibv_device_attr attr{};
      check_rc(ibv_query_device(context.get(), &attr), "ibv_query_device");
      for (int p = 1; p <= attr.phys_port_cnt; ++p) {
        ibv_port_attr port{};
        check_rc(ibv_query_port(context.get(), static_cast<std::uint8_t>(p), &port), "ibv_query_port");
        device.ports.push_back({p, port.state == IBV_PORT_ACTIVE, ibv_port_state_str(port.state)});
      }
    } catch (const CallError& e) {
      device.problem = e.call() + ": " + e.detail();
    }
    survey.devices.push_back(std::move(device));
  }
  std::sort(survey.devices.begin(), survey.devices.end(),
            [](const DeviceSurvey& a, const DeviceSurvey& b) { return natural_less(a.name, b.name); });
  return survey;
}

std::vector<std::string> active_ports(const Survey& survey) {
  std::vector<std::string> out;
  for (const auto& device : survey.devices)
    for (const auto& port : device.ports)
      if (port.active) out.push_back(device.name + ":" + std::to_string(port.port));
  return out;
}

std::string unavailable_reason(const Survey& survey) {
  if (!survey.problem.empty()) return survey.problem;
  if (survey.devices.empty()) return "no RDMA device (ibv_get_device_list returned 0 devices)";
  if (!active_ports(survey).empty()) return {};
  std::vector<std::string> why;
  for (const auto& device : survey.devices) {
    if (!device.problem.empty()) why.push_back(device.name + " " + device.problem);
    for (const auto& port : device.ports)
      why.push_back(device.name + ":" + std::to_string(port.port) + " " + port.state);
    if (device.problem.empty() && device.ports.empty()) why.push_back(device.name + " has no ports");
  }
  return "no ACTIVE RDMA port (" + names_or_none(why) + ")";
}

DeviceSpec resolve_device(const DeviceSpec& spec, const Survey& survey) {
  if (spec.automatic()) {
    for (const auto& device : survey.devices)
      for (const auto& port : device.ports)
        if (port.active) return {device.name, port.port};
    throw VerbsUnavailable(unavailable_reason(survey));
  }
  std::vector<std::string> names;
  for (const auto& device : survey.devices) names.push_back(device.name);
  const auto it = std::find_if(survey.devices.begin(), survey.devices.end(),
                               [&](const DeviceSurvey& d) { return d.name == spec.device; });
  if (it == survey.devices.end())
    throw UsageError("no RDMA device " + spec.device + " (have: " + names_or_none(names) + ")");
  if (!it->problem.empty()) throw std::runtime_error("RDMA device " + it->name + " unusable: " + it->problem);
  std::vector<std::string> ports;
  for (const auto& port : it->ports) {
    if (port.port != spec.port) {
      ports.push_back(std::to_string(port.port));
      continue;
    }
    if (!port.active)
      throw std::runtime_error("RDMA port " + it->name + ":" + std::to_string(port.port) + " is " + port.state +
                               ", not PORT_ACTIVE");
    return spec;
  }
  throw UsageError("RDMA device " + it->name + " has no port " + std::to_string(spec.port) +
                   " (ports: " + names_or_none(ports) + ")");
}

}  // namespace verbs

std::string verbs_unavailable_reason() { return verbs::unavailable_reason(verbs::survey_devices()); }

std::vector<std::string> active_ports() { return verbs::active_ports(verbs::survey_devices()); }

}  // namespace ibgpu
