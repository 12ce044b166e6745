// Profiles: every shipped file loads, the built-in generic equals its file,
// and malformed files give errors naming file and line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "health/profile_file.h"

namespace ibgpu {
namespace {

namespace fs = std::filesystem;
const fs::path kProfiles = fs::path(IBGPU_SOURCE_DIR) / "profiles";

std::string error_of(const std::string& text) {
  try {
    parse_profile(text, "bad.toml");
  } catch (const ProfileError& e) {
    return e.what();
  }
  return "";
}

TEST(Profile, FleetKeysOfOlderProfilesStillRead) {
  // Before the fleet reference was the good quartile the keys named the median.
  const Profile old = parse_profile("[fleet]\nbw_fraction_of_median = 0.7\nlat_multiple_of_median = 3.0\n", "old.toml");
  EXPECT_EQ(old.fleet.bw_fraction, 0.7);
  EXPECT_EQ(old.fleet.lat_multiple, 3.0);
  const Profile now = parse_profile("[fleet]\nbw_fraction = 0.8\nbw_fraction_widest = 0.4\n", "now.toml");
  EXPECT_EQ(now.fleet.bw_fraction, 0.8);
  EXPECT_EQ(now.fleet.bw_fraction_widest, 0.4);
  EXPECT_EQ(now.fleet.min_fleet_size, 3);
  EXPECT_NE(error_of("[fleet]\nbw_fraction_widest = 0\n").find("bw_fraction_widest"), std::string::npos);
}

TEST(Profile, ConfidenceKeysReadAndAreChecked) {
  const Profile plain = parse_profile("[fleet]\nenabled = true\n", "plain.toml");
  EXPECT_FALSE(plain.confidence.drain_weak);
  EXPECT_EQ(plain.confidence.default_noise, 0.05);
  const Profile set = parse_profile("[confidence]\ndrain_weak = true\ndefault_noise = 0.02\n", "set.toml");
  EXPECT_TRUE(set.confidence.drain_weak);
  EXPECT_EQ(set.confidence.default_noise, 0.02);
  EXPECT_NE(error_of("[confidence]\ndefault_noise = 0\n").find("confidence.default_noise"), std::string::npos);
  EXPECT_NE(error_of("[confidence]\ndrain_on_weak = true\n").find("drain_on_weak"), std::string::npos);
}

TEST(Profile, EveryShippedProfileLoads) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator(kProfiles)) {
    if (entry.path().extension() != ".toml") continue;
    ++n;
    Profile p;
    ASSERT_NO_THROW(p = load_profile_file(entry.path())) << entry.path();
    EXPECT_EQ(p.name, entry.path().stem().string()) << "a profile's name is its file name";
  }
  EXPECT_GE(n, 4);
}

TEST(Profile, HardwareProfilesDeclareWhatTheyExpect) {
  for (const char* name : {"hgx-h100-ndr", "hgx-h200-ndr", "a100-hdr", "hgx-b200-ndr", "hgx-b300-xdr",
                           "gb200-nvl72-tray", "gb300-nvl72-tray"}) {
    const Profile p = resolve_profile(name, {kProfiles});
    // Eight GPUs a node, four a NVL72 compute tray; one rail a GPU.
    EXPECT_EQ(p.node.expect_gpus, std::string_view(name).ends_with("-tray") ? 4 : 8) << name;
    EXPECT_EQ(p.node.expect_active_ports, p.node.expect_gpus) << name;
    EXPECT_EQ(p.node.port_width, 4) << name;
    ASSERT_TRUE(p.network.verbs_bw_GBps.failed && p.network.verbs_bw_GBps.degraded) << name;
    // Floors under the line rate: NDR 50 GB/s, HDR 25 GB/s.
    EXPECT_LT(*p.network.verbs_bw_GBps.degraded, *p.node.port_rate_gbps / 8) << name;
    EXPECT_DOUBLE_EQ(p.counters.symbol_error_per_hour_degraded, 100.0) << name;  // PAM4: a rate, not a count
  }
  EXPECT_DOUBLE_EQ(*resolve_profile("hgx-h100-ndr", {kProfiles}).network.verbs_bw_GBps.degraded, 47.5);
  // NVLink: 18 links on Hopper and Blackwell, at NVML's 26,562 and 53,125 MB/s a link; the trays
  // alone register with an NVLink fabric.
  for (const char* name :
       {"hgx-h100-ndr", "hgx-h200-ndr", "hgx-b200-ndr", "hgx-b300-xdr", "gb200-nvl72-tray", "gb300-nvl72-tray"}) {
    const Profile p = resolve_profile(name, {kProfiles});
    EXPECT_EQ(p.gpu.nvlink_links, 18) << name;
    EXPECT_EQ(p.gpu.nvlink_speed_MBps, std::string_view(name).find("-h1") != std::string_view::npos ||
                                               std::string_view(name).find("-h2") != std::string_view::npos
                                           ? 26562.0
                                           : 53125.0)
        << name;
    EXPECT_EQ(p.gpu.nvlink_fabric, std::string_view(name).ends_with("-tray")) << name;
  }
  EXPECT_DOUBLE_EQ(*resolve_profile("hgx-b300-xdr", {kProfiles}).node.port_rate_gbps, 800.0);
}

