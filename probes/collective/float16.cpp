#include "probes/collective/float16.h"

#include <bit>
#include <cmath>

namespace ibgpu {

namespace {

// Drops the low `shift` bits of `value`, rounding to nearest with ties to even.
std::uint32_t round_shift(std::uint32_t value, unsigned shift) {
  const std::uint32_t kept = value >> shift;
  const std::uint32_t rest = value & ((1u << shift) - 1);
  const std::uint32_t halfway = 1u << (shift - 1);
  return kept + ((rest > halfway || (rest == halfway && (kept & 1u))) ? 1u : 0u);
}

}  // namespace

std::uint16_t float_to_half(float value) {
  const auto x = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t exponent = (x >> 23) & 0xffu;
  const std::uint32_t mantissa = x & 0x7fffffu;
  if (exponent == 0xffu)  // inf, or NaN kept quiet so a payload in the low bits cannot turn it into inf
    return static_cast<std::uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u | (mantissa >> 13) : 0u));
  const int e = static_cast<int>(exponent) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    // A half subnormal counts units of 2^-24: the 24-bit significand shifts right by 14 - e.
    // e < -10 is a value below 2^-25, under half the smallest subnormal: it rounds to zero.
    if (e < -10) return sign;
    const std::uint32_t significand = mantissa | 0x800000u;
    return static_cast<std::uint16_t>(sign | round_shift(significand, static_cast<unsigned>(14 - e)));
  }
  // A carry out of the mantissa bumps the exponent, up to inf: that is the right rounding too.
  const std::uint32_t bits = (static_cast<std::uint32_t>(e) << 23) | mantissa;
  return static_cast<std::uint16_t>(sign | round_shift(bits, 13));
}

float half_to_float(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1fu;
  const std::uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

std::uint16_t float_to_bfloat16(float value) {
  const auto x = std::bit_cast<std::uint32_t>(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  return static_cast<std::uint16_t>(round_shift(x, 16));  // the sign rides along; a carry can reach inf, never the sign
}

float bfloat16_to_float(std::uint16_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }

}  // namespace ibgpu
