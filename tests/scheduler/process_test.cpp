// Starting a program without a shell: argv as given, exit status and output
// kept, a missing program or a hang reported rather than waited for.
#include "scheduler/process.h"

#include <gtest/gtest.h>

#include <chrono>

namespace ibgpu {
namespace {

TEST(RunProcess, RecordsExitStatusAndOutput) {
  const ProcessOutcome out = run_process({"sh", "-c", "echo to-out; echo to-err >&2; exit 3"}, 10);
  EXPECT_TRUE(out.started);
  EXPECT_FALSE(out.timed_out);
  EXPECT_EQ(out.exit_code, 3);
  EXPECT_FALSE(out.ok());
  EXPECT_EQ(out.output, "to-out\nto-err\n");
  EXPECT_EQ(out.describe(), "exit 3");
  EXPECT_TRUE(run_process({"true"}, 10).ok());
}

TEST(RunProcess, ArgumentsArriveUnexpanded) {
  const std::vector<std::string> args{"$(id)", "`id`", "a b", "h1;rm -rf x", "*", "'\""};
  std::vector<std::string> argv{"printf", "<%s>"};
  argv.insert(argv.end(), args.begin(), args.end());
  const ProcessOutcome out = run_process(argv, 10);
  ASSERT_TRUE(out.ok()) << out.describe();
  EXPECT_EQ(out.output, "<$(id)><`id`><a b><h1;rm -rf x><*><'\">");
}

TEST(RunProcess, MissingProgramDoesNotStart) {
  const ProcessOutcome out = run_process({"ibgpu-no-such-program-here"}, 10);
  EXPECT_FALSE(out.started);
  EXPECT_FALSE(out.ok());
  EXPECT_NE(out.describe().find("could not start"), std::string::npos) << out.describe();
}

TEST(RunProcess, AHangIsKilledAtTheDeadline) {
  const auto started = std::chrono::steady_clock::now();
  // The child's own child holds the output pipe too: the whole group goes.
  const ProcessOutcome out = run_process({"sh", "-c", "sleep 30 & sleep 30"}, 0.5);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_TRUE(out.timed_out);
  EXPECT_FALSE(out.ok());
  EXPECT_LT(took, 5.0);
  EXPECT_NE(out.describe().find("timed out after 0.5 s"), std::string::npos) << out.describe();
}

TEST(RunProcess, ASignalIsNamed) {
  const ProcessOutcome out = run_process({"sh", "-c", "kill -KILL $$"}, 10);
  EXPECT_EQ(out.signal, 9);
  EXPECT_FALSE(out.exit_code.has_value());
  EXPECT_FALSE(out.ok());
}

}  // namespace
}  // namespace ibgpu
