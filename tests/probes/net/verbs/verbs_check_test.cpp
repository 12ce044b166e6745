#include "probes/net/verbs/verbs_check.h"

#include <gtest/gtest.h>

#include <chrono>

#include "probes/cuda/driver.h"
#include "probes/net/verbs/pair_link.h"
#include "probes/net/verbs/verbs_handles.h"

namespace ibgpu::verbs {
namespace {

TEST(CheckRc, ReturnedErrnoNamesTheCall) {
  EXPECT_NO_THROW(check_rc(0, "ibv_modify_qp"));
  try {
    check_rc(EINVAL, "ibv_modify_qp(RTR)");
    FAIL() << "expected CallError";
  } catch (const CallError& e) {
    EXPECT_EQ(e.call(), "ibv_modify_qp(RTR)");
    EXPECT_EQ(e.detail(), "Invalid argument (errno 22)");
  }
}

TEST(CheckRc, MinusOneReadsErrno) {
  errno = EPERM;
  try {
    check_rc(-1, "ibv_post_send");
    FAIL() << "expected CallError";
  } catch (const CallError& e) {
    EXPECT_EQ(e.detail(), "Operation not permitted (errno 1)");
  }
}

TEST(CheckPtr, NullReadsErrno) {
  int value = 0;
  EXPECT_EQ(check_ptr(&value, "ibv_create_cq"), &value);
  errno = ENOMEM;
  try {
    check_ptr(static_cast<ibv_cq*>(nullptr), "ibv_create_cq");
    FAIL() << "expected CallError";
  } catch (const CallError& e) {
    EXPECT_EQ(e.call(), "ibv_create_cq");
    EXPECT_EQ(e.detail(), "Cannot allocate memory (errno 12)");
  }
}

TEST(CheckCompletion, BadStatusIsNamedWithThePeer) {
  ibv_wc wc{};
  wc.status = IBV_WC_SUCCESS;
  EXPECT_NO_THROW(check_completion(wc, "host b rank 1"));
  wc.status = IBV_WC_RETRY_EXC_ERR;
  wc.vendor_err = 0x81;
  wc.wr_id = 42;
  try {
    check_completion(wc, "host b rank 1");
    FAIL() << "expected CallError";
  } catch (const CallError& e) {
    EXPECT_EQ(e.call(), "ibv_poll_cq");
    EXPECT_EQ(e.detail(), std::string(ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR)) +
                              " (status 12, vendor error 0x81) on work request 42, peer host b rank 1");
  }
}

int g_released = 0;
int fake_release(int*) { return ++g_released, 0; }

TEST(Owned, ReleasesOnceAndMovesOwnership) {
  g_released = 0;
  int a = 0;
  {
    Owned<int, &fake_release> first(&a);
    Owned<int, &fake_release> second(std::move(first));
    EXPECT_FALSE(first);
    EXPECT_EQ(second.get(), &a);
    Owned<int, &fake_release> third;
    third = std::move(second);
    EXPECT_EQ(g_released, 0);
  }
  EXPECT_EQ(g_released, 1);
}

TEST(HostMemory, PageAlignedAndZeroed) {
  const HostMemory memory(100);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(memory.data()) % page_size(), 0u);
  EXPECT_EQ(memory.bytes(), page_size());
  EXPECT_EQ(memory.data()[99], 0);
}

TEST(Waiter, SilentPeerEndsTheWaitWithItsName) {
  PairContext ctx;
  ctx.peer = 3;
  ctx.peer_host = "node7";
  ctx.timeout = Seconds(0.02);
  Waiter waiter(ctx, "write completion");
  const auto start = std::chrono::steady_clock::now();
  try {
    for (;;) waiter.tick();
  } catch (const WaitExpired& e) {
    EXPECT_STREQ(e.what(), "no write completion from host node7 rank 3 within 0.02 s");
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(GpuMemory, WithoutDriverTheProbeIsSkippedWithTheReason) {
  try {
    GpuMemory memory(4096);
    EXPECT_NE(memory.address(), 0u);
    GTEST_SKIP() << "a CUDA driver and GPU exist here";
  } catch (const GpuUnavailable& e) {
    EXPECT_STREQ(e.what(), "libcuda.so.1 not found: no GPU memory on this host");
  } catch (const CallError& e) {
    GTEST_SKIP() << "libcuda.so.1 loads but has no usable GPU: " << e.what();
  }
}

}  // namespace
}  // namespace ibgpu::verbs
