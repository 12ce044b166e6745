#pragma once
// The burn-in round stream: JSON Lines, one record per line, appended as each
// round finishes and synced before append() returns, so a job killed at any
// moment leaves every finished round readable. At most the line being written
// when the process died is incomplete; readers skip it with a note.
//
// Records, each with the burn-in's run id (two burn-ins appended to one file are told apart by it):
//   {"record":"header","burn_in":"ID","started":"...","command":[...],"launch":{...},"tool":{...}}
//   {"record":"round","burn_in":"ID","round":7,"report":{...the round's full report, run.parent ID...}}
//   {"record":"summary","burn_in":"ID","rounds":20,"report":{...the burn-in report, run.id ID...}}
#include <cstddef>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/report.h"

namespace ibgpu {

// One appender per file (several writers to one stream are not supported).
class JsonlWriter {
 public:
  // Opens (creating with mode 0644) for appending. Throws std::runtime_error
  // naming the path and the reason when it cannot be written, is not a
  // regular file, or cannot be synced: call it before the run starts. An
  // incomplete last line left by a killed writer is cut off, so the next
  // record starts on a line of its own (dropped_tail_bytes() says how much).
  static JsonlWriter open(const std::string& path);

  JsonlWriter(JsonlWriter&& other) noexcept;
  JsonlWriter& operator=(JsonlWriter&& other) noexcept;
  JsonlWriter(const JsonlWriter&) = delete;
  JsonlWriter& operator=(const JsonlWriter&) = delete;
  ~JsonlWriter();

  // Writes the record as one compact line with a single write(2) of the
  // whole line (continued after a partial write), then fdatasync. Throws
  // std::runtime_error on failure, after cutting off any part of the line
  // that reached the file.
  void append(const nlohmann::json& record);

  const std::string& path() const { return path_; }
  std::size_t dropped_tail_bytes() const { return dropped_tail_bytes_; }

 private:
  JsonlWriter(int fd, std::string path, std::size_t dropped)
      : fd_(fd), path_(std::move(path)), dropped_tail_bytes_(dropped) {}
  int fd_ = -1;
  std::string path_;
  std::size_t dropped_tail_bytes_ = 0;
};

struct JsonlTail {
  std::size_t incomplete_bytes = 0;  // an unterminated last line, skipped
  std::string note;                  // says so in words; empty when the file ended cleanly
};

// Calls `each` with every record and its line number (from 1), in order,
// without holding the file in memory. Blank lines are skipped. Throws
// std::runtime_error "PATH:LINE: ..." for a line that is not a JSON object,
// and naming the path when it cannot be read.
JsonlTail for_each_jsonl(const std::string& path,
                         const std::function<void(nlohmann::json&& record, std::size_t line)>& each);

struct JsonlContents {
  std::vector<nlohmann::json> records;
  JsonlTail tail;
};

JsonlContents read_jsonl(const std::string& path);

// The stream's first record of a burn-in: its id, when and how it was started, what was tested.
nlohmann::json burn_in_header_record(const std::string& burn_in, const std::string& started,
                                     const std::vector<std::string>& command,
                                     const std::map<std::string, std::string>& launch, const ToolInfo& tool);
nlohmann::json burn_in_round_record(int round, const Report& round_report);  // burn_in: its run.parent
nlohmann::json burn_in_summary_record(
    const Report& burn_in_report);  // burn_in: its run.id; rounds from its burn_in section

}  // namespace ibgpu
