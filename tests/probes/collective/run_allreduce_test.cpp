#include "probes/collective/run_allreduce.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/errors.h"
#include "probes/collective/pattern.h"

namespace ibgpu {
namespace {

// A one-rank "all-reduce" on host memory that really fills, reduces (a copy:
// one rank) and checks, with scripted times and failures.
class FakeBackend : public AllReduceBackend {
 public:
  std::string reason;                     // unavailable_reason()
  std::set<DType> cannot_sum;             // unsupported()
  std::map<std::size_t, double> time;     // seconds per iteration by count (default 1 ms)
  std::size_t timeout_at = SIZE_MAX;      // run_timed throws CollectiveTimeout at this count
  std::size_t error_at = SIZE_MAX;        // check throws CallError at this count
  std::map<std::size_t, double> check_s;  // check sleeps this long by count (untimed work, really spent)
  bool fail_prepare = false;
  std::vector<std::string> calls;

  std::string name() const override { return "fake"; }
  std::string unavailable_reason() override { return reason; }
  std::string unsupported(DType type, std::size_t) const override {
    return cannot_sum.count(type) ? std::string("no ") + to_string(type) + " here" : std::string();
  }
  std::string device() const override { return "dev:0"; }
  void prepare(std::size_t max_bytes, DType) override {
    calls.push_back("prepare " + std::to_string(max_bytes));
    if (fail_prepare) throw CallError("fakeMalloc", "out of memory");
    buffer_.resize(max_bytes);
  }
  double run_timed(bool in_place, std::size_t count, DType, int warmup, int iters) override {
    calls.push_back("time " + std::to_string(count) + (in_place ? " in" : " out") + " " + std::to_string(warmup) + "+" +
                    std::to_string(iters));
    if (count == timeout_at) throw CollectiveTimeout("fake all-reduce of " + std::to_string(count), Seconds(2));
    return time.count(count) ? time[count] : 1e-3;
  }
  std::uint64_t check(bool in_place, std::size_t count, DType type) override {
    calls.push_back("check " + std::to_string(count) + (in_place ? " in" : " out"));
    if (count == error_at) throw CallError("fakeCopy", "device lost");
    if (check_s.count(count)) std::this_thread::sleep_for(Seconds(check_s[count]));
    fill_pattern(type, 0, 1, count, buffer_.data());
    if (faults.corrupt_result_rank == 0 && count > 0) flip_lowest_bit(type, buffer_.data(), count / 2);
    return count_wrong(type, buffer_.data(), 1, count);
  }

