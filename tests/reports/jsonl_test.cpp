// The burn-in round stream: append, read back, survive a cut last line and a
// real SIGKILL of the writer.
#include "reports/jsonl.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "reports/json.h"
#include "tests/reports/golden.h"
#include "tests/reports/report_fixture.h"

namespace ibgpu {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Private to this process and test: other builds of these tests may run at the same time.
fs::path scratch_path(const std::string& name) {
  const fs::path path =
      fs::path(::testing::TempDir()) / ("ibgpu_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" + name);
  fs::remove_all(path);
  return path;
}

void append_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::app) << text;
}

json record(int i) { return json{{"record", "round"}, {"round", i}, {"payload", std::string(100, 'x')}}; }

TEST(Jsonl, AppendedRecordsReadBackInOrderOneLineEach) {
  const fs::path path = scratch_path("stream.jsonl");
  {
    JsonlWriter w = JsonlWriter::open(path.string());
    EXPECT_EQ(w.dropped_tail_bytes(), 0u);
    for (int i = 1; i <= 5; ++i) w.append(record(i));
  }
  const std::string text = golden::read_text(path);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 5);
  EXPECT_EQ(text.back(), '\n');
  const JsonlContents back = read_jsonl(path.string());
  ASSERT_EQ(back.records.size(), 5u);
  for (int i = 1; i <= 5; ++i) EXPECT_EQ(back.records[static_cast<std::size_t>(i - 1)], record(i));
  EXPECT_EQ(back.tail.incomplete_bytes, 0u);
  EXPECT_TRUE(back.tail.note.empty());
}

TEST(Jsonl, ReopeningAppendsAfterWhatIsThere) {
  const fs::path path = scratch_path("stream.jsonl");
  JsonlWriter::open(path.string()).append(record(1));
  JsonlWriter::open(path.string()).append(record(2));
  const JsonlContents back = read_jsonl(path.string());
  ASSERT_EQ(back.records.size(), 2u);
  EXPECT_EQ(back.records[1].at("round"), 2);
}

TEST(Jsonl, LineCutMidWriteIsSkippedWithANote) {
  const fs::path path = scratch_path("stream.jsonl");
  {
    JsonlWriter w = JsonlWriter::open(path.string());
    for (int i = 1; i <= 4; ++i) w.append(record(i));
  }
  const std::string full = golden::read_text(path);
  const std::size_t last_start = full.rfind('\n', full.size() - 2) + 1;
  const std::size_t cut = last_start + 37;  // inside the payload of record 4
  fs::resize_file(path, cut);
  const JsonlContents back = read_jsonl(path.string());
  ASSERT_EQ(back.records.size(), 3u);
  EXPECT_EQ(back.records[2].at("round"), 3);
  EXPECT_EQ(back.tail.incomplete_bytes, 37u);
  EXPECT_NE(back.tail.note.find(":4: skipped an incomplete last line (37 bytes"), std::string::npos) << back.tail.note;
}

TEST(Jsonl, WriterCutsAnIncompleteTailSoTheNextRecordStandsAlone) {
  const fs::path path = scratch_path("stream.jsonl");
  JsonlWriter::open(path.string()).append(record(1));
  append_text(path, "{\"record\":\"round\",\"rou");  // a writer killed mid-line
  JsonlWriter w = JsonlWriter::open(path.string());
  EXPECT_EQ(w.dropped_tail_bytes(), 22u);
  w.append(record(2));
  const JsonlContents back = read_jsonl(path.string());
  ASSERT_EQ(back.records.size(), 2u);
  EXPECT_EQ(back.records[1].at("round"), 2);
  EXPECT_EQ(back.tail.incomplete_bytes, 0u);
}

TEST(Jsonl, WriterCutsATailLongerThanOneReadChunk) {
  const fs::path path = scratch_path("stream.jsonl");
  JsonlWriter::open(path.string()).append(record(1));
  append_text(path, "{\"payload\":\"" + std::string(200000, 'y'));
  EXPECT_EQ(JsonlWriter::open(path.string()).dropped_tail_bytes(), 200012u);
  EXPECT_EQ(read_jsonl(path.string()).records.size(), 1u);
  EXPECT_EQ(fs::file_size(path), record(1).dump().size() + 1);
}

TEST(Jsonl, MalformedLineInTheMiddleIsAnErrorWithItsLineNumber) {
  const fs::path path = scratch_path("stream.jsonl");
  append_text(path, record(1).dump() + "\n\n" + "{\"record\": oops}\n" + record(3).dump() + "\n");
  try {
    read_jsonl(path.string());
    FAIL() << "a malformed middle line was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string() + ":3: malformed record"), std::string::npos) << e.what();
  }
}

TEST(Jsonl, RecordThatIsNotAnObjectIsAnError) {
  const fs::path path = scratch_path("stream.jsonl");
  append_text(path, record(1).dump() + "\n[1,2]\n");
  EXPECT_THROW(read_jsonl(path.string()), std::runtime_error);
}

TEST(Jsonl, BlankLinesAreSkipped) {
  const fs::path path = scratch_path("stream.jsonl");
  append_text(path, "\n" + record(1).dump() + "\n  \n" + record(2).dump() + "\n");
  std::vector<std::size_t> lines;
  for_each_jsonl(path.string(), [&](json&&, std::size_t line) { lines.push_back(line); });
  EXPECT_EQ(lines, (std::vector<std::size_t>{2, 4}));
}

