#pragma once
// Read-only access to a sysfs tree under a configurable root (`--sysfs-root`),
// so tests drive the parsers with fixture trees copied in real format.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ibgpu {

class Sysfs {
 public:
  explicit Sysfs(std::filesystem::path root = "/sys") : root_(std::move(root)) {}

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path path(const std::string& rel) const { return root_ / rel; }
  bool exists(const std::string& rel) const;
  // File contents with trailing whitespace removed; nullopt if unreadable.
  std::optional<std::string> read(const std::string& rel) const;
  std::optional<long long> read_int(const std::string& rel) const;
  // Entry names of a directory, sorted naturally (mlx5_2 before mlx5_10); empty if missing.
  std::vector<std::string> list(const std::string& rel) const;
  // Last path component of a symlink's target (e.g. the PCI address behind `device`).
  std::optional<std::string> link_name(const std::string& rel) const;
  // The resolved absolute target of a symlink, relative links resolved against the root.
  std::optional<std::filesystem::path> resolve(const std::string& rel) const;

 private:
  std::filesystem::path root_;
};

}  // namespace ibgpu
