#include "app/live_output.h"

#include <gtest/gtest.h>

#include "app/live_events.h"
#include "app/local_checks.h"
#include "tests/cluster/worlds.h"

namespace ibgpu {
namespace {

TEST(LiveStyle, QuietWinsThenTheOverrideThenTheTerminal) {
  EXPECT_EQ(live_style(true, true, "terminal"), LiveStyle::off);
  EXPECT_EQ(live_style(false, true, nullptr), LiveStyle::terminal);
  EXPECT_EQ(live_style(false, false, nullptr), LiveStyle::plain);
  EXPECT_EQ(live_style(false, false, "terminal"), LiveStyle::terminal);
  EXPECT_EQ(live_style(false, true, "plain"), LiveStyle::plain);
  EXPECT_EQ(live_style(false, true, "off"), LiveStyle::off);
  EXPECT_EQ(live_style(false, true, "bogus"), LiveStyle::terminal);  // ignored
}

TEST(RenderRoundRow, MeasuredWorstPairWithItsSizeAndLatency) {
  RoundRow row;
  row.label = "network";
  row.k = 3;
  row.total = 15;
  row.pairs = row.expected = 4;
  row.worst_pair = "h1-h3";
  row.worst_status = "ok";
  row.worst_bw_GBps = 1.2345;
  row.worst_size_B = 8 << 20;
  row.worst_lat_us = 35.25;
  row.judged = true;
  EXPECT_EQ(render_round_row(row),
            "network round 3/15 done: 4 pairs, worst h1-h3 1.23 GB/s at 8M, 35.2 us; no suspects so far");
  row.suspects = {"h1-h3", "h2-h3", "h3-h4", "h3-h5", "h3-h6"};
  EXPECT_EQ(render_round_row(row),
            "network round 3/15 done: 4 pairs, worst h1-h3 1.23 GB/s at 8M, 35.2 us; suspects so far 5: "
            "h1-h3, h2-h3, h3-h4, h3-h5, +1 more");
}

TEST(RenderRoundRow, FailedPairsMissingReportsAndNoRule) {
  RoundRow row;
  row.label = "re-test 1";
  row.k = 1;
  row.total = 2;
  row.pairs = 1;
  row.expected = 2;
  row.worst_pair = "a-b";
  row.worst_status = "timeout";
  EXPECT_EQ(render_round_row(row), "re-test 1 round 1/2 done: 1 pair of 2 reported, worst a-b timeout");
  row.worst_pair.clear();
  EXPECT_EQ(render_round_row(row), "re-test 1 round 1/2 done: 1 pair of 2 reported, nothing measured");
  // A host name from outside never carries an escape sequence to the terminal.
  row.worst_pair = "a\x1b[2J-b";
  row.worst_status = "error";
  EXPECT_EQ(render_round_row(row), "re-test 1 round 1/2 done: 1 pair of 2 reported, worst a\\x1b[2J-b error");
}

TEST(RenderAllReduce, ColumnsOfNcclTests) {
  const auto header = render_allreduce_header();
  ASSERT_EQ(header.size(), 3u);
  EXPECT_EQ(header[1],
            "        size        count   type  redop     time   algbw   busbw  #wrong     time   algbw   busbw  "
            "#wrong");
  EXPECT_EQ(header[2],
            "         (B)   (elements)                   (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)");
  AllReduceRow row;
  row.size_B = 262144;
  row.count = 65536;
  row.type = "float";
  row.out_of_place = AllReduceHalf{123.456, 2.12, 3.18, 0, "ok"};
  row.in_place = AllReduceHalf{12345.6, 0.021, 0.032, std::nullopt, "ok"};
  const std::string text = render_allreduce_row(row);
  EXPECT_EQ(text,
            "      262144        65536  float    sum   123.46    2.12    3.18       0    12346    0.02    0.03     "
            "N/A");
  // Every row lines up under the header: the same width, cells ending where the titles end.
  EXPECT_EQ(text.size(), header[1].size());
  EXPECT_EQ(header[0].find("out-of-place") + std::string("out-of-place").size(), header[1].find("#wrong") + 6);
  row.in_place.reset();
  row.out_of_place->status = "timeout";
  const std::string missing = render_allreduce_row(row);
  EXPECT_EQ(missing.size(), header[1].size());
  EXPECT_EQ(missing.substr(39), std::string(26, ' ') + "timeout" + "        -       -       -       -");
}

TEST(RenderLocalRow, CountsByStatusNamingWhatWasNotOk) {
  LocalRow row{"h2", {{"gpu.nvml.health", "skipped"}, {"node.kernel_log", "ok"}, {"gpu.cuda.copy_bw", "failed"}}};
  EXPECT_EQ(render_local_row(row),
            "local checks h2: 3 done: 1 ok, 1 failed (gpu.cuda.copy_bw), 1 skipped (gpu.nvml.health)");
  EXPECT_EQ(render_local_row(LocalRow{"h3", {}}), "local checks h3: 0 done (none ran)");
}

TEST(RenderProgress, ElapsedAndTheBudgetLeft) {
  EXPECT_EQ(render_progress({"local checks", 2.9, std::nullopt}), "local checks, 2 s elapsed");
  EXPECT_EQ(render_progress({"local checks", 0.000809, std::nullopt}), "local checks, 0 s elapsed");
  EXPECT_EQ(render_progress({"network round 2/3", 50.5, 120.0}),
            "network round 2/3, 50 s elapsed, 69 s left of the 2m budget");
  EXPECT_EQ(render_progress({"all-reduce", 130, 120.0}), "all-reduce, 2m 10s elapsed, 10 s past the 2m budget");
}

// A sink writing into a string, on a clock the test moves.
struct Captured {
  std::string text;
  double now = 100;
  LiveOutput sink(LiveStyle style) {
    return LiveOutput(
        style, [this](std::string_view s) { text += s; }, [this] { return now; });
  }
};

TEST(LiveOutputSink, TerminalRedrawsOneLineBelowTheRows) {
  Captured c;
  LiveOutput out = c.sink(LiveStyle::terminal);
  out.phase("local checks");
  EXPECT_EQ(c.text, "\r\033[Kibgpu: local checks, 0 s elapsed");
  c.text.clear();
  c.now = 101.5;
  out.row("local checks h1: 1 done: 1 ok");
  // The progress line is erased, the row written with its newline, the progress line redrawn.
  EXPECT_EQ(c.text, "\r\033[Kibgpu: local checks h1: 1 done: 1 ok\nibgpu: local checks, 1 s elapsed");
  c.text.clear();
  out.clear();
  EXPECT_EQ(c.text, "\r\033[K");
  c.text.clear();
  out.clear();  // nothing on screen: nothing to erase
  EXPECT_EQ(c.text, "");
  out.row("next");  // no progress line shown before it: no erase first
  EXPECT_EQ(c.text, "ibgpu: next\nibgpu: local checks, 1 s elapsed");
}

TEST(LiveOutputSink, PlainLinesWithoutControlCodesProgressThrottled) {
  Captured c;
  LiveOutput out = c.sink(LiveStyle::plain);
  out.budget(100, 60);
  out.phase("network round 1/3");
  c.now = 101;
  out.phase("network round 2/3");  // within the interval: not shown
  out.row("network round 1/3 done: 1 pair, worst a-b 1 GB/s at 1M");
  c.now = 104.9;
  out.tick();
  c.now = 105;
  out.phase("network round 3/3");  // the interval has passed
  out.tick();
  out.clear();
  EXPECT_EQ(c.text,
            "ibgpu: network round 1/3, 0 s elapsed, 60 s left of the 60 s budget\n"
            "ibgpu: network round 1/3 done: 1 pair, worst a-b 1 GB/s at 1M\n"
            "ibgpu: network round 3/3, 5 s elapsed, 55 s left of the 60 s budget\n");
}

TEST(LiveOutputSink, OffSaysNothing) {
  Captured c;
  LiveOutput out = c.sink(LiveStyle::off);
  out.phase("x");
  out.row("y");
  out.tick();
  out.clear();
  EXPECT_EQ(c.text, "");
}

// The channel a step is handed: what the step reports reaches the channel's output, and a
// channel that is off (a test, --quiet) takes every call and says nothing.
TEST(LiveChannel, AStepReportsThroughTheChannelItIsHanded) {
  Captured c;
  LiveChannel live(std::make_unique<LiveOutput>(c.sink(LiveStyle::plain)));
  HostInventory host;
  host.name = "h1";
  EXPECT_TRUE(run_local_checks(host, LocalSkips{{"gpu", "node"}}, live).empty());
  EXPECT_EQ(c.text, "ibgpu: local checks h1: 0 done (none ran)\n");
  ProbeResult xid;
  xid.id = kKernelLogProbe;
  xid.status = ProbeStatus::ok;
  live.local_done("h2", {xid});
  EXPECT_EQ(c.text.substr(c.text.find('\n') + 1), "ibgpu: local checks h2: 1 done: 1 ok\n");
  ASSERT_NE(live.book(), nullptr);

  LiveChannel off;
  EXPECT_EQ(off.book(), nullptr);
  off.phase("network");
  off.local_done("h3", {xid});
  off.pump();
  off.end();
  EXPECT_TRUE(run_local_checks(host, LocalSkips{{"gpu", "node"}}, off).empty());
}

ProbeResult pair(const char* id, const std::string& a, const std::string& b, ProbeStatus status, int size,
                 std::optional<double> bw, std::optional<double> lat = std::nullopt) {
  ProbeResult p;
  p.id = id;
  p.status = status;
  p.scope.hosts = {a, b};
  p.params["size_B"] = size;
  if (bw) p.metrics["bw_avg_GBps"] = Metric::of(*bw);
  if (lat) p.metrics["lat_us"] = Metric::of(*lat);
  return p;
}

TEST(RoundRowFromResults, TheLowestBandwidthAtTheLargestSize) {
  // h1-h2 is slower at 64K but faster at 1M, the size that counts.
  const std::vector<ProbeResult> results{
      pair(kMpiBwProbe, "h1", "h2", ProbeStatus::ok, 65536, 0.1),
      pair(kMpiBwProbe, "h1", "h2", ProbeStatus::ok, 1 << 20, 2.0),
      pair(kMpiLatProbe, "h1", "h2", ProbeStatus::ok, 8, std::nullopt, 4.0),
      pair(kMpiBwProbe, "h3", "h4", ProbeStatus::ok, 65536, 0.5),
      pair(kMpiBwProbe, "h3", "h4", ProbeStatus::ok, 1 << 20, 1.5),
      pair(kMpiLatProbe, "h3", "h4", ProbeStatus::ok, 8, std::nullopt, 9.0),
  };
  const RoundRow row = round_row(results);
  EXPECT_EQ(row.pairs, 2u);
  EXPECT_EQ(row.worst_pair, "h3-h4");
  EXPECT_EQ(row.worst_bw_GBps, 1.5);
  EXPECT_EQ(row.worst_size_B, std::size_t{1} << 20);
  EXPECT_EQ(row.worst_lat_us, 9.0);
}

TEST(RoundRowFromResults, AFailedPairBeforeAnySlowOneSkippedLast) {
  std::vector<ProbeResult> results{pair(kMpiBwProbe, "h1", "h2", ProbeStatus::ok, 1 << 20, 0.01),
                                   pair(kMpiBwProbe, "h5", "h6", ProbeStatus::skipped, 1 << 20, std::nullopt),
                                   pair(kMpiBwProbe, "h3", "h4", ProbeStatus::timeout, 1 << 20, std::nullopt)};
  RoundRow row = round_row(results);
  EXPECT_EQ(row.pairs, 3u);
  EXPECT_EQ(row.worst_pair, "h3-h4");
  EXPECT_EQ(row.worst_status, "timeout");
  results.erase(results.begin() + 2);
  EXPECT_EQ(round_row(results).worst_pair, "h1-h2");
  results.erase(results.begin());
  EXPECT_EQ(round_row(results).worst_pair, "");  // only a skipped pair: nothing measured
}

TEST(LiveBookRounds, ARoundIsPrintedOnceEveryPairReportedInAnyOrder) {
  Captured c;
  LiveOutput out = c.sink(LiveStyle::plain);
  LiveBook book(out);
  std::vector<std::vector<ProbeResult>> seen;
  book.set_suspect_rule([&](const std::vector<ProbeResult>& all) {
    seen.push_back(all);
    std::vector<std::string> slow;
    for (const auto& p : all)
      if (typical(p, "bw_avg_GBps").value_or(9) < 1) slow.push_back(p.scope.hosts[0] + "-" + p.scope.hosts[1]);
    return slow;
  });
  const World w = testing::mpi_world({"h1", "h2", "h3", "h4"});
  const std::vector<RankRound> rounds{{{0, 1}, {2, 3}}, {{0, 2}, {1, 3}}};
  book.rounds_planned(w, "network", 5, rounds);
  book.pair_reported(6, {pair(kMpiBwProbe, "h1", "h3", ProbeStatus::ok, 1 << 20, 0.5)});
  book.pair_reported(5, {pair(kMpiBwProbe, "h3", "h4", ProbeStatus::ok, 1 << 20, 3)});
  EXPECT_EQ(c.text, "");  // neither round is whole yet
  book.pair_reported(6, {pair(kMpiBwProbe, "h2", "h4", ProbeStatus::ok, 1 << 20, 2)});
  EXPECT_EQ(c.text, "ibgpu: network round 2/2 done: 2 pairs, worst h1-h3 0.5 GB/s at 1M; suspects so far 1: h1-h3\n");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].size(), 3u);  // every pair result so far, not only this round's
  c.text.clear();
  book.pair_reported(99, {pair(kMpiBwProbe, "h1", "h2", ProbeStatus::ok, 1 << 20, 1)});  // no such round
  EXPECT_EQ(c.text, "");
  // h1's rank never reports round 1: the flush says what came.
  book.flush_rounds();
  EXPECT_EQ(c.text,
            "ibgpu: network round 1/2 done: 1 pair of 2 reported, worst h3-h4 3 GB/s at 1M; suspects so far 1: "
            "h1-h3\n");
  c.text.clear();
  book.flush_rounds();  // once only
  book.pair_reported(5, {});
  EXPECT_EQ(c.text, "");
}

