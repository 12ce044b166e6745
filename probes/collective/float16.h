#pragma once
// IEEE binary16 ("half") and bfloat16 encodings on the host, without CUDA
// headers: correctness patterns are built and checked on the CPU. Both
// conversions from float round to nearest, ties to even, as the GPU does.
#include <cstdint>

namespace ibgpu {

std::uint16_t float_to_half(float value);  // overflow -> inf, NaN stays NaN (quiet)
float half_to_float(std::uint16_t bits);   // exact: every half is a float
std::uint16_t float_to_bfloat16(float value);
float bfloat16_to_float(std::uint16_t bits);  // exact

}  // namespace ibgpu
