#include "reports/jsonl.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "core/bounded_input.h"
#include "reports/atomic_file.h"
#include "reports/json.h"

namespace ibgpu {

namespace {

// Bytes after the last newline of the file (0 for an empty file or one that
// ends with a newline), read backwards so a large stream is not read whole.
std::size_t unterminated_tail(int fd, off_t size, const std::string& path) {
  char chunk[65536];
  off_t end = size;
  while (end > 0) {
    const off_t start = end > static_cast<off_t>(sizeof chunk) ? end - static_cast<off_t>(sizeof chunk) : 0;
    const auto want = static_cast<std::size_t>(end - start);
    const ssize_t n = ::pread(fd, chunk, want, start);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_file_error("read", path, errno);
    if (static_cast<std::size_t>(n) != want)
      throw std::runtime_error("cannot read " + path + ": it shrank while opened");
    for (std::size_t i = want; i > 0; --i)
      if (chunk[i - 1] == '\n') return static_cast<std::size_t>(size - (start + static_cast<off_t>(i)));
    end = start;
  }
  return static_cast<std::size_t>(size);
}

}  // namespace

JsonlWriter JsonlWriter::open(const std::string& path) {
  if (path.empty()) throw std::runtime_error("cannot append to an empty path");
  // Asked before opening: opening a device can act on it (a tape rewinds at close), a FIFO waits.
  struct stat before {};
  if (::stat(path.c_str(), &before) == 0 && !S_ISREG(before.st_mode))
    throw std::runtime_error("cannot append to " + path + ": not a regular file (a stream is a file of its own)");
  // O_RDWR, not O_WRONLY: the tail check reads the last line back.
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw_file_error("open for appending", path, errno);
  JsonlWriter writer(fd, path, 0);  // closes fd on a throw below
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw_file_error("stat", path, errno);
  if (!S_ISREG(st.st_mode)) throw std::runtime_error("cannot append to " + path + ": not a regular file");
  writer.dropped_tail_bytes_ = unterminated_tail(fd, st.st_size, path);
  if (writer.dropped_tail_bytes_ > 0 &&
      ::ftruncate(fd, st.st_size - static_cast<off_t>(writer.dropped_tail_bytes_)) != 0)
    throw_file_error("cut the incomplete last line of", path, errno);
  // A file system that cannot sync cannot keep the promise made to append().
  if (::fdatasync(fd) != 0) throw_file_error("sync", path, errno);
  return writer;
}

JsonlWriter::JsonlWriter(JsonlWriter&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      path_(std::move(other.path_)),
      dropped_tail_bytes_(other.dropped_tail_bytes_) {}

JsonlWriter& JsonlWriter::operator=(JsonlWriter&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    dropped_tail_bytes_ = other.dropped_tail_bytes_;
  }
  return *this;
}

JsonlWriter::~JsonlWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void JsonlWriter::append(const nlohmann::json& record) {
  if (fd_ < 0) throw std::runtime_error("append to a closed stream");
  const std::string line = record.dump() + '\n';  // compact: dump() has no newlines inside
  struct stat st {};
  if (::fstat(fd_, &st) != 0) throw_file_error("stat", path_, errno);
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      // Half a line would glue the next record onto it: take it back.
      if (done > 0 && ::ftruncate(fd_, st.st_size) != 0) {
        // Nothing more to do: the reader skips or rejects that line.
      }
      throw_file_error("append to", path_, err);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fdatasync(fd_) != 0) throw_file_error("sync", path_, errno);
}

JsonlTail for_each_jsonl(const std::string& path,
                         const std::function<void(nlohmann::json&& record, std::size_t line)>& each) {
  const std::string text = read_bounded_file(path, kReportMaxBytes);
  JsonlTail tail;
  std::size_t start = 0;
  for (std::size_t number = 1; start < text.size(); ++number) {
    const std::size_t newline = text.find('\n', start);
    // No newline at the end of the file: a line cut mid-write.
    if (newline == std::string::npos) {
      tail.incomplete_bytes = text.size() - start;
      tail.note = path + ":" + std::to_string(number) + ": skipped an incomplete last line (" +
                  std::to_string(tail.incomplete_bytes) + " bytes without a newline: the writer stopped mid-record)";
      break;
    }
    const std::string_view line(text.data() + start, newline - start);
    start = newline + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const std::string where = path + ":" + std::to_string(number);
    check_json_depth(line, kJsonMaxDepth, where);
    nlohmann::json record;
    try {
      record = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for 1e400
      throw InputError(where + ": malformed record: " + e.what());
    }
    if (!record.is_object()) throw InputError(where + ": a record must be a JSON object, not " + record.type_name());
    each(std::move(record), number);
  }
  return tail;
}

JsonlContents read_jsonl(const std::string& path) {
  JsonlContents out;
  out.tail =
      for_each_jsonl(path, [&](nlohmann::json&& record, std::size_t) { out.records.push_back(std::move(record)); });
  return out;
}

nlohmann::json burn_in_header_record(const std::string& burn_in, const std::string& started,
                                     const std::vector<std::string>& command,
                                     const std::map<std::string, std::string>& launch, const ToolInfo& tool) {
  return nlohmann::json{
      {"record", "header"}, {"burn_in", burn_in},
      {"started", started}, {"command", command},
      {"launch", launch},   {"tool", {{"name", tool.name}, {"version", tool.version}, {"git", tool.git}}}};
}

nlohmann::json burn_in_round_record(int round, const Report& round_report) {
  return nlohmann::json{
      {"record", "round"}, {"burn_in", round_report.run.parent}, {"round", round}, {"report", round_report}};
}

nlohmann::json burn_in_summary_record(const Report& burn_in_report) {
  return nlohmann::json{{"record", "summary"},
                        {"burn_in", burn_in_report.run.id},
                        {"rounds", burn_in_report.burn_in ? burn_in_report.burn_in->rounds : 0},
                        {"report", burn_in_report}};
}

}  // namespace ibgpu
