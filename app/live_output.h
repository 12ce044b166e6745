#pragma once
// What a check says while it runs, on rank 0's stderr: result rows as they finish (each network
// round's worst pair and the suspects so far, each all-reduce size as nccl-tests prints it, each
// node's local checks) and one progress line (the phase, the time left against --budget).
// On a terminal the progress line is redrawn in place below the rows; elsewhere (a Slurm log,
// a pipe) everything is a plain line, the progress line at most once every few seconds.
// The report on stdout never carries any of it.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibgpu {

enum class LiveStyle {
  off,       // --quiet, or not rank 0
  terminal,  // stderr is a terminal: the progress line is redrawn in place
  plain,     // a log or a pipe: lines only, no control codes, progress throttled
};

// IBGPU_PROGRESS=terminal|plain|off overrides what isatty(2) says (tests, and terminals that
// do not understand the clear-line code); --quiet always wins. Anything else is ignored.
LiveStyle live_style(bool quiet, bool stderr_is_terminal, const char* env_override);
// The style IBGPU_PROGRESS names (terminal, plain, off); none for any other word.
std::optional<LiveStyle> live_style_named(std::string_view name);

// ---- Pure renderings of one line each (no newline, no "ibgpu: " prefix). ----

// One finished network round. worst_* describe the round's worst pair: a failed pair (status
// not ok) is worse than any measured one, else the lowest bandwidth at the largest size.
struct RoundRow {
  std::string label;  // "network", "re-test 1"
  std::size_t k = 0;  // 1-based
  std::size_t total = 0;
  std::size_t pairs = 0;     // host pairs reported in the round
  std::size_t expected = 0;  // host pairs planned in the round
  std::string worst_pair;    // "h1-h3"; empty: no pair measured anything
  std::string worst_status;  // "ok", "timeout", "skipped", ...
  std::optional<double> worst_bw_GBps;
  std::optional<std::size_t> worst_size_B;
  std::optional<double> worst_lat_us;
  std::vector<std::string> suspects;  // suspect host pairs so far ("h1-h3"); empty: none
  bool judged = false;                // a suspect rule was given (check): say "none"
};
std::string render_round_row(const RoundRow& row);

// One all-reduce case, one half of nccl-tests' row (out-of-place or in-place).
struct AllReduceHalf {
  std::optional<double> time_us;
  std::optional<double> algbw_GBps;
  std::optional<double> busbw_GBps;
  std::optional<double> wrong;  // elements; missing when not checked
  std::string status = "ok";    // a case not measured shows its status instead of numbers
};
struct AllReduceRow {
  std::size_t size_B = 0;
  std::size_t count = 0;
  std::string type;  // "float"
  std::string redop = "sum";
  std::optional<AllReduceHalf> out_of_place, in_place;
};
// The three header lines above the rows (halves, names, units), and the row: the columns of nccl-tests.
std::vector<std::string> render_allreduce_header();
std::string render_allreduce_row(const AllReduceRow& row);

// One host's local checks: "local checks h2: 5 done: 3 ok, 2 skipped (gpu.nvml.health, ...)".
struct LocalRow {
  std::string host;
  std::vector<std::pair<std::string, std::string>> checks;  // probe id, status
};
std::string render_local_row(const LocalRow& row);

// The progress line: "network round 3/15, 12.5 s elapsed, 1m 10s left of a 2m budget".
struct ProgressState {
  std::string phase;  // "local checks", "network round 3/15", "all-reduce mpi job 2/4"
  double elapsed_s = 0;
  std::optional<double> budget_s;
};
std::string render_progress(const ProgressState& state);

// ---- The sink. ----
class LiveOutput {
 public:
  using Write = std::function<void(std::string_view)>;
  using Now = std::function<double()>;  // seconds, monotonic
  // Plain style: at most one progress line every this many seconds.
  static constexpr double kPlainInterval = 5;

  LiveOutput(LiveStyle style, Write write, Now now);
  LiveStyle style() const { return style_; }

  // A result line: always written (unless off), above the progress line on a terminal.
  void row(const std::string& text);
  // A new phase: the progress line shows it (plain: once the interval has passed).
  void phase(const std::string& text);
  // --budget: the progress line says how much of it is left, counted from `started_s`.
  void budget(double started_s, double budget_s);
  // Redraw the progress line if due (terminal: now; plain: once the interval has passed).
  void tick();
  // Clears the terminal's progress line (before the report, or lines others write to stderr);
  // the next row or tick draws it again.
  void clear();

 private:
  void show_progress();
  std::string progress_text() const;

  LiveStyle style_;
  Write write_;
  Now now_;
  double started_s_;
  std::string phase_;
  std::optional<double> budget_start_s_, budget_s_;
  bool line_shown_ = false;  // terminal: a progress line is on screen, no newline after it
  std::optional<double> last_plain_s_;
};

}  // namespace ibgpu
