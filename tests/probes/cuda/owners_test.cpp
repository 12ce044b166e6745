// Every owner of a CUDA handle moves the same way: move-constructible and
// move-assignable without throwing, never copyable. Moving an empty owner is a
// no-op, so this runs on hosts without a GPU; releasing real handles is covered
// where a GPU exists (the NCCL and GPUDirect lanes).
#include <gtest/gtest.h>

#include <type_traits>

#include "probes/cuda/driver.h"
#include "probes/cuda/runtime.h"

namespace ibgpu {
namespace {

template <class Owner>
constexpr bool moves_like_an_owner() {
  return std::is_nothrow_move_constructible_v<Owner> && std::is_nothrow_move_assignable_v<Owner> &&
         !std::is_copy_constructible_v<Owner> && !std::is_copy_assignable_v<Owner> &&
         std::is_nothrow_destructible_v<Owner>;
}

static_assert(moves_like_an_owner<CudaBuffer>());
static_assert(moves_like_an_owner<CudaStream>());
static_assert(moves_like_an_owner<CudaEvent>());
static_assert(moves_like_an_owner<GpuMemory>());

template <class Owner>
void empty_owners_move() {
  Owner a;
  Owner b(std::move(a));
  a = std::move(b);
  a = Owner();
  a.reset();
}

TEST(CudaOwners, EmptyOwnersMoveAndResetWithoutALibrary) {
  empty_owners_move<CudaBuffer>();
  empty_owners_move<CudaStream>();
  empty_owners_move<CudaEvent>();
  empty_owners_move<GpuMemory>();
  CudaBuffer buffer;
  EXPECT_EQ(buffer.get(), nullptr);
  EXPECT_EQ(buffer.bytes(), 0u);
  GpuMemory memory;
  EXPECT_EQ(memory.address(), 0u);
  EXPECT_EQ(memory.bytes(), 0u);
}

}  // namespace
}  // namespace ibgpu
