#pragma once
// Element types of the collectives, named as nccl-tests names them so users
// can compare a run with theirs line by line.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ibgpu {

enum class DType { f32, f64, i32, f16, bf16 };

inline constexpr DType kAllDTypes[] = {DType::f32, DType::f64, DType::i32, DType::f16, DType::bf16};

// "float", "double", "int32", "half", "bfloat16" (nccl-tests' -d names).
const char* to_string(DType type);
std::size_t dtype_size(DType type);

// Case-insensitive; also accepts "f32", "float32", "fp32", "f64", "float64", "i32", "int",
// "f16", "float16", "fp16", "bf16".
std::optional<DType> dtype_from_string(const std::string& text);
// Throws std::invalid_argument naming the token and the accepted names.
DType parse_dtype(const std::string& text);

// Elements in a message of `bytes`. Throws std::invalid_argument when `bytes`
// is not a whole number of elements: rounding would silently measure another size.
std::size_t element_count(std::size_t bytes, DType type);
std::vector<std::size_t> element_counts(const std::vector<std::size_t>& bytes, DType type);

}  // namespace ibgpu
