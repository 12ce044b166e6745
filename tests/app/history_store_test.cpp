// The history folder (app/history_store.h) on a real file system: records kept and read back, a
// line cut short by a crash, rotation, two writers at once, and a root process that follows no
// symlink and replaces nothing it did not create.
#include "app/history_store.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace ibgpu {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    char name[] = "/tmp/ibgpu-history-XXXXXX";
    path = ::mkdtemp(name);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string str() const { return path.string(); }
};

CheckRecord record(std::int64_t time, HealthState state = HealthState::healthy) {
  return {time, "run" + std::to_string(time), state, Action::admit, {}};
}

std::string text_of(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(HistoryStore, RecordsAreKeptPerNodeAndReadBackOldestFirst) {
  TempDir d;
  EXPECT_EQ(history_dir_problem(d.str() + "/new/hist"), "");  // created, parents too
  const std::string dir = d.str() + "/new/hist";
  EXPECT_TRUE(append_history(dir, {{"h1", record(20, HealthState::failed)}, {"h2", record(20)}}).empty());
  EXPECT_TRUE(append_history(dir, {{"h1", record(10)}}).empty());
  const HistoryRead read = read_history(dir, {"h1", "h2", "h3"});
  EXPECT_TRUE(read.notes.empty());
  ASSERT_EQ(read.past.at("h1").size(), 2u);
  EXPECT_EQ(read.past.at("h1")[0].time, 10);
  EXPECT_EQ(read.past.at("h1")[1].state, HealthState::failed);
  EXPECT_EQ(read.past.at("h2").size(), 1u);
  EXPECT_EQ(read.past.count("h3"), 0u);          // no file: no checks, no note
  EXPECT_EQ(read_history(dir).past.size(), 2u);  // every node with a file
}

TEST(HistoryStore, ALineCutShortIsSkippedAndTheNextRecordStartsItsOwnLine) {
  TempDir d;
  append_history(d.str(), {{"h1", record(1)}});
  std::ofstream(d.path / "h1.jsonl", std::ios::app) << R"({"v":1,"t":2,"sta)";
  append_history(d.str(), {{"h1", record(3)}});
  const HistoryRead read = read_history(d.str(), {"h1"});
  ASSERT_EQ(read.past.at("h1").size(), 2u);
  EXPECT_EQ(read.past.at("h1")[1].time, 3);
  ASSERT_EQ(read.notes.size(), 1u);
  EXPECT_NE(read.notes[0].find("1 line(s) that are not a record skipped"), std::string::npos) << read.notes[0];
}

TEST(HistoryStore, ANodesFileIsRotatedToItsLastRecords) {
  TempDir d;
  // Enough records to pass half the read bound.
  for (int i = 0; i < 1500; ++i) append_history(d.str(), {{"h1", record(i)}});
  EXPECT_LE(fs::file_size(d.path / "h1.jsonl"), kHistoryReadBytes / 2 + 200);
  const auto kept = read_history(d.str(), {"h1"}).past.at("h1");
  ASSERT_GE(kept.size(), kHistoryKeep);
  EXPECT_EQ(kept.back().time, 1499);
}

TEST(HistoryStore, WritersAtOnceAcrossARotationLoseNoRecentRecord) {
  TempDir d;
  // Just under the rotation's size, so the writers below cross it, each while the others append.
  for (int i = 0; i < 1000; ++i) append_history(d.str(), {{"h1", record(i)}});
  ASSERT_LT(fs::file_size(d.path / "h1.jsonl"), kHistoryReadBytes / 2);
  constexpr int kWriters = 4, kEach = 150;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      for (int i = 0; i < kEach; ++i) append_history(d.str(), {{"h1", record(10'000 * (w + 1) + i)}});
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const HistoryRead read = read_history(d.str(), {"h1"});
  EXPECT_TRUE(read.notes.empty()) << read.notes[0];  // every line whole
  std::set<std::int64_t> times;
  for (const auto& r : read.past.at("h1")) times.insert(r.time);
  EXPECT_GE(times.size(), kHistoryKeep);
  // Rotated (fewer than were written), and each writer's last record is there.
  EXPECT_LT(times.size(), 1000u + kWriters * kEach);
  for (int w = 0; w < kWriters; ++w) EXPECT_TRUE(times.count(10'000 * (w + 1) + kEach - 1)) << w;
  for (const auto& entry : fs::directory_iterator(d.path))  // no temporary file left behind
    EXPECT_FALSE(entry.path().filename().string().starts_with(".rotate")) << entry.path();
}

TEST(HistoryStore, AFolderOthersMayWriteIsRefused) {
  TempDir d;
  EXPECT_EQ(history_dir_problem(d.str()), "");
  fs::permissions(d.path, fs::perms(0775));
  EXPECT_NE(history_dir_problem(d.str()).find("not this user's alone"), std::string::npos);
}

TEST(HistoryStore, NoSymlinkIsFollowedAndNoOddNameBecomesAFile) {
  TempDir d;
  const fs::path victim = d.path / "victim";
  std::ofstream(victim) << "not ibgpu's\n";
  fs::create_directory(d.path / "hist");
  fs::create_symlink(victim, d.path / "hist" / "h1.jsonl");
  const auto notes = append_history((d.path / "hist").string(), {{"h1", record(1)}, {"../x", record(1)}});
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("history of h1 not kept"), std::string::npos) << notes[0];
  EXPECT_EQ(text_of(victim), "not ibgpu's\n");
  EXPECT_FALSE(fs::exists(d.path / "x.jsonl"));
  const HistoryRead read = read_history((d.path / "hist").string(), {"h1", "../x"});
  EXPECT_TRUE(read.past.empty());
  EXPECT_EQ(read.notes.size(), 2u);
  // A history "folder" that is a file or a symlink is refused before anything runs.
  EXPECT_NE(history_dir_problem(victim.string()), "");
  fs::create_directory_symlink(d.path / "hist", d.path / "link");
  EXPECT_NE(history_dir_problem((d.path / "link").string()), "");
}

}  // namespace
}  // namespace ibgpu
