#pragma once
// Correctness patterns for sum reductions, checked bit-exactly (nccl-tests
// convention: any wrong element is a hard failure of that GPU/collective).
//
// Element i of rank r holds  sign(i) * v(r, i) * 2^e(i)  with
//   v(r, i) = 1 + (r + i * 2654435761) mod m,  m = floor(B / nranks) >= 1 (an integer 1..m),
//   e(i)    = i mod 7 - 3 (floats: 2^-3 .. 2^3), i mod 7 for int32 (1 .. 64),
//   sign(i) = negative when i mod 3 == 2.
// Every rank uses the same sign and scale for an element, so the sum over any
// subset of ranks, in any order or grouping (ring, tree, NVLS, MPI's choice),
// is sign * (an integer <= nranks * m <= B) * 2^e. With B = 2^p for a type with
// a p-bit significand every such partial sum is exactly representable, even
// when the reduction rounds to the element type after each step:
//   bfloat16 B = 2^8  (at most 256 ranks)     half  B = 2^11 (at most 2048 ranks)
//   float, double, int32  B = 2^24 (at most 2^24 ranks; int32 sums stay below 2^30)
// All values are normal and finite (half: |sum| <= 2^14, >= 2^-3) and never 0,
// so the bits of the expected sum are unique (no -0/+0, no NaN). Any count is
// allowed; the pattern repeats. Every contribution is non-zero, so a dropped
// or duplicated one changes the sum; while nranks <= m the ranks at one element
// hold different values, so a swapped one does too; neighbouring elements
// almost never hold equal values, so a shifted chunk shows.
#include <cstddef>
#include <cstdint>

#include "probes/collective/dtype.h"

namespace ibgpu {

// The most ranks whose patterns still sum exactly in `type` (B above).
std::int64_t max_pattern_ranks(DType type);
// Throws std::invalid_argument when nranks is outside 1..max_pattern_ranks(type).
void check_pattern_fits(DType type, int nranks);

// Elements first .. first+count-1 of rank's input / of the expected sum, so
// large buffers can be built and checked in chunks. Throw as check_pattern_fits.
void fill_pattern(DType type, int rank, int nranks, std::size_t count, void* out, std::size_t first = 0);
void expected_sum(DType type, int nranks, std::size_t count, void* out, std::size_t first = 0);

// Elements of `got` whose bits differ from `expected`.
std::uint64_t count_wrong(DType type, const void* got, const void* expected, std::size_t count);
// Elements of `got` (elements first .. first+count-1 of the result) whose bits
// differ from expected_sum, built on the fly in small blocks.
std::uint64_t count_wrong(DType type, const void* got, int nranks, std::size_t count, std::size_t first = 0);

// Test hooks for fault injection.
// The smallest possible corruption: the lowest bit of element `index` flips.
void flip_lowest_bit(DType type, void* data, std::size_t index);
// Negates element `index`: as a rank's input, every rank's sum of that element
// is wrong (and still exact, so the error cannot round away).
void negate_element(DType type, void* data, std::size_t index);

}  // namespace ibgpu
