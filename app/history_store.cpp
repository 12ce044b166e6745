#include "app/history_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string_view>

#include "core/fd.h"
#include "core/units.h"

namespace ibgpu {

namespace {

constexpr int kRecordVersion = 1;
constexpr std::string_view kSuffix = ".jsonl";

std::string os_error(const std::string& what) { return what + ": " + std::strerror(errno); }

// A host's file name: the host name as it is, where it is a plain name (letters, digits, '.', '-',
// '_', not starting with '.'); nothing else becomes a file.
bool file_name_safe(std::string_view host) {
  if (host.empty() || host.size() > 200 || host.front() == '.') return false;
  return std::all_of(host.begin(), host.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
           c == '_';
  });
}

std::string file_of(const std::string& dir, std::string_view host) {
  return dir + "/" + std::string(host) + std::string(kSuffix);
}

// The last kHistoryReadBytes of the file open at `fd` (`size` bytes long), its whole lines only;
// nullopt (and `problem`) where it cannot be read.
std::optional<std::string> tail_of(int fd, off_t size, const std::string& path, std::string& problem) {
  const off_t from = size > static_cast<off_t>(kHistoryReadBytes) ? size - static_cast<off_t>(kHistoryReadBytes) : 0;
  std::string text(static_cast<std::size_t>(size - from), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::pread(fd, text.data() + got, text.size() - got, from + static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      problem = os_error(path);
      return std::nullopt;
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  if (from > 0) text.erase(0, std::min(text.size(), text.find('\n') + 1));  // a cut first line
  return text;
}

// A node's file by its name, without following a symlink.
std::optional<std::string> read_tail(const std::string& path, std::string& problem) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  if (!fd) {
    if (errno != ENOENT) problem = os_error(path);
    return std::nullopt;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    problem = path + ": not a regular file, not read";
    return std::nullopt;
  }
  return tail_of(fd.get(), st.st_size, path, problem);
}

std::vector<CheckRecord> parse_records(const std::string& text, int& skipped) {
  std::vector<CheckRecord> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    const auto j = nlohmann::json::parse(line, nullptr, false);
    auto r = j.is_discarded() ? std::nullopt : check_record_from_json(j);
    if (r)
      out.push_back(std::move(*r));
    else
      ++skipped;
  }
  std::stable_sort(out.begin(), out.end(), [](const CheckRecord& a, const CheckRecord& b) { return a.time < b.time; });
  return out;
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// Rewrites a host's file to its last kHistoryKeep records: a new file beside it (O_EXCL), renamed
// over the name. rename() replaces the name itself, never what a symlink put there points to.
std::string rotate(const std::string& dir, const std::string& path, const std::string& text) {
  int skipped = 0;
  std::vector<CheckRecord> records = parse_records(text, skipped);
  if (records.size() > kHistoryKeep) records.erase(records.begin(), records.end() - kHistoryKeep);
  std::string kept;
  for (const CheckRecord& r : records) kept += to_json(r).dump() + '\n';
  std::string temp = dir + "/.rotate.XXXXXX";
  Fd fd(::mkostemp(temp.data(), O_CLOEXEC));
  if (!fd) return os_error(temp);
  if (::fchmod(fd.get(), 0644) != 0 || !write_all(fd.get(), kept) || ::fsync(fd.get()) != 0 ||
      ::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string problem = os_error(path);
    ::unlink(temp.c_str());
    return problem;
  }
  return {};
}

// Appends one line to a host's file (a cut last line first ends); rotates it past half the bound.
std::string append_line(const std::string& dir, const std::string& path, const std::string& line) {
  Fd fd(::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644));
  if (!fd) return os_error(path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1)
    return path + ": not a regular file of its own (a link?), not written";
  char last = '\n';
  if (st.st_size > 0 && ::pread(fd.get(), &last, 1, st.st_size - 1) != 1) return os_error(path);
  if (!write_all(fd.get(), (last == '\n' ? "" : "\n") + line + "\n")) return os_error(path);
  if (::fstat(fd.get(), &st) != 0) return os_error(path);
  if (st.st_size <= static_cast<off_t>(kHistoryReadBytes / 2)) return {};
  // The file as this descriptor holds it (never the name again).
  std::string problem;
  const auto text = tail_of(fd.get(), st.st_size, path, problem);
  return text ? rotate(dir, path, *text) : problem;
}

}  // namespace

nlohmann::json to_json(const CheckRecord& r) {
  return {{"v", kRecordVersion},         {"time", rfc3339(r.time)},       {"t", r.time},     {"run", r.run},
          {"state", to_string(r.state)}, {"action", to_string(r.action)}, {"codes", r.codes}};
}

