#include "probes/collective/dtype.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace ibgpu {
namespace {

TEST(DType, NamesAndSizesFollowNcclTests) {
  EXPECT_STREQ(to_string(DType::f32), "float");
  EXPECT_STREQ(to_string(DType::f64), "double");
  EXPECT_STREQ(to_string(DType::i32), "int32");
  EXPECT_STREQ(to_string(DType::f16), "half");
  EXPECT_STREQ(to_string(DType::bf16), "bfloat16");
  EXPECT_EQ(dtype_size(DType::f32), 4u);
  EXPECT_EQ(dtype_size(DType::f64), 8u);
  EXPECT_EQ(dtype_size(DType::i32), 4u);
  EXPECT_EQ(dtype_size(DType::f16), 2u);
  EXPECT_EQ(dtype_size(DType::bf16), 2u);
}

TEST(DType, CanonicalNamesReadBack) {
  for (DType type : kAllDTypes) EXPECT_EQ(dtype_from_string(to_string(type)), type) << to_string(type);
}

TEST(DType, AliasesAndCase) {
  EXPECT_EQ(dtype_from_string("FLOAT"), DType::f32);
  EXPECT_EQ(dtype_from_string("fp32"), DType::f32);
  EXPECT_EQ(dtype_from_string("float32"), DType::f32);
  EXPECT_EQ(dtype_from_string("f64"), DType::f64);
  EXPECT_EQ(dtype_from_string("Float64"), DType::f64);
  EXPECT_EQ(dtype_from_string("int"), DType::i32);
  EXPECT_EQ(dtype_from_string("i32"), DType::i32);
  EXPECT_EQ(dtype_from_string("fp16"), DType::f16);
  EXPECT_EQ(dtype_from_string("float16"), DType::f16);
  EXPECT_EQ(dtype_from_string("BF16"), DType::bf16);
  EXPECT_EQ(dtype_from_string("bfloat16"), DType::bf16);
  EXPECT_EQ(dtype_from_string("int8"), std::nullopt);
  EXPECT_EQ(dtype_from_string(""), std::nullopt);
  EXPECT_EQ(dtype_from_string("float "), std::nullopt);
}

TEST(DType, ParseNamesTheBadToken) {
  EXPECT_EQ(parse_dtype("half"), DType::f16);
  try {
    parse_dtype("quad");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("'quad'"), std::string::npos) << text;
    EXPECT_NE(text.find("bfloat16"), std::string::npos) << text;
  }
}

TEST(ElementCount, WholeElements) {
  EXPECT_EQ(element_count(0, DType::f32), 0u);
  EXPECT_EQ(element_count(4, DType::f32), 1u);
  EXPECT_EQ(element_count(std::size_t{1} << 30, DType::f64), std::size_t{1} << 27);
  EXPECT_EQ(element_count(6, DType::f16), 3u);
  EXPECT_EQ(element_count(std::size_t{16} << 30, DType::bf16), std::size_t{8} << 30);
  EXPECT_EQ(element_counts({8, 64, 1024}, DType::i32), (std::vector<std::size_t>{2, 16, 256}));
}

TEST(ElementCount, RefusesPartialElementsWithAClearMessage) {
  try {
    element_count(1001, DType::f32);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "size 1001 B is not a multiple of the 4-byte float element");
  }
  EXPECT_THROW(element_count(2, DType::f32), std::invalid_argument);
  EXPECT_THROW(element_count(12, DType::f64), std::invalid_argument);
  EXPECT_THROW(element_count(1, DType::bf16), std::invalid_argument);
  EXPECT_THROW(element_counts({8, 9}, DType::f16), std::invalid_argument);
}

}  // namespace
}  // namespace ibgpu
