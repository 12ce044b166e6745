#pragma once
// Every file ibgpu writes goes through here, and ibgpu runs as root on production nodes: it never
// replaces what it did not create.
//  - A regular file (or a new path) is written atomically: a temporary file in the same directory,
//    flushed and synced, then renamed over the target, keeping the old file's mode and owner. A
//    reader never sees half a report, and a failed run leaves no partial file.
//  - A symlink is followed (the whole chain, dangling or not): its final target is replaced in the
//    target's own directory, so `latest.json -> runs/x.json` stays a link and runs/x.json changes.
//  - An existing character device or FIFO (/dev/null, a terminal, a pipe, /dev/stdout,
//    /proc/self/fd/N) is opened and written through, never renamed over; so is any existing path
//    under /dev or /proc (appending there: a regular file behind /dev/stdout is the caller's).
//  - A block device, a socket or a directory is refused, before anything runs (why_not_writable).
#include <functional>
#include <ostream>
#include <string>

namespace ibgpu {

// Where the bytes for `path` go, and how.
struct OutputTarget {
  std::string path;            // the final target of any symlinks
  bool write_through = false;  // an existing device, FIFO or /proc file: open and write, no rename
  std::string refusal;         // non-empty: never written, and why
};
OutputTarget output_target(const std::string& path);

// Throws std::runtime_error naming the path and the OS error.
void write_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

// Checked before any probe runs, so an unwritable output path is a usage
// error (exit 64) rather than a lost report after an hour of testing.
// Returns an empty string when writable, else the reason.
std::string why_not_writable(const std::string& path);

// Throws std::runtime_error "cannot WHAT PATH: <strerror(err)>": a file call that failed.
[[noreturn]] void throw_file_error(const std::string& what, const std::string& path, int err);

}  // namespace ibgpu
