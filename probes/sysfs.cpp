#include "probes/sysfs.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <fstream>
#include <system_error>

#include "core/text.h"

namespace ibgpu {

namespace fs = std::filesystem;

bool Sysfs::exists(const std::string& rel) const {
  std::error_code ec;
  return fs::exists(path(rel), ec);
}

std::optional<std::string> Sysfs::read(const std::string& rel) const {
  std::ifstream in(path(rel));
  if (!in) return std::nullopt;
  // open() succeeds on an attribute whose show() fails (EINVAL for an unsupported counter or
  // rate, EISDIR for a directory); only the read fails. istream::read turns that into badbit,
  // whereas `out << in.rdbuf()` swallows it and leaves an empty string that looks like data.
  std::string s;
  std::array<char, 4096> buf{};
  // A kernel attribute is at most a page; a saved tree (--sysfs-root) may hold anything, even a
  // link to /dev/zero: past 64 KiB it is no attribute.
  constexpr std::size_t kMaxAttribute = 64 * 1024;
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    s.append(buf.data(), static_cast<std::size_t>(in.gcount()));
    if (s.size() > kMaxAttribute) return std::nullopt;
  }
  if (in.bad()) return std::nullopt;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

std::optional<long long> Sysfs::read_int(const std::string& rel) const {
  auto text = read(rel);
  if (!text) return std::nullopt;
  long long v = 0;
  const char* begin = text->data();
  const char* end = begin + text->size();
  auto [ptr, ec] = std::from_chars(begin, end, v);
  // The whole text must be the number: "0x1a" is not 0 and "12abc" is not 12.
  if (ec != std::errc{} || ptr != end) return std::nullopt;
  return v;
}

std::vector<std::string> Sysfs::list(const std::string& rel) const {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(path(rel), ec), end; !ec && it != end; it.increment(ec))
    names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end(), natural_less);
  return names;
}

std::optional<std::string> Sysfs::link_name(const std::string& rel) const {
  std::error_code ec;
  fs::path target = fs::read_symlink(path(rel), ec);
  if (ec) return std::nullopt;
  return target.filename().string();
}

std::optional<fs::path> Sysfs::resolve(const std::string& rel) const {
  std::error_code ec;
  fs::path resolved = fs::canonical(path(rel), ec);
  if (ec) return std::nullopt;
  return resolved;
}

}  // namespace ibgpu
