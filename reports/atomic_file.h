#pragma once
// Reports are written atomically: a temporary file in the same directory,
// flushed and synced, then renamed over the target. A reader never sees half
// a report, and a failed run leaves no partial file.
#include <functional>
#include <ostream>
#include <string>

namespace ibgpu {

// Throws std::runtime_error naming the path and the OS error.
void write_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

// Checked before any probe runs, so an unwritable output path is a usage
// error (exit 64) rather than a lost report after an hour of testing.
// Returns an empty string when writable, else the reason.
std::string why_not_writable(const std::string& path);

}  // namespace ibgpu