 private:
  std::vector<unsigned char> buffer_;
};

World single_process() {
  World w;
  w.places = places_from_hosts({"node1"});
  return w;
}

AllReduceSettings small_sweep() {
  AllReduceSettings s;
  s.sizes = {1024, 65536};
  s.iters = 3;
  s.warmup = 1;
  s.timeout = Seconds(2);
  return s;
}

TEST(RunAllReduce, OneResultPerSizeAndMode) {
  FakeBackend backend;
  backend.time[256] = 1e-5;
  backend.time[16384] = 2e-4;
  const auto results = run_allreduce(backend, MPI_COMM_NULL, single_process(), small_sweep());
  ASSERT_EQ(results.size(), 4u);
  // The warmup runs alone first: its pace decides how many timed iterations fit the time cap.
  EXPECT_EQ(backend.calls,
            (std::vector<std::string>{"prepare 65536", "time 256 out 0+1", "time 256 out 0+3", "check 256 out",
                                      "time 256 in 0+1", "time 256 in 0+3", "check 256 in", "time 16384 out 0+1",
                                      "time 16384 out 0+3", "check 16384 out", "time 16384 in 0+1", "time 16384 in 0+3",
                                      "check 16384 in"}));
  const bool in_place[] = {false, true, false, true};
  const std::size_t bytes[] = {1024, 1024, 65536, 65536};
  for (std::size_t i = 0; i < results.size(); ++i) {
    const ProbeResult& r = results[i];
    EXPECT_EQ(r.id, "collective.fake.all_reduce");
    EXPECT_EQ(r.status, ProbeStatus::ok);
    EXPECT_EQ(r.params["in_place"], in_place[i]);
    EXPECT_EQ(r.params["size_B"], bytes[i]);
    EXPECT_EQ(r.params["count"], bytes[i] / 4);
    EXPECT_EQ(r.params["dtype"], "float");
    EXPECT_EQ(r.params["nranks"], 1);
    EXPECT_EQ(r.params["iters"], 3);
    EXPECT_EQ(r.params["warmup"], 1);
    EXPECT_FALSE(r.params.contains("time_capped_s"));
    EXPECT_EQ(r.scope.hosts, (std::vector<std::string>{"node1"}));
    EXPECT_EQ(r.metrics.at("wrong_elements").value, 0.0);
    EXPECT_EQ(r.metrics.at("busbw_GBps").value, 0.0);  // one rank: nothing crosses a link
  }
  EXPECT_DOUBLE_EQ(results[0].metrics.at("time_us").value.value(), 10);
  EXPECT_DOUBLE_EQ(results[0].metrics.at("algbw_GBps").value.value(), 1024 / 1e-5 / 1e9);
  EXPECT_DOUBLE_EQ(results[3].metrics.at("time_us_avg").value.value(), 200);
}

TEST(RunAllReduce, CorruptedRankReportsItselfFailed) {
  FakeBackend backend;
  backend.faults.corrupt_result_rank = 0;
  auto settings = small_sweep();
  settings.sizes = {4096};
  settings.in_place = false;
  const auto results = run_allreduce(backend, MPI_COMM_NULL, single_process(), settings);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, ProbeStatus::ok);
  EXPECT_EQ(results[0].metrics.at("wrong_elements_total").value, 1.0);
  EXPECT_EQ(results[0].metrics.at("wrong_ranks").value, 1.0);
  EXPECT_EQ(results[1].status, ProbeStatus::failed);
  EXPECT_EQ(results[1].scope.ranks, (std::vector<int>{0}));
  EXPECT_EQ(results[1].scope.devices, (std::vector<std::string>{"dev:0"}));
  EXPECT_EQ(results[1].metrics.at("wrong_elements").value, 1.0);
  EXPECT_NE(results[1].error->find("host node1 rank 0"), std::string::npos) << *results[1].error;
}

TEST(RunAllReduce, NoCheckNoWrongCounts) {
  FakeBackend backend;
  auto settings = small_sweep();
  settings.check = false;
  settings.out_of_place = false;
  const auto results = run_allreduce(backend, MPI_COMM_NULL, single_process(), settings);
  ASSERT_EQ(results.size(), 2u);
  for (const auto& r : results) {
    EXPECT_EQ(r.params["in_place"], true);
    EXPECT_FALSE(r.metrics.at("wrong_elements").value.has_value());
  }
  for (const auto& call : backend.calls) EXPECT_EQ(call.find("check"), std::string::npos) << call;
}

TEST(RunAllReduce, TimeoutEndsTheSweep) {
  FakeBackend backend;
  backend.timeout_at = 16384;
  const auto results = run_allreduce(backend, MPI_COMM_NULL, single_process(), small_sweep());
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[2].status, ProbeStatus::timeout);
  EXPECT_EQ(results[2].params["size_B"], 65536);
  EXPECT_EQ(results[2].params["in_place"], false);
  EXPECT_NE(results[2].error->find("no completion of fake all-reduce of 16384 within 2 s"), std::string::npos)
      << *results[2].error;
  EXPECT_EQ(backend.calls.back(), "time 16384 out 0+1");
}

// A slow size runs the iterations that fit its time cap, at least one, and says it was capped.
TEST(RunAllReduce, TimeCapFitsTheIterations) {
  FakeBackend backend;
  backend.time[16384] = 0.3;  // seconds per iteration, as the warmup finds it
  auto settings = small_sweep();
  settings.in_place = false;
  settings.iters = 50;
  settings.time_cap_s = 1.0;
  const auto results = run_allreduce(backend, MPI_COMM_NULL, single_process(), settings);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].params["iters"], 50);  // 1 ms per iteration: all 50 fit
  EXPECT_FALSE(results[0].params.contains("time_capped_s"));
  EXPECT_EQ(results[1].params["iters"], 2);  // (1 s - the first iteration's agreed 0.3 s) / 0.3 s
  EXPECT_EQ(results[1].params["time_capped_s"], 1.0);
  EXPECT_EQ(backend.calls.back(), "check 16384 out");
  EXPECT_EQ(backend.calls[backend.calls.size() - 2], "time 16384 out 0+2");

  settings.time_cap_s = 0.1;  // not even one iteration fits: one runs
  FakeBackend slow;
  slow.time[16384] = 0.3;
  const auto one = run_allreduce(slow, MPI_COMM_NULL, single_process(), settings);
  EXPECT_EQ(one[1].params["iters"], 1);
  EXPECT_EQ(one[1].params["time_capped_s"], 0.1);
}

