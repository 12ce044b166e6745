#pragma once
// Where `check --history DIR` keeps each node's checks: DIR/<host>.jsonl, one JSON record per line
// (health/history.h CheckRecord), appended by rank 0 after each judged run.
//  - Atomic enough for a crash: a record is one write() of one line; a line cut short by a crash
//    is skipped when read, and the next record starts on a line of its own.
//  - Safe with two runs at once: appends and rotations hold an flock on DIR/.lock (10 s at most,
//    then this run's records are not kept, with a note). Two checks at once each decide on the
//    records before either of them: their decisions are not serialised, their records are.
//  - DIR is this user's alone (owned by the effective uid, not writable by group or others).
//  - Bounded: a node's file is read from its last kHistoryReadBytes only, and rewritten to its
//    last kHistoryKeep records once it is over half that (a new file renamed over the name).
//  - A root process on a production node: symlinks are not followed, only regular files are read
//    or appended, and nothing but DIR/<host>.jsonl and DIR/.lock is ever created.
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "health/history.h"

namespace ibgpu {

inline constexpr std::size_t kHistoryKeep = 2 * kHistoryMaxWindow;  // records a node's file keeps
inline constexpr std::size_t kHistoryReadBytes = std::size_t{256} << 10;

nlohmann::json to_json(const CheckRecord& r);
// nullopt for a line that is not a record (cut short, or not ours).
std::optional<CheckRecord> check_record_from_json(const nlohmann::json& j);

// Before anything runs: creates DIR (mode 0755, its parents too) where it does not exist; the
// reason it cannot be used (not a folder, not writable), or "".
std::string history_dir_problem(const std::string& dir);

struct HistoryRead {
  std::map<std::string, std::vector<CheckRecord>, std::less<>> past;  // by host, oldest first
  std::vector<std::string> notes;                                     // what could not be read, for the report's notes
};
// The records of `hosts` (all hosts with a file in DIR where `hosts` is empty).
HistoryRead read_history(const std::string& dir, const std::vector<std::string>& hosts = {});

// Appends each record to its host's file; returns what could not be kept (notes), never throws
// for one host's file.
std::vector<std::string> append_history(const std::string& dir,
                                        const std::vector<std::pair<std::string, CheckRecord>>& records);

}  // namespace ibgpu
