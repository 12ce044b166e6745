#include "probes/net/verbs/device_select.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "probes/net/verbs/endpoint.h"

namespace ibgpu::verbs {
namespace {

Survey two_devices() {
  Survey s;
  s.devices.push_back({"mlx5_0", "", {{1, false, "PORT_DOWN"}}});
  s.devices.push_back({"mlx5_1", "", {{1, true, "PORT_ACTIVE"}, {2, true, "PORT_ACTIVE"}}});
  s.devices.push_back({"rxe0", "", {{1, true, "PORT_ACTIVE"}}});
  return s;
}

TEST(ParseDeviceSpec, DeviceAndPort) {
  const DeviceSpec spec = parse_device_spec("mlx5_0:2");
  EXPECT_EQ(spec.device, "mlx5_0");
  EXPECT_EQ(spec.port, 2);
  EXPECT_FALSE(spec.automatic());
}

TEST(ParseDeviceSpec, DeviceAloneMeansPortOne) {
  const DeviceSpec spec = parse_device_spec("rxe0");
  EXPECT_EQ(spec.device, "rxe0");
  EXPECT_EQ(spec.port, 1);
}

TEST(ParseDeviceSpec, EmptyMeansAutomatic) { EXPECT_TRUE(parse_device_spec("").automatic()); }

TEST(ParseDeviceSpec, GarbageIsAUsageError) {
  for (const char* text : {"mlx5_0:", ":1", "mlx5_0:x", "mlx5_0:0", "mlx5_0:256", "mlx5_0:1:2", "mlx 5", "mlx5_0:1x",
                           "mlx5_0:-1", " mlx5_0"}) {
    EXPECT_THROW(parse_device_spec(text), UsageError) << text;
  }
  try {
    parse_device_spec("mlx5_0:x");
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'mlx5_0:x'"), std::string::npos);
  }
}

TEST(ResolveDevice, AutomaticTakesTheFirstActivePort) {
  const DeviceSpec spec = resolve_device({}, two_devices());
  EXPECT_EQ(spec.device, "mlx5_1");
  EXPECT_EQ(spec.port, 1);
}

TEST(ResolveDevice, AutomaticWithoutActivePortIsUnavailable) {
  Survey s;
  s.devices.push_back({"rxe0", "", {{1, false, "PORT_DOWN"}}});
  EXPECT_THROW(resolve_device({}, s), VerbsUnavailable);
  EXPECT_THROW(resolve_device({}, Survey{}), VerbsUnavailable);
}

TEST(ResolveDevice, NamedPortIsUsed) {
  const DeviceSpec spec = resolve_device(parse_device_spec("mlx5_1:2"), two_devices());
  EXPECT_EQ(spec.device, "mlx5_1");
  EXPECT_EQ(spec.port, 2);
}

TEST(ResolveDevice, UnknownDeviceIsAUsageErrorListingTheDevices) {
  try {
    resolve_device(parse_device_spec("mlx5_9"), two_devices());
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "no RDMA device mlx5_9 (have: mlx5_0, mlx5_1, rxe0)");
  }
  try {
    resolve_device(parse_device_spec("mlx5_0"), Survey{});
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "no RDMA device mlx5_0 (have: none)");
  }
}

TEST(ResolveDevice, UnknownPortIsAUsageError) {
  try {
    resolve_device(parse_device_spec("rxe0:2"), two_devices());
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "RDMA device rxe0 has no port 2 (ports: 1)");
  }
}

TEST(ResolveDevice, NamedPortThatIsDownIsAnErrorNotAUsageError) {
  try {
    resolve_device(parse_device_spec("mlx5_0:1"), two_devices());
    FAIL() << "expected an error";
  } catch (const UsageError&) {
    FAIL() << "a down rail is a measurement, not the operator's mistake";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("mlx5_0:1 is PORT_DOWN"), std::string::npos) << e.what();
  }
}

TEST(UnavailableReason, SaysWhyNothingCanRun) {
  EXPECT_EQ(unavailable_reason(Survey{}), "no RDMA device (ibv_get_device_list returned 0 devices)");
  Survey down;
  down.devices.push_back({"rxe0", "", {{1, false, "PORT_DOWN"}}});
  down.devices.push_back({"mlx5_0", "ibv_open_device: Permission denied (errno 13)", {}});
  EXPECT_EQ(unavailable_reason(down),
            "no ACTIVE RDMA port (rxe0:1 PORT_DOWN, mlx5_0 ibv_open_device: Permission denied (errno 13))");
  EXPECT_EQ(unavailable_reason(two_devices()), "");
  EXPECT_EQ(active_ports(two_devices()), (std::vector<std::string>{"mlx5_1:1", "mlx5_1:2", "rxe0:1"}));
}

// The real stack on this host. The build machines have no RDMA device, so
// the "usable" side of these is checked in the Soft-RoCE VM lane.
TEST(VerbsOnThisHost, NoDeviceMeansAReasonAndNoPorts) {
  const std::string reason = ibgpu::verbs_unavailable_reason();
  if (reason.empty())
    GTEST_SKIP() << "an RDMA device with an ACTIVE port exists here: " << ibgpu::active_ports().front();
  EXPECT_NE(reason.find("no "), std::string::npos) << reason;
  EXPECT_TRUE(ibgpu::active_ports().empty());
}

TEST(VerbsOnThisHost, EndpointWithoutDeviceIsUnavailableOrAUsageError) {
  if (verbs_unavailable_reason().empty()) GTEST_SKIP() << "an RDMA device exists here";
  EXPECT_THROW(Endpoint(EndpointOptions{}), VerbsUnavailable);
  EndpointOptions named;
  named.device = "mlx5_9:1";
  try {
    Endpoint endpoint(named);
    FAIL() << "expected UsageError";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no RDMA device mlx5_9"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ibgpu::verbs
