#include "reports/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace ibgpu {

namespace fs = std::filesystem;

namespace {

std::string temp_name_for(const std::string& path) {
  const fs::path target(path);
  return (target.parent_path() / ("." + target.filename().string() + ".tmp." + std::to_string(getpid()))).string();
}

[[noreturn]] void fail(const std::string& what, const std::string& path, int err) {
  throw std::runtime_error("cannot " + what + " " + path + ": " + std::strerror(err));
}

}  // namespace

void write_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::ostringstream buffer;
  write(buffer);
  const std::string text = buffer.str();
  const std::string temp = temp_name_for(path);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("create", temp, errno);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      fail("write", temp, err);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    fail("sync", temp, err);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    fail("rename to", path, err);
  }
}

std::string why_not_writable(const std::string& path) {
  if (path.empty()) return "empty output path";
  std::error_code ec;
  if (fs::is_directory(path, ec)) return path + " is a directory";
  const std::string temp = temp_name_for(path);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot write " + path + ": " + std::strerror(errno);
  ::close(fd);
  ::unlink(temp.c_str());
  return "";
}

}  // namespace ibgpu