ProbeResult allreduce_case(std::size_t size, bool in_place, double time_us) {
  ProbeResult p;
  p.id = "collective.mpi.all_reduce";
  p.params = {{"size_B", size}, {"count", size / 4}, {"dtype", "float"}, {"in_place", in_place}};
  p.metrics["time_us_avg"] = Metric::of(time_us);
  p.metrics["algbw_GBps"] = Metric::of(static_cast<double>(size) / time_us / 1e3);
  p.metrics["busbw_GBps"] = Metric::of(1.5 * static_cast<double>(size) / time_us / 1e3);
  p.metrics["wrong_elements_total"] = Metric::of(0);
  return p;
}

TEST(LiveBookAllReduce, ARowPerSizeBothHalvesInOne) {
  Captured c;
  LiveOutput out = c.sink(LiveStyle::plain);
  LiveBook book(out);
  book.allreduce_started("all-reduce mpi job (job, 4 ranks)", true, true, 4);
  c.text.clear();  // the title, the header and a progress line
  book.allreduce_case(allreduce_case(4096, false, 10), 1);
  EXPECT_EQ(c.text, "");  // waits for its in-place half
  book.allreduce_case(allreduce_case(4096, true, 20), 2);
  book.allreduce_case(allreduce_case(1 << 20, false, 100), 3);
  book.allreduce_done();  // the in-place half never came (a timeout): the row as it is
  EXPECT_EQ(c.text,
            "ibgpu:         4096         1024  float    sum    10.00    0.41    0.61       0    20.00    0.20    0.31  "
            "     0\n"
            "ibgpu:      1048576       262144  float    sum   100.00   10.49   15.73       0        -       -       -  "
            "     -\n");
  c.text.clear();
  book.allreduce_started("all-reduce mpi node (a, 2 ranks)", true, false, 1);  // out-of-place only
  c.text.clear();
  book.allreduce_case(allreduce_case(4096, false, 10), 1);
  EXPECT_EQ(c.text.substr(0, 20), "ibgpu:         4096 ");
}

}  // namespace
}  // namespace ibgpu
