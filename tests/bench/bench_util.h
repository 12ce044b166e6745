#pragma once
// What the benches share: process CPU time, page faults, peak memory, and a
// stream that counts what a reporter writes and drops it.
#include <sys/resource.h>

#include <cstddef>
#include <ctime>
#include <streambuf>

namespace ibgpu::bench {

// Process CPU time in ms: on a shared machine wall time mostly measures the neighbours.
inline double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

inline double ms_since(double t) { return cpu_ms() - t; }

// Fresh memory is much of the cost (a first touch of a page is a fault, and
// dear in a VM): minor page faults so far.
inline long faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// The process's peak resident memory so far, in MiB (Linux: ru_maxrss in KiB).
inline double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// Counts what a reporter writes and drops it: the cost measured is the
// formatting, as when the report streams to a file, not a growing string.
class CountingBuf : public std::streambuf {
 public:
  std::size_t count = 0;

 protected:
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) ++count;
    return c;
  }
  std::streamsize xsputn(const char*, std::streamsize n) override {
    count += static_cast<std::size_t>(n);
    return n;
  }
};

}  // namespace ibgpu::bench
