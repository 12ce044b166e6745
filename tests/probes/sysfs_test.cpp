// Sysfs reads against checked-in fixture trees (tests/data/sysfs) and small
// scratch trees for the cases a fixture cannot hold (odd whitespace, bad numbers).
#include "probes/sysfs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/text.h"
#include "tests/probes/sysfs_fixtures.h"

namespace ibgpu {
namespace {

namespace fs = std::filesystem;

// A scratch directory removed when the test ends, so tests can build the odd file sysfs might hold.
class ScratchTree {
 public:
  ScratchTree() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ =
        fs::path(::testing::TempDir()) / (std::string("ibgpu_sysfs_") + info->test_suite_name() + "_" + info->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  ~ScratchTree() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  ScratchTree(const ScratchTree&) = delete;
  ScratchTree& operator=(const ScratchTree&) = delete;

  const fs::path& root() const { return root_; }
  void write(const std::string& rel, const std::string& content) const {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << content;
  }
  void mkdir(const std::string& rel) const { fs::create_directories(root_ / rel); }

 private:
  fs::path root_;
};

TEST(Sysfs, ReadDropsTheTrailingNewline) {
  const Sysfs sysfs(testing::kSysfsFixtures / "cx7-ndr");
  EXPECT_EQ(sysfs.read("class/infiniband/mlx5_0/fw_ver"), "28.39.1002");
  EXPECT_EQ(sysfs.read("class/infiniband/mlx5_0/node_guid"), "a088:c203:00b1:2c30");
  EXPECT_EQ(sysfs.read("devices/system/cpu/online"), "0-223");
}

TEST(Sysfs, ReadKeepsInnerAndLeadingSpaces) {
  const Sysfs sysfs(testing::kSysfsFixtures / "cx7-ndr");
  EXPECT_EQ(sysfs.read("class/infiniband/mlx5_0/ports/1/state"), "4: ACTIVE");
  EXPECT_EQ(sysfs.read("class/infiniband/mlx5_0/ports/1/rate"), "400 Gb/sec (4X NDR)");

  const ScratchTree tree;
  tree.write("padded", "  two words \t\n\n");
  tree.write("empty", "");
  const Sysfs scratch(tree.root());
  EXPECT_EQ(scratch.read("padded"), "  two words");
  EXPECT_EQ(scratch.read("empty"), "");
}

TEST(Sysfs, ReadOfMissingFileIsNullopt) {
  const Sysfs sysfs(testing::kSysfsFixtures / "cx7-ndr");
  EXPECT_EQ(sysfs.read("class/infiniband/mlx5_0/no_such_attribute"), std::nullopt);
  EXPECT_EQ(sysfs.read("class/infiniband/mlx5_9/fw_ver"), std::nullopt);
  EXPECT_EQ(Sysfs(testing::kSysfsFixtures / "no-such-root").read("devices/system/cpu/online"), std::nullopt);
}

TEST(Sysfs, ReadOfADirectoryIsNullopt) {
  // open() succeeds on a directory and read() then fails with EISDIR: the same path a sysfs
  // attribute takes when its show() returns an error, so it must not come back as "".
  const Sysfs sysfs(testing::kSysfsFixtures / "cx7-ndr");
  EXPECT_EQ(sysfs.read("class/infiniband/mlx5_0/ports"), std::nullopt);
}

TEST(Sysfs, ReadOfAnAttributeTheKernelRefusesIsNullopt) {
  // The loopback device has no link settings, so the kernel fails read() on its speed attribute
  // (EINVAL or EOPNOTSUPP) although open() succeeds: a real unreadable attribute.
  const Sysfs sysfs("/sys");
  if (!sysfs.exists("class/net/lo/speed")) GTEST_SKIP() << "/sys/class/net/lo/speed not present here";
  EXPECT_EQ(sysfs.read("class/net/lo/speed"), std::nullopt);
}

TEST(Sysfs, ReadIntParsesDecimalAttributes) {
  const Sysfs sysfs(testing::kSysfsFixtures / "cx7-ndr");
  EXPECT_EQ(sysfs.read_int("class/infiniband/mlx5_0/device/numa_node"), 0);
  EXPECT_EQ(sysfs.read_int("class/infiniband/mlx5_1/device/numa_node"), 1);
  EXPECT_EQ(sysfs.read_int("class/infiniband/mlx5_0/ports/1/counters/port_xmit_data"), 918273645501LL);
  EXPECT_EQ(sysfs.read_int("class/infiniband/mlx5_0/ports/1/counters/symbol_error"), 0);
}

TEST(Sysfs, ReadIntRejectsWhatIsNotOneWholeNumber) {
  const ScratchTree tree;
  tree.write("minus_one", "-1\n");
  tree.write("hex", "0x1a\n");
  tree.write("trailing_junk", "12abc\n");
  tree.write("words", "4: ACTIVE\n");
  tree.write("blank", "\n");
  tree.write("too_big", "99999999999999999999999\n");
  const Sysfs sysfs(tree.root());
  // numa_node is -1 when firmware does not say: a number, for the caller to interpret.
  EXPECT_EQ(sysfs.read_int("minus_one"), -1);
  EXPECT_EQ(sysfs.read_int("hex"), std::nullopt);
  EXPECT_EQ(sysfs.read_int("trailing_junk"), std::nullopt);
  EXPECT_EQ(sysfs.read_int("words"), std::nullopt);
  EXPECT_EQ(sysfs.read_int("blank"), std::nullopt);
  EXPECT_EQ(sysfs.read_int("too_big"), std::nullopt);
  EXPECT_EQ(sysfs.read_int("missing"), std::nullopt);
}

TEST(Sysfs, ListSortsNaturally) {
  const ScratchTree tree;
  for (const char* name : {"mlx5_10", "mlx5_2", "mlx5_1", "mlx5_0", "mlx5_11", "bnxt_re0"})
    tree.mkdir(std::string("class/infiniband/") + name);
  const Sysfs sysfs(tree.root());
  EXPECT_EQ(sysfs.list("class/infiniband"),
            (std::vector<std::string>{"bnxt_re0", "mlx5_0", "mlx5_1", "mlx5_2", "mlx5_10", "mlx5_11"}));
}

TEST(Sysfs, ListFollowsTheClassSymlinks) {
  const Sysfs sysfs(testing::kSysfsFixtures / "degraded");
  EXPECT_EQ(sysfs.list("class/infiniband"), (std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"}));
  EXPECT_EQ(sysfs.list("class/infiniband/mlx5_2/ports"), (std::vector<std::string>{"1"}));
}

TEST(Sysfs, ListOfMissingDirectoryIsEmpty) {
  const Sysfs sysfs(testing::kSysfsFixtures / "empty");
  EXPECT_TRUE(sysfs.list("class/infiniband").empty());
  EXPECT_TRUE(sysfs.list("devices/system/cpu/online").empty());  // a file, not a directory
}

TEST(Sysfs, NaturalLessComparesDigitRunsByValue) {
  EXPECT_TRUE(natural_less("mlx5_2", "mlx5_10"));
  EXPECT_FALSE(natural_less("mlx5_10", "mlx5_2"));
  EXPECT_TRUE(natural_less("mlx5_9", "mlx5_10"));
  EXPECT_TRUE(natural_less("mlx5_1", "mlx5_1a"));
  EXPECT_TRUE(natural_less("mlx4_0", "mlx5_0"));
  EXPECT_TRUE(natural_less("a", "b"));
  EXPECT_TRUE(natural_less("", "a"));
  EXPECT_FALSE(natural_less("mlx5_0", "mlx5_0"));
  EXPECT_FALSE(natural_less("", ""));
  // Ports directories hold plain numbers.
  EXPECT_TRUE(natural_less("2", "10"));
}

TEST(Sysfs, LinkNameIsTheLastComponentOfTheTarget) {
  const Sysfs sysfs(testing::kSysfsFixtures / "cx7-ndr");
  EXPECT_EQ(sysfs.link_name("class/infiniband/mlx5_0/device"), "0000:17:00.0");
  EXPECT_EQ(sysfs.link_name("class/infiniband/mlx5_1/device"), "0000:99:00.0");
  EXPECT_EQ(sysfs.link_name("class/infiniband/mlx5_0"), "mlx5_0");
}

TEST(Sysfs, LinkNameOfAFileOrNothingIsNullopt) {
  const Sysfs sysfs(testing::kSysfsFixtures / "cx7-ndr");
  EXPECT_EQ(sysfs.link_name("class/infiniband/mlx5_0/fw_ver"), std::nullopt);
  EXPECT_EQ(sysfs.link_name("class/infiniband/mlx5_0/no_such_link"), std::nullopt);
}

TEST(Sysfs, ResolveFollowsRelativeLinksInsideTheRoot) {
  const fs::path root = testing::kSysfsFixtures / "cx7-ndr";
  const Sysfs sysfs(root);
  EXPECT_EQ(sysfs.resolve("class/infiniband/mlx5_0/device"),
            fs::canonical(root) / "devices/pci0000:15/0000:15:01.0/0000:17:00.0");
  EXPECT_EQ(sysfs.resolve("class/infiniband/mlx5_1"),
            fs::canonical(root) / "devices/pci0000:97/0000:97:01.0/0000:99:00.0/infiniband/mlx5_1");
  EXPECT_EQ(sysfs.resolve("class/infiniband/mlx5_7"), std::nullopt);
}

TEST(Sysfs, ExistsAndPath) {
  const Sysfs sysfs(testing::kSysfsFixtures / "empty");
  EXPECT_TRUE(sysfs.exists("devices/system/node/online"));
  EXPECT_FALSE(sysfs.exists("class/infiniband"));
  EXPECT_EQ(sysfs.path("devices/system/cpu/online"), testing::kSysfsFixtures / "empty" / "devices/system/cpu/online");
  EXPECT_EQ(Sysfs().root(), fs::path("/sys"));
}

}  // namespace
}  // namespace ibgpu
