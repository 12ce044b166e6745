#include "core/bounded_input.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace ibgpu {
namespace {

namespace fs = std::filesystem;

fs::path temp_file(const std::string& text) {
  std::string pattern = (fs::temp_directory_path() / "ibgpu-bounded.XXXXXX").string();
  const int fd = ::mkstemp(pattern.data());
  EXPECT_GE(fd, 0);
  ::close(fd);
  std::ofstream(pattern, std::ios::binary) << text;
  return pattern;
}

TEST(BoundedInput, ReadsARegularFileWhole) {
  const fs::path file = temp_file("{\"a\": 1}\n");
  EXPECT_EQ(read_bounded_file(file, 100), "{\"a\": 1}\n");
  fs::remove(file);
}

TEST(BoundedInput, RefusesDevicesAndFifosWithoutReadingThem) {
  for (const char* path : {"/dev/zero", "/dev/null", "/dev/urandom", "/proc/self", "/dev/stdin"}) {
    try {
      read_bounded_file(path, 1 << 20);
      ADD_FAILURE() << path << " was read";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  }
}

TEST(BoundedInput, RefusesAFileOverTheLimitBeforeReadingIt) {
  const fs::path file = temp_file("");
  fs::resize_file(file, std::uintmax_t{3} << 30);  // sparse: 3 GiB of nothing, instantly
  try {
    read_bounded_file(file, kReportMaxBytes);
    ADD_FAILURE() << "a 3 GiB file was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("over the 1024 MiB"), std::string::npos) << e.what();
  }
  fs::remove(file);
}

TEST(BoundedInput, DepthCountsBracketsOutsideStringsOnly) {
  EXPECT_NO_THROW(check_json_depth(R"({"a": [[["[[[[[[[[[[[[[[[[[\"{{{{"]]]})", 4, "x"));
  EXPECT_NO_THROW(check_json_depth(std::string(64, '[') + std::string(64, ']'), 64, "x"));
  EXPECT_THROW(check_json_depth(std::string(65, '['), 64, "x"), InputError);
  EXPECT_THROW(check_json_depth(std::string(100000, '['), 64, "x"), InputError);
  EXPECT_THROW(check_json_depth(R"({"a":{"b":{"c":1}}})", 2, "x"), InputError);
}

TEST(BoundedInput, ExactIntegerRefusesWhatDoesNotFit) {
  using nlohmann::json;
  EXPECT_EQ(exact_integer<int>(json(7), "k"), 7);
  EXPECT_EQ(exact_integer<int>(json(-3), "k"), -3);
  EXPECT_EQ(exact_integer<std::size_t>(json(18446744073709551615ull), "k"), 18446744073709551615ull);
  EXPECT_THROW(exact_integer<int>(json(18446744073709551615ull), "k"), InputError);  // not -1
  EXPECT_THROW(exact_integer<int>(json(-1e300), "k"), InputError);
  EXPECT_THROW(exact_integer<int>(json(1.5), "k"), InputError);
  EXPECT_THROW(exact_integer<std::size_t>(json(-1), "k"), InputError);  // not SIZE_MAX
  EXPECT_THROW(exact_integer<int>(json(4294967296LL), "k"), InputError);
  EXPECT_THROW(exact_integer<int>(json("3"), "k"), InputError);
}

}  // namespace
}  // namespace ibgpu
