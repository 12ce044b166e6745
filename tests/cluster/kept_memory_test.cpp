#include "cluster/kept_memory.h"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <vector>

namespace ibgpu {
namespace {

struct Watched {
  explicit Watched(bool& freed) : freed_(freed) {}
  ~Watched() { freed_ = true; }
  bool& freed_;
};

TEST(TransferMemory, FreedOnAnOrdinaryReturn) {
  bool freed = false;
  const std::size_t before = kept_until_exit_count();
  { TransferMemory<Watched> memory(freed); }
  EXPECT_TRUE(freed);
  EXPECT_EQ(kept_until_exit_count(), before);
}

TEST(TransferMemory, KeptWhenTheWaitGaveUp) {
  bool freed = false;
  const std::size_t before = kept_until_exit_count();
  {
    TransferMemory<Watched> memory(freed);
    memory.abandon();
  }
  EXPECT_FALSE(freed);  // MPI may still write into it: never freed
  EXPECT_EQ(kept_until_exit_count(), before + 1);
}

TEST(TransferMemory, KeptWhenUnwindingFromAThrow) {
  bool freed = false;
  const std::size_t before = kept_until_exit_count();
  try {
    TransferMemory<Watched> memory(freed);
    throw std::runtime_error("peer silent");
  } catch (const std::runtime_error&) {
  }
  EXPECT_FALSE(freed);
  EXPECT_EQ(kept_until_exit_count(), before + 1);
}

TEST(TransferMemory, MadeDuringAnotherUnwindIsFreedNormally) {
  // A destructor that runs while an exception is already in flight creates and returns
  // normally: that memory saw no failed wait.
  bool freed = false;
  struct Cleanup {
    bool& freed;
    ~Cleanup() { TransferMemory<Watched> memory(freed); }
  };
  try {
    Cleanup c{freed};
    throw std::runtime_error("x");
  } catch (const std::runtime_error&) {
  }
  EXPECT_TRUE(freed);
}

TEST(TransferMemory, TheDataStaysWhereMpiWasToldItIs) {
  TransferMemory<std::vector<char>> memory(1024, 'a');
  const char* where = memory->data();
  memory.abandon();
  EXPECT_EQ(where, memory->data());
  EXPECT_EQ((*memory)[1023], 'a');
}

}  // namespace
}  // namespace ibgpu
