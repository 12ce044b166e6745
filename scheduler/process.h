#pragma once
// Runs an external program without a shell (posix_spawnp: PATH lookup, argv
// passed as is), with a deadline, its output captured. For admission actions
// such as `scontrol update`; nothing else in ibgpu starts processes.
#include <optional>
#include <string>
#include <vector>

namespace ibgpu {

struct ProcessOutcome {
  bool started = false;
  std::string start_error;       // why it could not start, e.g. "No such file or directory"
  std::optional<int> exit_code;  // when it exited
  std::optional<int> signal;     // when a signal ended it
  bool timed_out = false;        // then it was killed (its process group: TERM, then KILL)
  std::string output;            // stdout and stderr together, cut at the limit
  bool ok() const { return started && !timed_out && exit_code == 0; }
  std::string describe() const;  // "exit 0", "exit 1", "killed by signal 9", "timed out after 30 s", ...
  double timeout_s = 0;
};

// stdin is /dev/null; the child gets its own process group so a timeout ends
// whatever it started too.
ProcessOutcome run_process(const std::vector<std::string>& argv, double timeout_s, std::size_t max_output = 64 * 1024);

}  // namespace ibgpu
