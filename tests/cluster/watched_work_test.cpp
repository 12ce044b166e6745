#include "cluster/watched_work.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>

#include "cluster/kept_memory.h"

namespace ibgpu {
namespace {

TEST(WatchedWork, WorkThatReturnsInTimeIsWaitedFor) {
  auto ran = std::make_shared<int>(0);
  EXPECT_TRUE(run_watched([ran](const std::atomic<bool>&) { *ran = 42; }, Seconds(30)));
  EXPECT_EQ(*ran, 42);  // written by the work thread, read after it was joined
}

TEST(WatchedWork, WhatTheWorkThrowsIsRethrownHere) {
  EXPECT_THROW(
      run_watched([](const std::atomic<bool>&) { throw std::runtime_error("MPI_Allreduce failed"); }, Seconds(30)),
      std::runtime_error);
}

TEST(WatchedWork, WorkPastTheLimitIsGivenUpOnAndTold) {
  // The work runs on past the limit (as a blocking call with a stopped peer would), and learns
  // it was given up on when it looks.
  auto told = std::make_shared<std::atomic<bool>>(false);
  const std::size_t abandoned = abandoned_requests();
  const auto start = Clock::now();
  const bool returned = run_watched(
      [told](const std::atomic<bool>& given_up) {
        while (!given_up) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        *told = true;
      },
      Seconds(0.05));
  EXPECT_FALSE(returned);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(20));  // not waited for until the end
  EXPECT_EQ(abandoned_requests(), abandoned + 1);             // the process will end with an abort
  for (int i = 0; i < 2000 && !*told; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(*told);
}

}  // namespace
}  // namespace ibgpu