std::optional<CheckRecord> check_record_from_json(const nlohmann::json& j) {
  if (!j.is_object() || j.value("v", 0) != kRecordVersion) return std::nullopt;
  const auto t = j.find("t");
  const auto state = j.find("state");
  const auto action = j.find("action");
  if (t == j.end() || !t->is_number_integer() || state == j.end() || !state->is_string() || action == j.end() ||
      !action->is_string())
    return std::nullopt;
  CheckRecord r;
  r.time = t->get<std::int64_t>();
  const auto s = health_state_from_string(state->get<std::string>());
  const auto a = action_from_string(action->get<std::string>());
  if (!s || !a) return std::nullopt;
  r.state = *s;
  r.action = *a;
  if (const auto run = j.find("run"); run != j.end() && run->is_string()) r.run = run->get<std::string>();
  if (const auto codes = j.find("codes"); codes != j.end() && codes->is_array())
    for (const auto& c : *codes)
      if (c.is_string()) r.codes.push_back(c.get<std::string>());
  return r;
}

std::string history_dir_problem(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(dir, ec);
  if (!fs::exists(st)) {
    fs::create_directories(dir, ec);
    if (ec) return "cannot create the history folder '" + dir + "': " + ec.message();
    fs::permissions(dir, fs::perms(0755), ec);
  } else if (!fs::is_directory(st)) {
    return "'" + dir + "' is not a folder (a history folder is not followed through a symlink)";
  }
  if (::access(dir.c_str(), R_OK | W_OK | X_OK) != 0) return os_error("history folder '" + dir + "'");
  // Whoever may write in it could put a file there for this process to trust or replace.
  struct stat own {};
  if (::stat(dir.c_str(), &own) != 0) return os_error("history folder '" + dir + "'");
  if (own.st_uid != ::geteuid() || (own.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return "history folder '" + dir + "' is not this user's alone (owner uid " + std::to_string(own.st_uid) +
           ", or writable by its group or others): give a folder only this user can write";
  return {};
}

HistoryRead read_history(const std::string& dir, const std::vector<std::string>& hosts) {
  HistoryRead out;
  std::vector<std::string> names = hosts;
  if (names.empty()) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      const std::string file = entry.path().filename().string();
      if (file.size() > kSuffix.size() && file.ends_with(kSuffix))
        names.push_back(file.substr(0, file.size() - kSuffix.size()));
    }
    if (ec) out.notes.push_back("history: cannot list '" + dir + "': " + ec.message());
    std::sort(names.begin(), names.end());
  }
  int skipped = 0;
  for (const std::string& host : names) {
    if (!file_name_safe(host)) {
      out.notes.push_back("history: host name '" + host + "' is not a plain file name: no history kept for it");
      continue;
    }
    std::string problem;
    const auto text = read_tail(file_of(dir, host), problem);
    if (!problem.empty()) out.notes.push_back("history: " + problem);
    if (text) out.past.emplace(host, parse_records(*text, skipped));
  }
  if (skipped > 0)
    out.notes.push_back("history: " + std::to_string(skipped) +
                        " line(s) that are not a record skipped (a write cut short, or not ibgpu's)");
  return out;
}

std::vector<std::string> append_history(const std::string& dir,
                                        const std::vector<std::pair<std::string, CheckRecord>>& records) {
  std::vector<std::string> notes;
  const std::string lock_path = dir + "/.lock";
  Fd lock(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644));
  if (!lock) return {"history not kept: " + os_error(lock_path)};
  struct stat st {};
  if (::fstat(lock.get(), &st) != 0 || !S_ISREG(st.st_mode))
    return {"history not kept: " + lock_path + ": not a regular file"};
  // Another check holds it while it appends (milliseconds); one that holds it for long is stuck,
  // and this run's report must not wait on it.
  constexpr int kLockTries = 200;  // 10 s
  int tries = 0;
  while (::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) {
    if ((errno != EWOULDBLOCK && errno != EINTR) || ++tries >= kLockTries)
      return {"history not kept: " + os_error("flock " + lock_path + " (another check holds it)")};
    ::usleep(50'000);
  }
  for (const auto& [host, record] : records) {
    if (!file_name_safe(host)) continue;  // said when read
    if (std::string problem = append_line(dir, file_of(dir, host), to_json(record).dump()); !problem.empty())
      notes.push_back("history of " + host + " not kept: " + problem);
  }
  return notes;
}

}  // namespace ibgpu
