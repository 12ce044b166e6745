#include "scheduler/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "core/fd.h"
#include "core/units.h"
#include "core/waits.h"

extern char** environ;

namespace ibgpu {

namespace {

using Clock = std::chrono::steady_clock;

class SpawnSetup {
 public:
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
};

// Reads what is available now; false at end of file.
bool drain_pipe(int fd, std::string& out, std::size_t max_output) {
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      const std::size_t room = max_output > out.size() ? max_output - out.size() : 0;
      out.append(buffer, std::min(room, static_cast<std::size_t>(n)));
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

// waitpid until `deadline`; true when the child is gone. `known` is false
// when its status was lost (someone else reaped it).
bool reap_until(pid_t pid, int& status, bool& known, Clock::time_point deadline) {
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) {
      known = false;
      return true;
    }
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace

std::string ProcessOutcome::describe() const {
  if (!started) return "could not start: " + start_error;
  if (timed_out) return "timed out after " + duration_text(Seconds(timeout_s)) + " (killed)";
  if (exit_code) return "exit " + std::to_string(*exit_code);
  if (signal) return "killed by signal " + std::to_string(*signal) + " (" + strsignal(*signal) + ")";
  return "ended, its exit status lost";
}

ProcessOutcome run_process(const std::vector<std::string>& argv, double timeout_s, std::size_t max_output) {
  ProcessOutcome outcome;
  outcome.timeout_s = timeout_s;
  if (argv.empty()) {
    outcome.start_error = "empty command";
    return outcome;
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    outcome.start_error = std::string("pipe: ") + std::strerror(errno);
    return outcome;
  }
  Fd read_end(fds[0]), write_end(fds[1]);

  SpawnSetup setup;
  posix_spawn_file_actions_addopen(&setup.actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&setup.actions, write_end.get(), 1);
  posix_spawn_file_actions_adddup2(&setup.actions, write_end.get(), 2);
  // A clean signal state: ibgpu's own mask and ignored signals (MPI may
  // ignore SIGPIPE) are not the child's business.
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&setup.attr, &none);
  posix_spawnattr_setsigdefault(&setup.attr, &defaults);
  posix_spawnattr_setpgroup(&setup.attr, 0);
  posix_spawnattr_setflags(&setup.attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &setup.actions, &setup.attr, args.data(), environ);
  write_end.reset();  // the child holds its copy; EOF comes when it (and its children) close theirs
  if (rc != 0) {
    outcome.start_error = argv[0] + ": " + std::strerror(rc);
    return outcome;
  }
  outcome.started = true;
  ::fcntl(read_end.get(), F_SETFL, ::fcntl(read_end.get(), F_GETFL) | O_NONBLOCK);

  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  int status = 0;
  bool reaped = false, open = true, known = true;
  while (!reaped) {
    if (open) {
      pollfd p{read_end.get(), POLLIN, 0};
      ::poll(&p, 1, 20);
      open = drain_pipe(read_end.get(), outcome.output, max_output);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    reaped = reap_until(pid, status, known, Clock::now());
    if (!reaped && Clock::now() >= deadline) {
      outcome.timed_out = true;
      ::kill(-pid, SIGTERM);
      if (!reap_until(pid, status, known, Clock::now() + std::chrono::seconds(2))) {
        ::kill(-pid, SIGKILL);
        reap_until(pid, status, known, Clock::now() + std::chrono::seconds(5));
      }
      reaped = true;
    }
  }
  // What the child wrote just before exiting; a grandchild that keeps the
  // pipe open is not waited for.
  if (open) drain_pipe(read_end.get(), outcome.output, max_output);
  if (known && WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (known && WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  return outcome;
}

}  // namespace ibgpu
