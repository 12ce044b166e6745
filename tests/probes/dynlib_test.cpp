// The typed symbol table against a library every glibc host has (libm): found
// rows are filled, absent ones are nullptr, and only absent required rows are named.
#include "probes/dynlib.h"

#include <gtest/gtest.h>

namespace ibgpu {
namespace {

struct MathTable {
  double (*cos)(double) = nullptr;
  double (*sqrt)(double) = nullptr;
  double (*missing_required)(double) = nullptr;
  double (*missing_optional)(double) = nullptr;
  int (*also_missing)(int) = nullptr;
};

TEST(DynLib, ResolveFillsTheTableAndNamesTheMissingRequiredSymbols) {
  const DynLib lib({"libm.so.6"});
  ASSERT_TRUE(lib.ok()) << lib.error();
  MathTable t;
  t.missing_required = [](double x) { return x; };  // stale pointers are cleared
  const std::string missing = lib.resolve({{"cos", t.cos},
                                           {"sqrt", t.sqrt, Symbol::optional},
                                           {"ibgpu_no_such_symbol", t.missing_required},
                                           {"ibgpu_no_such_optional", t.missing_optional, Symbol::optional},
                                           {"ibgpu_also_missing", t.also_missing}});
  EXPECT_EQ(missing, "ibgpu_no_such_symbol, ibgpu_also_missing");
  ASSERT_NE(t.cos, nullptr);
  EXPECT_DOUBLE_EQ(t.cos(0.0), 1.0);
  ASSERT_NE(t.sqrt, nullptr);
  EXPECT_DOUBLE_EQ(t.sqrt(4.0), 2.0);
  EXPECT_EQ(t.missing_required, nullptr);
  EXPECT_EQ(t.missing_optional, nullptr);
  EXPECT_EQ(t.also_missing, nullptr);
}

TEST(DynLib, ResolveOnALibraryThatDidNotLoadNamesEveryRequiredSymbol) {
  const DynLib lib({"libibgpu_no_such_library.so"});
  EXPECT_FALSE(lib.ok());
  EXPECT_NE(lib.error().find("libibgpu_no_such_library.so"), std::string::npos) << lib.error();
  MathTable t;
  EXPECT_EQ(lib.resolve({{"cos", t.cos}, {"sqrt", t.sqrt, Symbol::optional}}), "cos");
  EXPECT_EQ(t.cos, nullptr);
}

TEST(DynLib, ResolveWithNothingMissingIsEmpty) {
  const DynLib lib({"libm.so.6"});
  MathTable t;
  EXPECT_EQ(lib.resolve({{"cos", t.cos}, {"sqrt", t.sqrt}}), "");
}

}  // namespace
}  // namespace ibgpu
