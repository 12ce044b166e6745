#include "core/bounded_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ibgpu {

namespace {

std::string size_text(std::size_t bytes) {
  if (bytes >= (std::size_t{1} << 20)) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes >> 10) + " KiB";
}

// What fd holds to its end, or its first max_bytes + 1 bytes (the caller refuses those), into a
// buffer first sized to `expected` bytes.
std::string read_to_limit(int fd, std::size_t expected, std::size_t max_bytes, const std::string& origin) {
  std::string text(std::min(expected, max_bytes + 1), '\0');
  std::size_t done = 0;
  while (true) {
    if (done == text.size()) {
      if (text.size() > max_bytes) break;
      text.resize(std::min(max_bytes + 1, text.size() + 65536));
    }
    const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(origin + ": cannot read: " + std::strerror(errno));
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  text.resize(done);
  return text;
}

}  // namespace

std::string read_bounded_file(const std::string& path, std::size_t max_bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw InputError(path + ": cannot read: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw InputError(path + ": not a regular file (ibgpu reads saved files only)");
  if (static_cast<std::size_t>(st.st_size) > max_bytes)
    throw InputError(path + ": " + std::to_string(st.st_size) + " bytes, over the " + size_text(max_bytes) +
                     " this reads");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) throw InputError(path + ": cannot read: " + std::strerror(errno));
  // The size is checked again as it is read: a file that grows is cut at the limit, and refused.
  std::string text;
  try {
    text = read_to_limit(fd, static_cast<std::size_t>(st.st_size), max_bytes, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  if (text.size() > max_bytes) throw InputError(path + ": grew past the " + size_text(max_bytes) + " this reads");
  return text;
}

std::string read_bounded_stream(int fd, std::size_t max_bytes, const std::string& origin) {
  std::string text = read_to_limit(fd, 0, max_bytes, origin);
  if (text.size() > max_bytes) throw InputError(origin + ": more than the " + size_text(max_bytes) + " this reads");
  return text;
}

void check_json_depth(std::string_view text, std::size_t max_depth, const std::string& origin) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        throw InputError(origin + ": JSON nested deeper than " + std::to_string(max_depth) + " levels (at byte " +
                         std::to_string(i) + "): not an ibgpu file");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

}  // namespace ibgpu
