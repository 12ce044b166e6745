// Counts in words: the noun singular for one, plural otherwise, an irregular plural where given;
// text trimmed of white space.
#include "core/text.h"

#include <gtest/gtest.h>

#include <cstddef>

namespace ibgpu {
namespace {

TEST(CountText, TheNounIsSingularForOneAndPluralOtherwise) {
  EXPECT_EQ(count_text(1, "round"), "1 round");
  EXPECT_EQ(count_text(0, "round"), "0 rounds");
  EXPECT_EQ(count_text(3, "network round"), "3 network rounds");
  EXPECT_EQ(count_text(std::size_t{1}, "host"), "1 host");
  EXPECT_EQ(count_text(std::size_t{4096}, "host"), "4096 hosts");
  EXPECT_EQ(count_text(1, "re-test pass", "re-test passes"), "1 re-test pass");
  EXPECT_EQ(count_text(2, "re-test pass", "re-test passes"), "2 re-test passes");
  EXPECT_EQ(count_text(-1, "rank"), "-1 ranks");
}

TEST(Trim, DropsWhiteSpaceAtEitherEndOnly) {
  EXPECT_EQ(trim("  0-1 \t"), "0-1");
  EXPECT_EQ(trim(" Intel(R) Xeon(R)\r\n"), "Intel(R) Xeon(R)");
  EXPECT_EQ(trim("a b"), "a b");
  EXPECT_EQ(trim(" \t\n"), "");
  EXPECT_EQ(trim(""), "");
}

}  // namespace
}  // namespace ibgpu
