#include "probes/collective/pattern.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "probes/collective/float16.h"

namespace ibgpu {

namespace {

constexpr std::uint64_t kSpread = 2654435761u;  // Knuth's multiplicative hash: element values jump around 1..m
constexpr unsigned kScales = 7;                 // prime, so scale and sign (period 3) never line up with m
constexpr unsigned kSignPeriod = 3;
constexpr std::array<double, kScales> kFloatScale{0.125, 0.25, 0.5, 1, 2, 4, 8};

std::uint64_t budget(DType type) {
  switch (type) {
    case DType::bf16:
      return std::uint64_t{1} << 8;
    case DType::f16:
      return std::uint64_t{1} << 11;
    case DType::f32:
    case DType::f64:
    case DType::i32:
      return std::uint64_t{1} << 24;
  }
  return 1;
}

// Walks elements first, first+1, ... without a division per element: checking
// a 16 GiB result on the host must not take minutes.
class Cursor {
 public:
  Cursor(DType type, int nranks, std::size_t first)
      : n_(static_cast<std::uint64_t>(nranks)),
        m_(budget(type) / n_),
        step_(kSpread % m_),
        b_((first % m_) * step_ % m_),
        full_cycles_(n_ / m_),
        tail_(n_ % m_),
        cycle_sum_(m_ * (m_ - 1) / 2),
        scale_(static_cast<unsigned>(first % kScales)),
        sign_(static_cast<unsigned>(first % kSignPeriod)) {}

  // v(r, i) for the current element.
  std::uint64_t value(std::uint64_t rank_offset) const {
    const std::uint64_t s = b_ + rank_offset;
    return 1 + (s >= m_ ? s - m_ : s);
  }

  // Sum of v(r, i) over r = 0..n-1: n + F(b + n) - F(b), F(x) = sum of (t mod m) for t < x.
  std::uint64_t sum() const {
    std::uint64_t s = b_ + tail_, cycles = full_cycles_;
    if (s >= m_) {
      s -= m_;
      ++cycles;
    }
    return n_ + cycles * cycle_sum_ + triangle(s) - triangle(b_);
  }

  unsigned scale() const { return scale_; }
  bool negative() const { return sign_ == kSignPeriod - 1; }

  void next() {
    b_ += step_;
    if (b_ >= m_) b_ -= m_;
    if (++scale_ == kScales) scale_ = 0;
    if (++sign_ == kSignPeriod) sign_ = 0;
  }

 private:
  static std::uint64_t triangle(std::uint64_t x) { return x == 0 ? 0 : x * (x - 1) / 2; }
  std::uint64_t n_, m_, step_, b_, full_cycles_, tail_, cycle_sum_;
  unsigned scale_, sign_;
};

// Writes sign * magnitude * 2^e(i) for `count` elements, magnitude from `magnitude(cursor)`.
template <class Magnitude>
void encode(DType type, int nranks, std::size_t count, void* out, std::size_t first, Magnitude magnitude) {
  check_pattern_fits(type, nranks);
  Cursor c(type, nranks, first);
  auto as_double = [&]() {
    const double d = static_cast<double>(magnitude(c)) * kFloatScale[c.scale()];
    return c.negative() ? -d : d;
  };
  switch (type) {
    case DType::f32: {
      auto* p = static_cast<float*>(out);
      for (std::size_t i = 0; i < count; ++i, c.next()) p[i] = static_cast<float>(as_double());
      break;
    }
    case DType::f64: {
      auto* p = static_cast<double*>(out);
      for (std::size_t i = 0; i < count; ++i, c.next()) p[i] = as_double();
      break;
    }
    case DType::f16: {
      auto* p = static_cast<std::uint16_t*>(out);
      for (std::size_t i = 0; i < count; ++i, c.next()) p[i] = float_to_half(static_cast<float>(as_double()));
      break;
    }
    case DType::bf16: {
      auto* p = static_cast<std::uint16_t*>(out);
      for (std::size_t i = 0; i < count; ++i, c.next()) p[i] = float_to_bfloat16(static_cast<float>(as_double()));
      break;
    }
    case DType::i32: {
      auto* p = static_cast<std::int32_t*>(out);
      for (std::size_t i = 0; i < count; ++i, c.next()) {
        const auto v = static_cast<std::int64_t>(magnitude(c) << c.scale());
        p[i] = static_cast<std::int32_t>(c.negative() ? -v : v);
      }
      break;
    }
  }
}

}  // namespace

std::int64_t max_pattern_ranks(DType type) { return static_cast<std::int64_t>(budget(type)); }

void check_pattern_fits(DType type, int nranks) {
  if (nranks < 1 || nranks > max_pattern_ranks(type))
    throw std::invalid_argument(std::string("exact ") + to_string(type) + " sums cannot be checked over " +
                                std::to_string(nranks) + " ranks (at most " + std::to_string(max_pattern_ranks(type)) +
                                "); use float, or skip the check");
}

void fill_pattern(DType type, int rank, int nranks, std::size_t count, void* out, std::size_t first) {
  if (rank < 0 || rank >= nranks)
    throw std::invalid_argument("fill_pattern: rank " + std::to_string(rank) + " outside 0.." +
                                std::to_string(nranks - 1));
  check_pattern_fits(type, nranks);
  const std::uint64_t offset = static_cast<std::uint64_t>(rank) % (budget(type) / static_cast<std::uint64_t>(nranks));
  encode(type, nranks, count, out, first, [offset](const Cursor& c) { return c.value(offset); });
}

void expected_sum(DType type, int nranks, std::size_t count, void* out, std::size_t first) {
  encode(type, nranks, count, out, first, [](const Cursor& c) { return c.sum(); });
}

std::uint64_t count_wrong(DType type, const void* got, const void* expected, std::size_t count) {
  const std::size_t size = dtype_size(type);
  const auto* g = static_cast<const unsigned char*>(got);
  const auto* e = static_cast<const unsigned char*>(expected);
  std::uint64_t wrong = 0;
  for (std::size_t i = 0; i < count; ++i)
    if (std::memcmp(g + i * size, e + i * size, size) != 0) ++wrong;
  return wrong;
}

std::uint64_t count_wrong(DType type, const void* got, int nranks, std::size_t count, std::size_t first) {
  constexpr std::size_t kBlock = 4096;
  const std::size_t size = dtype_size(type);
  std::vector<unsigned char> expected(kBlock * size);
  const auto* g = static_cast<const unsigned char*>(got);
  std::uint64_t wrong = 0;
  for (std::size_t done = 0; done < count;) {
    const std::size_t n = std::min(kBlock, count - done);
    expected_sum(type, nranks, n, expected.data(), first + done);
    wrong += count_wrong(type, g + done * size, expected.data(), n);
    done += n;
  }
  return wrong;
}

static_assert(std::endian::native == std::endian::little, "the fault hooks address bytes of little-endian values");

void flip_lowest_bit(DType type, void* data, std::size_t index) {
  // Little-endian: the first byte holds the lowest significand (or integer) bit.
  static_cast<unsigned char*>(data)[index * dtype_size(type)] ^= 1u;
}

void negate_element(DType type, void* data, std::size_t index) {
  auto* bytes = static_cast<unsigned char*>(data) + index * dtype_size(type);
  if (type == DType::i32) {
    std::int32_t v = 0;
    std::memcpy(&v, bytes, sizeof v);
    v = -v;
    std::memcpy(bytes, &v, sizeof v);
  } else {
    bytes[dtype_size(type) - 1] ^= 0x80u;  // the sign bit of an IEEE value
  }
}

}  // namespace ibgpu