TEST(Profile, NvLinkKeysAreCheckedAsTheyAreRead) {
  const Profile p =
      parse_profile("[gpu]\nnvlink_links = 18\nnvlink_speed_MBps = 53125\nnvlink_fabric = true\n", "p.toml");
  EXPECT_EQ(p.gpu.nvlink_links, 18);
  EXPECT_EQ(p.gpu.nvlink_speed_MBps, 53125.0);
  EXPECT_TRUE(p.gpu.nvlink_fabric);
  EXPECT_NE(error_of("[gpu]\nnvlink_links = 37\n").find("at most 36"), std::string::npos);
  EXPECT_NE(error_of("[gpu]\nnvlink_links = -1\n").find("out of range"), std::string::npos);
  EXPECT_NE(error_of("[gpu]\nnvlink_fabric = 1\n").find("true or false"), std::string::npos);
  const Profile counted =
      parse_profile("[gpu]\nnvlink_recoveries_degraded = 1\nnvlink_errors_degraded = 100\n", "p.toml");
  EXPECT_EQ(counted.gpu.nvlink_recoveries_degraded, 1);
  EXPECT_EQ(counted.gpu.nvlink_errors_degraded, 100);
  EXPECT_EQ(to_json(counted)["gpu"]["nvlink_errors_degraded"], 100);
  EXPECT_NE(error_of("[gpu]\nnvlink_errors_degraded = 0\n").find("out of range"), std::string::npos);
  EXPECT_NE(error_of("[gpu]\nnvlink_recoveries_degraded = 1.5\n").find("must be an integer"), std::string::npos);
}

TEST(Profile, GenericFileMatchesTheBuiltIn) {
  nlohmann::json file = to_json(resolve_profile("generic", {kProfiles}));
  nlohmann::json builtin = to_json(generic_profile());
  file.erase("source");
  builtin.erase("source");
  EXPECT_EQ(file, builtin);
}

TEST(Profile, GenericIsBuiltInWhenNoFileIsFound) {
  const Profile p = resolve_profile("generic", {fs::path("/nonexistent")});
  EXPECT_EQ(p.name, "generic");
  EXPECT_EQ(p.source, "built-in");
}

TEST(Profile, UnknownNameSaysWhereItLooked) {
  try {
    resolve_profile("no-such-sku", {kProfiles});
    FAIL();
  } catch (const ProfileError& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-sku.toml"), std::string::npos) << e.what();
  }
}

TEST(Profile, FilePathIsLoadedDirectly) {
  const Profile p = resolve_profile((kProfiles / "a100-hdr.toml").string(), {});
  EXPECT_EQ(p.name, "a100-hdr");
  EXPECT_THROW(resolve_profile("/nonexistent/x.toml", {}), ProfileError);
}

TEST(Profile, EnvironmentDirectoryComesFirst) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("ibgpu_profiles_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "site.toml") << "name = \"site\"\n[node]\nexpect_gpus = 4\n";
  ::setenv("IBGPU_PROFILE_DIR", dir.c_str(), 1);
  const auto dirs = profile_search_dirs("/usr/bin");
  ::unsetenv("IBGPU_PROFILE_DIR");
  ASSERT_FALSE(dirs.empty());
  EXPECT_EQ(dirs.front(), dir);
  EXPECT_EQ(dirs.at(1), fs::path("/usr/bin/../share/ibgpu/profiles"));
  EXPECT_EQ(resolve_profile("site", dirs).node.expect_gpus, 4);
  fs::remove_all(dir);
}

TEST(Profile, SyntaxErrorNamesFileAndLine) {
  const std::string e = error_of("name = \"x\"\n\n[node\nexpect_gpus = 8\n");
  EXPECT_EQ(e.rfind("bad.toml:3:", 0), 0u) << e;
}

TEST(Profile, UnknownKeyNamesFileLineAndKey) {
  const std::string e = error_of("name = \"x\"\n[network.verbs_bw_GBps]\nfailed = 40\ndegradd = 45\n");
  EXPECT_EQ(e.rfind("bad.toml:4:", 0), 0u) << e;
  EXPECT_NE(e.find("network.verbs_bw_GBps.degradd"), std::string::npos) << e;
  EXPECT_EQ(error_of("[nodes]\nexpect_gpus = 8\n").rfind("bad.toml:1:", 0), 0u);
}

