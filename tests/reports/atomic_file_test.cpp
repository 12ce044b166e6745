#include "reports/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace ibgpu {
namespace {

namespace fs = std::filesystem;

class AtomicFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "ibgpu-atomic.XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  static void write(const std::string& path, const std::string& text) {
    write_atomically(path, [&](std::ostream& out) { out << text; });
  }
  static std::string read(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  static struct stat lstat_of(const fs::path& path) {
    struct stat st {};
    EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
    return st;
  }
  // Nothing left behind: no temporary file of ours in the folder.
  void expect_no_temporaries(const fs::path& folder) const {
    for (const auto& entry : fs::directory_iterator(folder))
      EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << entry.path();
  }

  fs::path dir_;
};

TEST_F(AtomicFile, NewAndRegularFilesAreReplacedKeepingTheirMode) {
  const fs::path file = dir_ / "report.json";
  write(file, "one");
  EXPECT_EQ(read(file), "one");
  ASSERT_EQ(::chmod(file.c_str(), 0600), 0);
  write(file, "two");
  EXPECT_EQ(read(file), "two");
  EXPECT_EQ(lstat_of(file).st_mode & 07777, 0600u);
  expect_no_temporaries(dir_);
}

TEST_F(AtomicFile, SymlinkStaysALinkAndItsTargetIsReplacedInItsOwnFolder) {
  fs::create_directory(dir_ / "runs");
  write(dir_ / "runs" / "x.json", "old");
  fs::create_symlink("runs/x.json", dir_ / "latest.json");
  write(dir_ / "latest.json", "new");
  EXPECT_TRUE(S_ISLNK(lstat_of(dir_ / "latest.json").st_mode));
  EXPECT_EQ(read(dir_ / "runs" / "x.json"), "new");
  expect_no_temporaries(dir_);
  expect_no_temporaries(dir_ / "runs");
}

TEST_F(AtomicFile, DanglingSymlinkChainCreatesItsFinalTarget) {
  fs::create_directory(dir_ / "runs");
  fs::create_symlink(dir_ / "runs" / "y.json", dir_ / "mid.json");
  fs::create_symlink("mid.json", dir_ / "latest.json");
  write(dir_ / "latest.json", "first");
  EXPECT_TRUE(S_ISLNK(lstat_of(dir_ / "latest.json").st_mode));
  EXPECT_TRUE(S_ISLNK(lstat_of(dir_ / "mid.json").st_mode));
  EXPECT_EQ(read(dir_ / "runs" / "y.json"), "first");
}

TEST_F(AtomicFile, DevNullIsWrittenThroughAndStaysACharacterDevice) {
  EXPECT_EQ(why_not_writable("/dev/null"), "");
  EXPECT_TRUE(output_target("/dev/null").write_through);
  write("/dev/null", "gone");
  struct stat st = lstat_of("/dev/null");
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  expect_no_temporaries("/dev");
}

TEST_F(AtomicFile, DevFullIsAnErrorNotAReplacement) {
  EXPECT_THROW(write("/dev/full", "x"), std::runtime_error);
  EXPECT_TRUE(S_ISCHR(lstat_of("/dev/full").st_mode));
}

TEST_F(AtomicFile, FifoIsWrittenThroughToItsReader) {
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = read(fifo); });
  EXPECT_EQ(why_not_writable(fifo.string()), "");  // asks without opening: no wait for a reader
  write(fifo, "through the pipe");
  reader.join();
  EXPECT_EQ(got, "through the pipe");
  EXPECT_TRUE(S_ISFIFO(lstat_of(fifo).st_mode));
}

TEST_F(AtomicFile, ProcFdOfAPipeIsWrittenThrough) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const std::string path = "/proc/self/fd/" + std::to_string(fds[1]);
  EXPECT_TRUE(output_target(path).write_through);
  write(path, "abc");
  ::close(fds[1]);
  char buffer[8] = {};
  EXPECT_EQ(::read(fds[0], buffer, sizeof buffer), 3);
  ::close(fds[0]);
  EXPECT_EQ(std::string(buffer), "abc");
}

TEST_F(AtomicFile, SocketAndDirectoryAreRefused) {
  const fs::path sock = dir_ / "sock";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", sock.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  EXPECT_NE(why_not_writable(sock.string()).find("socket"), std::string::npos);
  EXPECT_THROW(write(sock, "x"), std::runtime_error);
  EXPECT_TRUE(S_ISSOCK(lstat_of(sock).st_mode));
  ::close(fd);
  EXPECT_NE(why_not_writable(dir_.string()).find("directory"), std::string::npos);
}

TEST_F(AtomicFile, DeviceNodesMadeHereAreNeverReplaced) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod of device nodes needs root";
  const fs::path null_copy = dir_ / "null";
  const fs::path block = dir_ / "loop";
  ASSERT_EQ(::mknod(null_copy.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);  // /dev/null's numbers
  ASSERT_EQ(::mknod(block.c_str(), S_IFBLK | 0600, makedev(7, 200)), 0);    // a loop device
  write(null_copy, "through");
  EXPECT_TRUE(S_ISCHR(lstat_of(null_copy).st_mode));
  EXPECT_NE(why_not_writable(block.string()).find("block device"), std::string::npos);
  EXPECT_THROW(write(block, "x"), std::runtime_error);
  EXPECT_TRUE(S_ISBLK(lstat_of(block).st_mode));
  expect_no_temporaries(dir_);
}

}  // namespace
}  // namespace ibgpu
