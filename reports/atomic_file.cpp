#include "reports/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <streambuf>
#include <vector>

namespace ibgpu {

namespace fs = std::filesystem;

namespace {

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

// /dev and /proc hold the kernel's files, never a report of ours to replace.
bool under_kernel_tree(const std::string& absolute) {
  return absolute == "/dev" || absolute == "/proc" || starts_with(absolute, "/dev/") || starts_with(absolute, "/proc/");
}

// Follows a chain of symlinks by hand, so a dangling link still names the file it points at.
// Paths in /proc are left alone: /proc/self/fd/N points at "pipe:[123]", which is no path.
std::string follow_links(std::string path) {
  for (int hops = 0; hops < 40; ++hops) {
    if (under_kernel_tree(path)) return path;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    std::vector<char> buffer(PATH_MAX + 1);
    const ssize_t n = ::readlink(path.c_str(), buffer.data(), buffer.size() - 1);
    if (n < 0) throw_file_error("read the link", path, errno);
    const fs::path target(std::string(buffer.data(), static_cast<std::size_t>(n)));
    path = (target.is_absolute() ? target : fs::path(path).parent_path() / target).lexically_normal().string();
  }
  throw_file_error("follow the links of", path, ELOOP);
}

void write_all(int fd, const std::string& text, const std::string& path) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_file_error("write", path, errno);
    done += static_cast<std::size_t>(n);
  }
}

void write_through(const std::string& path, const std::string& text) {
  // O_APPEND: a regular file behind /dev/stdout or /proc/self/fd/N keeps what it holds.
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) throw_file_error("open", path, errno);
  try {
    write_all(fd, text, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) throw_file_error("close", path, errno);
}

mode_t current_umask() {
  const mode_t mask = ::umask(022);
  ::umask(mask);
  return mask;
}

// A new temporary file beside `path` (mkostemp: O_EXCL, so a name someone placed there, a link
// say, is never followed); returns its descriptor and sets `temp`, or -1 with errno.
int create_temp_beside(const std::string& path, std::string& temp) {
  const fs::path target(path);
  temp = (target.parent_path() / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  return ::mkostemp(temp.data(), O_CLOEXEC);
}

// Hands what a stream writes to a descriptor in large chunks; the first write error stops it
// (the stream turns bad) and is kept for the caller to report.
class DescriptorBuf : public std::streambuf {
 public:
  explicit DescriptorBuf(int fd) : fd_(fd), buffer_(1 << 20) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }

  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (c != traits_type::eof()) sputc(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    const char* from = pbase();
    while (error_ == 0 && from < pptr()) {
      const ssize_t n = ::write(fd_, from, static_cast<std::size_t>(pptr() - from));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) error_ = errno;
      if (n > 0) from += n;
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return error_ == 0;
  }

  int fd_;
  std::vector<char> buffer_;
  int error_ = 0;
};

// The report streams into the temporary file rather than through a copy in memory: at fleet
// scale it is hundreds of megabytes.
void replace(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::string temp;
  const int fd = create_temp_beside(path, temp);
  if (fd < 0) throw_file_error("create a temporary file beside", path, errno);
  try {
    struct stat old {};
    if (::stat(path.c_str(), &old) == 0) {
      // The replacement keeps what the operator set on the file it replaces.
      if (::fchmod(fd, old.st_mode & 07777) != 0) throw_file_error("set the mode of", temp, errno);
      if (::geteuid() == 0 && ::fchown(fd, old.st_uid, old.st_gid) != 0)
        throw_file_error("set the owner of", temp, errno);
    } else if (::fchmod(fd, static_cast<mode_t>(0644) & ~current_umask()) != 0) {
      throw_file_error("set the mode of", temp, errno);
    }
    DescriptorBuf buf(fd);
    std::ostream out(&buf);
    write(out);
    out.flush();
    if (buf.error() != 0) throw_file_error("write", temp, buf.error());
    if (::fsync(fd) != 0) throw_file_error("sync", temp, errno);
  } catch (...) {
    ::close(fd);
    ::unlink(temp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    throw_file_error("close", temp, err);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    throw_file_error("rename to", path, err);
  }
}

}  // namespace

void throw_file_error(const std::string& what, const std::string& path, int err) {
  throw std::runtime_error("cannot " + what + " " + path + ": " + std::strerror(err));
}

OutputTarget output_target(const std::string& path) {
  OutputTarget out;
  if (path.empty()) {
    out.refusal = "empty output path";
    return out;
  }
  std::error_code ec;
  const std::string absolute = fs::absolute(path, ec).lexically_normal().string();
  out.path = follow_links(ec ? path : absolute);
  struct stat st {};
  if (::stat(out.path.c_str(), &st) != 0) {
    if (errno != ENOENT) out.refusal = "cannot write " + path + ": " + std::strerror(errno);
    return out;  // a new file: created by replace()
  }
  if (S_ISDIR(st.st_mode)) {
    out.refusal = path + " is a directory";
  } else if (S_ISBLK(st.st_mode)) {
    out.refusal = path + " is a block device: ibgpu never writes a report onto a disk";
  } else if (S_ISSOCK(st.st_mode)) {
    out.refusal = path + " is a socket";
  } else if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || under_kernel_tree(out.path)) {
    out.write_through = true;
  }
  return out;
}

void write_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const OutputTarget target = output_target(path);
  if (!target.refusal.empty()) throw std::runtime_error(target.refusal);
  if (target.write_through) {
    // A device or pipe gets the report once it is whole: a render that throws leaves nothing half-written there.
    std::ostringstream buffer;
    write(buffer);
    write_through(target.path, buffer.str());
  } else {
    replace(target.path, write);
  }
}

std::string why_not_writable(const std::string& path) {
  const OutputTarget target = output_target(path);
  if (!target.refusal.empty()) return target.refusal;
  if (target.write_through) {
    // Opening a FIFO would wait for its reader, and a device's open may act: ask, do not open.
    if (::access(target.path.c_str(), W_OK) != 0) return "cannot write " + path + ": " + std::strerror(errno);
    return "";
  }
  std::string temp;
  const int fd = create_temp_beside(target.path, temp);
  if (fd < 0) return "cannot write " + path + ": " + std::strerror(errno);
  ::close(fd);
  ::unlink(temp.c_str());
  return "";
}

}  // namespace ibgpu
