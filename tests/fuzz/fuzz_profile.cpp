// libFuzzer: a profile file as `--profile FILE` reads it (TOML through toml++, bounded first).
#include <cstddef>
#include <cstdint>
#include <string>

#include "health/profile_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)ibgpu::parse_profile(std::string(reinterpret_cast<const char*>(data), size), "fuzz.toml");
  } catch (const ibgpu::ProfileError&) {
  }
  return 0;
}
