#include "probes/collective/dtype.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <utility>

namespace ibgpu {

const char* to_string(DType type) {
  switch (type) {
    case DType::f32:
      return "float";
    case DType::f64:
      return "double";
    case DType::i32:
      return "int32";
    case DType::f16:
      return "half";
    case DType::bf16:
      return "bfloat16";
  }
  return "?";
}

std::size_t dtype_size(DType type) {
  switch (type) {
    case DType::f32:
      return 4;
    case DType::f64:
      return 8;
    case DType::i32:
      return 4;
    case DType::f16:
      return 2;
    case DType::bf16:
      return 2;
  }
  return 0;
}

std::optional<DType> dtype_from_string(const std::string& text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  static const std::pair<const char*, DType> kNames[] = {
      {"float", DType::f32},  {"f32", DType::f32},     {"float32", DType::f32}, {"fp32", DType::f32},
      {"double", DType::f64}, {"f64", DType::f64},     {"float64", DType::f64}, {"fp64", DType::f64},
      {"int32", DType::i32},  {"i32", DType::i32},     {"int", DType::i32},     {"half", DType::f16},
      {"f16", DType::f16},    {"float16", DType::f16}, {"fp16", DType::f16},    {"bfloat16", DType::bf16},
      {"bf16", DType::bf16},
  };
  for (const auto& [name, type] : kNames)
    if (lower == name) return type;
  return std::nullopt;
}

DType parse_dtype(const std::string& text) {
  if (auto type = dtype_from_string(text)) return *type;
  throw std::invalid_argument("unknown data type '" + text + "' (expected float, double, int32, half or bfloat16)");
}

std::size_t element_count(std::size_t bytes, DType type) {
  const std::size_t size = dtype_size(type);
  if (bytes % size != 0)
    throw std::invalid_argument("size " + std::to_string(bytes) + " B is not a multiple of the " +
                                std::to_string(size) + "-byte " + to_string(type) + " element");
  return bytes / size;
}

std::vector<std::size_t> element_counts(const std::vector<std::size_t>& bytes, DType type) {
  std::vector<std::size_t> counts;
  counts.reserve(bytes.size());
  for (std::size_t b : bytes) counts.push_back(element_count(b, type));
  return counts;
}

}  // namespace ibgpu
