#pragma once
// Profiles from TOML files: parsing with strict checks (unknown keys, wrong
// types and inconsistent limits are errors naming file and line), and finding
// a profile by name. This is the only part of health/ that reads files; the
// CLI calls it before MPI starts so every rank fails alike.
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "health/profile.h"

namespace ibgpu {

class ProfileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses TOML text; `origin` names it in errors ("file:line: ..."). Throws ProfileError.
Profile parse_profile(const std::string& text, const std::string& origin);
Profile load_profile_file(const std::filesystem::path& path);

// Where `--profile NAME` looks, in order: $IBGPU_PROFILE_DIR, <exe dir>/../share/ibgpu/profiles,
// the source tree's profiles/. Missing directories are skipped.
std::vector<std::filesystem::path> profile_search_dirs(const std::filesystem::path& exe_dir);

// NAME (looked up as NAME.toml in `dirs`) or a path to a file (contains '/' or
// ends in .toml). `generic` falls back to the built-in profile when no file
// is found. Throws ProfileError.
Profile resolve_profile(const std::string& spec, const std::vector<std::filesystem::path>& dirs);

}  // namespace ibgpu
