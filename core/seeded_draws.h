#pragma once
// Seeded draws that depend only on what they are drawn for: the fleet simulator's measurements
// (app/fleet_sim.cpp) and the power model's noise-only fleets (health/power.cpp) draw from them, so
// a seed gives the same numbers on every machine (std:: distributions differ between standard
// libraries).
#include <cstdint>

namespace ibgpu {

// splitmix64's finaliser, of x advanced by the golden-ratio increment.
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The top 53 bits of a draw as a number in [0, 1).
inline double unit_interval(std::uint64_t h) { return static_cast<double>(h >> 11) * 0x1.0p-53; }

}  // namespace ibgpu
