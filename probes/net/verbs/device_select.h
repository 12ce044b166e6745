#pragma once
// Which RDMA device and port a pair probe uses, and whether verbs can run on
// this host at all (so the caller can choose verbs, MPI, or report `skipped`).
#include <stdexcept>
#include <string>
#include <vector>

namespace ibgpu {

// Empty if at least one device has an ACTIVE port that ibv_open_device can open;
// else why not, e.g. "no RDMA device (ibv_get_device_list returned 0 devices)".
std::string verbs_unavailable_reason();
// Every ACTIVE port as "device:port" ("rxe0:1"), devices in natural order.
std::vector<std::string> active_ports();

namespace verbs {

// Verbs cannot run here for a reason that is the host's, not the operator's:
// the probe is `skipped`, not failed.
class VerbsUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "mlx5_0:1" -> {mlx5_0, 1}; "mlx5_0" -> port 1; "" -> {"", 0}: pick automatically.
// Anything else throws UsageError naming the text.
struct DeviceSpec {
  std::string device;
  int port = 0;
  bool automatic() const { return device.empty(); }
};
DeviceSpec parse_device_spec(const std::string& text);

struct PortState {
  int port = 0;
  bool active = false;
  std::string state;  // ibv_port_state_str: "PORT_ACTIVE", "PORT_DOWN"
};
struct DeviceSurvey {
  std::string name;
  std::string problem;  // why it could not be opened or queried; empty when fine
  std::vector<PortState> ports;
};
struct Survey {
  std::string problem;                // why the device list itself is empty or missing
  std::vector<DeviceSurvey> devices;  // natural name order (mlx5_2 before mlx5_10)
};

// Opens every device once to read its port states.
Survey survey_devices();

// Pure: the reason verbs cannot run, or empty.
std::string unavailable_reason(const Survey& survey);
std::vector<std::string> active_ports(const Survey& survey);

// Pure: the concrete device and port for a spec.
// - automatic: the first ACTIVE port in survey order, else VerbsUnavailable;
// - unknown device or port: UsageError listing what exists;
// - a named port that is not ACTIVE: std::runtime_error (a down rail is data, not a usage error).
DeviceSpec resolve_device(const DeviceSpec& spec, const Survey& survey);

}  // namespace verbs
}  // namespace ibgpu