// The first warmup iteration sets the pace: a size that fits runs the rest of its warmup and every
// iteration; one that does not ends its warmup there and runs what fits.
TEST(RunAllReduce, TheFirstWarmupIterationSetsThePace) {
  FakeBackend backend;
  backend.time[16384] = 0.3;
  auto settings = small_sweep();
  settings.in_place = false;
  settings.warmup = 5;
  settings.iters = 20;
  settings.time_cap_s = 2.0;
  const auto results = run_allreduce(backend, MPI_COMM_NULL, single_process(), settings);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(backend.calls,
            (std::vector<std::string>{"prepare 65536", "time 256 out 0+1", "time 256 out 4+20", "check 256 out",
                                      "time 16384 out 0+1", "time 16384 out 0+5", "check 16384 out"}));
  EXPECT_EQ(results[0].params["warmup"], 5);
  EXPECT_EQ(results[0].params["iters"], 20);
  EXPECT_EQ(results[1].params["warmup"], 1);  // 4 more warmup and 20 timed would take 7.2 s
  EXPECT_EQ(results[1].params["iters"], 5);   // what fits the 2 s after the first, at 0.3 s each
  EXPECT_EQ(results[1].params["time_capped_s"], 2.0);
}

// A size whose one iteration would take longer than the whole cap, at the pace of the size before,
// is not run: every rank has the same agreed pace, so every rank skips it.
TEST(RunAllReduce, ASizeThatCannotFitOneIterationIsSkipped) {
  FakeBackend backend;
  backend.time[256] = 0.01;  // 1 KiB in 10 ms: 64 KiB would take 0.64 s
  auto settings = small_sweep();
  settings.in_place = false;
  settings.time_cap_s = 0.5;
  const auto results = run_allreduce(backend, MPI_COMM_NULL, single_process(), settings);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, ProbeStatus::ok);
  EXPECT_EQ(results[1].status, ProbeStatus::skipped);
  EXPECT_EQ(results[1].params["size_B"], 65536);
  EXPECT_EQ(*results[1].reason,
            "not run: one iteration would take about 0.6 s at the pace measured so far, past the 0.5 s time cap");
  for (const auto& call : backend.calls) EXPECT_EQ(call.find("16384"), std::string::npos) << call;
}

// With a budget's end (check --budget): a case starts only if its time cap still fits before it.
// Every case is ibgpu's choice not run, said so, none of it timed.
TEST(RunAllReduce, NoCaseStartsPastTheBudgetsEnd) {
  FakeBackend backend;
  auto settings = small_sweep();
  settings.end = Clock::now() + std::chrono::milliseconds(200);  // less than the 0.5 s cap
  settings.time_cap_s = 0.5;
  const auto results = run_allreduce(backend, MPI_COMM_NULL, single_process(), settings);
  ASSERT_EQ(results.size(), 4u);
  for (const auto& r : results) {
    EXPECT_EQ(r.status, ProbeStatus::skipped);
    EXPECT_EQ(r.skipped_by, SkippedBy::ibgpu);
    // About 0.3 s past (0.5 s of cap, 0.2 s left), and more as the test's own time passes.
    EXPECT_TRUE(r.reason->starts_with("budget: not run, the budget would run out (the case would end about "))
        << *r.reason;
  }
  EXPECT_EQ(backend.calls, (std::vector<std::string>{"prepare 65536"}));
}