TEST(Jsonl, OpenRefusesWhatItCannotAppendTo) {
  const fs::path dir = scratch_path("dir");
  fs::create_directories(dir);
  EXPECT_THROW(JsonlWriter::open(dir.string()), std::runtime_error);
  EXPECT_THROW(JsonlWriter::open((dir / "missing" / "x.jsonl").string()), std::runtime_error);
  EXPECT_THROW(JsonlWriter::open(""), std::runtime_error);
  try {
    JsonlWriter::open((dir / "missing" / "x.jsonl").string());
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "missing" / "x.jsonl").string()), std::string::npos) << e.what();
  }
  const fs::path fifo = scratch_path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    // O_RDWR does not block on a FIFO; it is refused as not a regular file.
    JsonlWriter::open(fifo.string());
    FAIL() << "a FIFO was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
  if (::geteuid() != 0) {  // root writes through permissions
    const fs::path locked = scratch_path("locked.jsonl");
    append_text(locked, "");
    fs::permissions(locked, fs::perms::owner_read);
    EXPECT_THROW(JsonlWriter::open(locked.string()), std::runtime_error);
  }
}

TEST(Jsonl, UnreadableFileIsAnError) {
  EXPECT_THROW(read_jsonl(scratch_path("nothing_here.jsonl").string()), std::runtime_error);
}

TEST(Jsonl, MovedFromWriterIsClosedAndTheMoveTargetWrites) {
  const fs::path path = scratch_path("stream.jsonl");
  JsonlWriter a = JsonlWriter::open(path.string());
  JsonlWriter b = std::move(a);
  EXPECT_THROW(a.append(record(1)), std::runtime_error);  // NOLINT(bugprone-use-after-move): on purpose
  b.append(record(2));
  EXPECT_EQ(read_jsonl(path.string()).records.size(), 1u);
}

// A writer SIGKILLed at a random moment: every line it finished is intact, and
// at most the line it was writing is cut. The child says through a pipe how
// many appends returned; the file holds that many, or one more whose report
// the kill pre-empted.
TEST(Jsonl, SigkillOfTheWriterLeavesEveryFinishedRecordIntact) {
  const fs::path path = scratch_path("killed.jsonl");
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    try {
      JsonlWriter w = JsonlWriter::open(path.string());
      // Large lines, so the kill often lands inside a write.
      const std::string payload(256 * 1024, 'z');
      for (int i = 1;; ++i) {
        w.append(json{{"record", "round"}, {"round", i}, {"payload", payload}});
        if (::write(pipe_fds[1], &i, sizeof i) != static_cast<ssize_t>(sizeof i)) ::_exit(3);
      }
    } catch (...) {
      ::_exit(2);
    }
  }
  ::close(pipe_fds[1]);
  int reported = 0, got = 0;
  while (reported < 6 && ::read(pipe_fds[0], &got, sizeof got) == static_cast<ssize_t>(sizeof got)) reported = got;
  ASSERT_EQ(reported, 6) << "the writer stopped before 6 appends";
  ::usleep(3000);  // let it get into the next write or two
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "status " << status;
  // Appends that returned before the kill, as far as the pipe got to say.
  while (::read(pipe_fds[0], &got, sizeof got) == static_cast<ssize_t>(sizeof got)) reported = got;
  ::close(pipe_fds[0]);

  const JsonlContents back = read_jsonl(path.string());
  ASSERT_GE(back.records.size(), static_cast<std::size_t>(reported));
  ASSERT_LE(back.records.size(), static_cast<std::size_t>(reported) + 1);
  for (std::size_t i = 0; i < back.records.size(); ++i) {
    EXPECT_EQ(back.records[i].at("round"), static_cast<int>(i) + 1);
    EXPECT_EQ(back.records[i].at("payload").get<std::string>().size(), 256u * 1024);
  }
  // The file is whole records plus at most one cut line.
  std::size_t whole = 0;
  for (const auto& r : back.records) whole += r.dump().size() + 1;
  EXPECT_EQ(fs::file_size(path), whole + back.tail.incomplete_bytes);
}

TEST(Jsonl, BurnInRecordsCarryTheWholeReport) {
  Report round = testing::sample_report();
  const json r = burn_in_round_record(7, round);
  EXPECT_EQ(r.at("record"), "round");
  EXPECT_EQ(r.at("round"), 7);
  EXPECT_EQ(r.at("report"), json(round));
  EXPECT_FALSE(r.at("report").contains("burn_in"));

  Report final_report = testing::sample_report();
  final_report.burn_in = BurnInStats{};
  final_report.burn_in->rounds = 20;
  const json s = burn_in_summary_record(final_report);
  EXPECT_EQ(s.at("record"), "summary");
  EXPECT_EQ(s.at("rounds"), 20);
  EXPECT_EQ(report_from_json(s.at("report")).burn_in->rounds, 20);

  const fs::path path = scratch_path("records.jsonl");
  {
    JsonlWriter w = JsonlWriter::open(path.string());
    w.append(r);
    w.append(s);
  }
  const JsonlContents back = read_jsonl(path.string());
  ASSERT_EQ(back.records.size(), 2u);
  EXPECT_EQ(json(report_from_json(back.records[0].at("report"))), json(round));
}

}  // namespace
}  // namespace ibgpu