TEST(Profile, WrongTypeNamesFileAndLine) {
  const std::string e = error_of("[node]\nexpect_gpus = \"eight\"\n");
  EXPECT_EQ(e.rfind("bad.toml:2:", 0), 0u) << e;
  EXPECT_NE(e.find("integer"), std::string::npos) << e;
  EXPECT_EQ(error_of("[fleet]\nenabled = 1\n").rfind("bad.toml:2:", 0), 0u);
  EXPECT_EQ(error_of("[network.lat_p50_us]\nfailed = \"10\"\n").rfind("bad.toml:2:", 0), 0u);
}

TEST(Profile, DegradedBeyondFailedIsRefused) {
  const std::string floor = error_of("[network]\n[network.verbs_bw_GBps]\nfailed = 45\ndegraded = 40\n");
  EXPECT_EQ(floor.rfind("bad.toml:2:", 0), 0u) << floor;
  EXPECT_NE(floor.find("degraded level below the failed floor"), std::string::npos) << floor;
  // Latency limits are ceilings: degraded must not exceed failed.
  EXPECT_NE(error_of("[network.lat_p99_us]\nfailed = 5\ndegraded = 8\n").find("ceiling"), std::string::npos);
  EXPECT_TRUE(error_of("[network.lat_p99_us]\nfailed = 8\ndegraded = 5\n").empty());
}

TEST(Profile, NanAndInfinityAreRefusedEverywhere) {
  // Each compares false with everything: the limit or rule would silently judge nothing.
  for (const char* text :
       {"[network.verbs_bw_GBps]\nfailed = nan\n", "[network.verbs_bw_GBps]\ndegraded = inf\n",
        "[network.lat_p99_us]\nfailed = -nan\n", "[fleet]\nbw_fraction = nan\n", "[fleet]\nlat_multiple = inf\n",
        "[node]\nport_rate_gbps = inf\n", "[counters]\nsymbol_error_per_hour_degraded = nan\n"}) {
    const std::string e = error_of(text);
    EXPECT_EQ(e.rfind("bad.toml:2:", 0), 0u) << text << " -> " << e;
    EXPECT_NE(e.find("finite"), std::string::npos) << text << " -> " << e;
  }
}

// Every limit the local rules apply is a profile key: the GPU and port rules
// read it from the file, not from a default hidden in the judge.
TEST(Profile, LocalLimitsAreKeysOfTheFile) {
  const Profile p = parse_profile(
      "[gpu]\ntemp_degraded_C = 80\ntemp_failed_C = 90\nrequire_persistence_mode = true\n"
      "[counters]\nport_rcv_errors_per_hour_degraded = 7\nlink_down_events_degraded = 5\n",
      "local.toml");
  EXPECT_EQ(p.gpu.temp_degraded_C, 80.0);
  EXPECT_EQ(p.gpu.temp_failed_C, 90.0);
  EXPECT_TRUE(p.gpu.require_persistence_mode);
  EXPECT_DOUBLE_EQ(p.counters.port_rcv_errors_per_hour_degraded, 7);
  EXPECT_EQ(p.counters.link_down_events_degraded, 5);
  EXPECT_DOUBLE_EQ(p.counters.local_link_integrity_errors_per_hour_degraded, 6);  // unset: the built-in value
  EXPECT_NE(error_of("[counters]\nport_rcv_errors_per_hour_degraded = -1\n").find("negative"), std::string::npos);
  EXPECT_NE(error_of("[gpu]\nrequire_persistence_mode = 1\n").find("true or false"), std::string::npos);
}

TEST(Profile, AnEmptyProfileIsRefused) {
  for (const char* text : {"", "\n\n", "# only a comment\n"}) {
    const std::string e = error_of(text);
    EXPECT_NE(e.find("sets nothing"), std::string::npos) << e;
  }
}

TEST(Profile, InputIsBoundedBeforeTheTomlParser) {
  // toml++ recurses once per part of a dotted key: 50,000 parts overflowed the stack.
  std::string dotted;
  for (int i = 0; i < 50000; ++i) dotted += i ? ".a" : "a";
  const std::string e = error_of(dotted + " = 1\n");
  EXPECT_EQ(e.rfind("bad.toml:1: line longer than", 0), 0u) << e.substr(0, 200);
  EXPECT_NE(error_of("[" + dotted + "]\n").find("line longer than"), std::string::npos);
}

TEST(Profile, AFileThatIsNoRegularFileIsRefused) {
  try {
    resolve_profile("/dev/zero", {});
    ADD_FAILURE() << "/dev/zero loaded as a profile";
  } catch (const ProfileError& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/zero"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ibgpu