// The work outside the time cap (the buffers' first use, the first iteration, the check) grows with
// the size: at the last size's pace per byte, a 64 KiB case after a 1 KiB check of 50 ms needs
// 3.2 s more than its cap, which a budget's end 2 s away cannot hold. Without a budget it runs.
TEST(RunAllReduce, TheUntimedWorkOfTheLastSizeForetellsTheNext) {
  auto settings = small_sweep();
  settings.in_place = false;
  settings.time_cap_s = 0.5;
  FakeBackend unbudgeted;
  unbudgeted.check_s[256] = 0.05;
  for (const auto& r : run_allreduce(unbudgeted, MPI_COMM_NULL, single_process(), settings))
    EXPECT_EQ(r.status, ProbeStatus::ok);

  FakeBackend backend;
  backend.check_s[256] = 0.05;
  settings.end = Clock::now() + std::chrono::seconds(2);
  const auto results = run_allreduce(backend, MPI_COMM_NULL, single_process(), settings);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status, ProbeStatus::ok);
  EXPECT_EQ(results[1].status, ProbeStatus::skipped);
  EXPECT_EQ(results[1].params["size_B"], 65536);
  EXPECT_TRUE(results[1].reason->starts_with("budget: not run")) << *results[1].reason;
  EXPECT_EQ(backend.calls.back(), "check 256 out");
}

TEST(RunAllReduce, CallErrorEndsTheSweep) {
  FakeBackend backend;
  backend.error_at = 256;
  const auto results = run_allreduce(backend, MPI_COMM_NULL, single_process(), small_sweep());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, ProbeStatus::error);
  EXPECT_NE(results[0].error->find("fakeCopy: device lost"), std::string::npos) << *results[0].error;
  EXPECT_EQ(results[0].params.value("error_call", ""), "fakeCopy");  // what a group control reads (health/controls.h)
  EXPECT_EQ(results[0].scope.devices, (std::vector<std::string>{"dev:0"}));
}

TEST(RunAllReduce, UnavailableIsSkippedWithTheReason) {
  FakeBackend backend;
  backend.reason = "libfake.so.1 not found";
  const auto results = run_allreduce(backend, MPI_COMM_NULL, single_process(), small_sweep());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, ProbeStatus::skipped);
  EXPECT_EQ(results[0].reason, "libfake.so.1 not found");
  EXPECT_EQ(results[0].id, "collective.fake.all_reduce");
  EXPECT_TRUE(backend.calls.empty());  // nothing else attempted
}

TEST(RunAllReduce, PrepareFailureIsAnError) {
  FakeBackend backend;
  backend.fail_prepare = true;
  const auto results = run_allreduce(backend, MPI_COMM_NULL, single_process(), small_sweep());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, ProbeStatus::error);
  EXPECT_NE(results[0].error->find("fakeMalloc: out of memory"), std::string::npos);
  EXPECT_EQ(backend.calls.size(), 1u);
}

void expect_usage_error(FakeBackend& backend, const World& world, const AllReduceSettings& settings,
                        const std::string& fragment) {
  try {
    run_allreduce(backend, MPI_COMM_NULL, world, settings);
    ADD_FAILURE() << "no UsageError; expected one mentioning '" << fragment << "'";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
  EXPECT_TRUE(backend.calls.empty());
}

TEST(RunAllReduce, UsageErrorsComeBeforeAnyWork) {
  FakeBackend backend;
  auto s = small_sweep();
  s.sizes = {1024, 1026};
  expect_usage_error(backend, single_process(), s, "size 1026 B is not a multiple of the 4-byte float element");
  s = small_sweep();
  s.dtype = DType::bf16;
  backend.cannot_sum = {DType::bf16};
  expect_usage_error(backend, single_process(), s, "fake all-reduce: no bfloat16 here");
  backend.cannot_sum.clear();
  s = small_sweep();
  s.iters = 0;
  expect_usage_error(backend, single_process(), s, "iterations");
  s = small_sweep();
  s.sizes.clear();
  expect_usage_error(backend, single_process(), s, "no message sizes");
  s = small_sweep();
  s.in_place = s.out_of_place = false;
  expect_usage_error(backend, single_process(), s, "neither");

  // More ranks than exact bfloat16 sums allow (the check runs before any communication).
  std::vector<std::string> hosts(300, "n");
  World big;
  big.size = 300;
  big.places = places_from_hosts(hosts);
  s = small_sweep();
  s.dtype = DType::bf16;
  expect_usage_error(backend, big, s, "over 300 ranks (at most 256)");
}

}  // namespace
}  // namespace ibgpu
