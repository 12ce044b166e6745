#include "app/live_output.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <string_view>
#include <utility>

#include "app/text.h"
#include "core/units.h"
#include "reports/render_util.h"

namespace ibgpu {

namespace {

// The terminal's "carriage return, erase the line": the progress line is redrawn in place.
constexpr std::string_view kClearLine = "\r\033[K";

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

// 65536 -> "64K", 8388608 -> "8M", 1000 -> "1000": how sizes are given on the command line.
std::string size_text(std::size_t bytes) {
  constexpr std::pair<std::size_t, const char*> kUnits[] = {
      {std::size_t{1} << 30, "G"}, {1 << 20, "M"}, {1 << 10, "K"}};
  for (const auto& [unit, name] : kUnits)
    if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + name;
  return std::to_string(bytes);
}

// nccl-tests' time column: two decimals while they fit in 7 characters.
std::string time_cell(double us) { return format(us < 10000 ? "%7.2f" : "%7.0f", us); }

std::string half_cells(const std::optional<AllReduceHalf>& half) {
  char text[96];
  if (!half) {
    std::snprintf(text, sizeof text, "  %7s %7s %7s %7s", "-", "-", "-", "-");
    return text;
  }
  if (half->status != "ok" || !half->time_us) {
    std::snprintf(text, sizeof text, "  %31s", half->status.c_str());
    return text;
  }
  const std::string algbw = half->algbw_GBps ? format("%7.2f", *half->algbw_GBps) : "      -";
  const std::string busbw = half->busbw_GBps ? format("%7.2f", *half->busbw_GBps) : "      -";
  const std::string wrong = half->wrong ? format("%7.0f", *half->wrong) : "    N/A";
  std::snprintf(text, sizeof text, "  %s %s %s %s", time_cell(*half->time_us).c_str(), algbw.c_str(), busbw.c_str(),
                wrong.c_str());
  return text;
}

}  // namespace

std::optional<LiveStyle> live_style_named(std::string_view name) {
  if (name == "terminal") return LiveStyle::terminal;
  if (name == "plain") return LiveStyle::plain;
  if (name == "off") return LiveStyle::off;
  return std::nullopt;
}

LiveStyle live_style(bool quiet, bool stderr_is_terminal, const char* env_override) {
  if (quiet) return LiveStyle::off;
  if (const auto forced = live_style_named(env_override ? env_override : "")) return *forced;
  return stderr_is_terminal ? LiveStyle::terminal : LiveStyle::plain;
}

std::string render_round_row(const RoundRow& row) {
  std::string text = row.label + " round " + std::to_string(row.k) + "/" + std::to_string(row.total) + " done: ";
  text += std::to_string(row.pairs) + (row.pairs == 1 ? " pair" : " pairs");
  if (row.pairs < row.expected) text += " of " + std::to_string(row.expected) + " reported";
  if (row.worst_pair.empty()) {
    text += ", nothing measured";
  } else if (row.worst_status != "ok") {
    text += ", worst " + printable(row.worst_pair) + " " + row.worst_status;
  } else {
    text += ", worst " + printable(row.worst_pair);
    if (row.worst_bw_GBps) {
      text += " " + format("%.3g", *row.worst_bw_GBps) + " GB/s";
      if (row.worst_size_B) text += " at " + size_text(*row.worst_size_B);
    }
    if (row.worst_lat_us) text += (row.worst_bw_GBps ? ", " : " ") + format("%.3g", *row.worst_lat_us) + " us";
  }
  if (!row.suspects.empty()) {
    std::vector<std::string> shown;
    for (const auto& s : row.suspects) shown.push_back(printable(s));
    text += "; suspects so far " + std::to_string(row.suspects.size()) + ": " + short_list(shown, 4);
  } else if (row.judged) {
    text += "; no suspects so far";
  }
  return text;
}

std::vector<std::string> render_allreduce_header() {
  constexpr const char* kColumns = "%12s %12s %6s %6s  %7s %7s %7s %7s  %7s %7s %7s %7s";
  char titles[160], names[160], units[160];
  std::snprintf(titles, sizeof titles, "%12s %12s %6s %6s  %31s  %31s", "", "", "", "", "out-of-place", "in-place");
  std::snprintf(names, sizeof names, kColumns, "size", "count", "type", "redop", "time", "algbw", "busbw", "#wrong",
                "time", "algbw", "busbw", "#wrong");
  std::snprintf(units, sizeof units, kColumns, "(B)", "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)",
                "(GB/s)", "(GB/s)", "");
  std::string last = units;
  while (!last.empty() && last.back() == ' ') last.pop_back();
  return {titles, names, last};
}

std::string render_allreduce_row(const AllReduceRow& row) {
  char text[96];
  std::snprintf(text, sizeof text, "%12zu %12zu %6s %6s", row.size_B, row.count, row.type.c_str(), row.redop.c_str());
  return text + half_cells(row.out_of_place) + half_cells(row.in_place);
}

std::string render_local_row(const LocalRow& row) {
  std::map<std::string, std::vector<std::string>> by_status;  // status -> probe ids, in order
  for (const auto& [id, status] : row.checks) by_status[status].push_back(id);
  std::string text = "local checks " + printable(row.host) + ": " + std::to_string(row.checks.size()) + " done";
  if (row.checks.empty()) return text + " (none ran)";
  std::string parts;
  for (const char* status : {"ok", "failed", "error", "timeout", "skipped"}) {
    const auto it = by_status.find(status);
    if (it == by_status.end()) continue;
    parts += (parts.empty() ? ": " : ", ") + std::to_string(it->second.size()) + " " + status;
    if (std::string_view(status) != "ok") parts += " (" + short_list(it->second, 3) + ")";
  }
  return text + parts;
}

std::string render_progress(const ProgressState& state) {
  std::string text = state.phase.empty() ? std::string("starting") : state.phase;
  // Whole seconds: a progress line is read at a glance, and redrawn often.
  text += ", " + duration_text(std::floor(state.elapsed_s)) + " elapsed";
  if (state.budget_s) {
    const double left = std::floor(*state.budget_s - state.elapsed_s);
    text += left >= 0 ? ", " + duration_text(left) + " left of the " + duration_text(*state.budget_s) + " budget"
                      : ", " + duration_text(-left) + " past the " + duration_text(*state.budget_s) + " budget";
  }
  return text;
}

LiveOutput::LiveOutput(LiveStyle style, Write write, Now now)
    : style_(style), write_(std::move(write)), now_(std::move(now)), started_s_(now_()) {}

std::string LiveOutput::progress_text() const {
  ProgressState s;
  s.phase = phase_;
  const double now = now_();
  s.elapsed_s = now - (budget_start_s_ ? *budget_start_s_ : started_s_);
  s.budget_s = budget_s_;
  return "ibgpu: " + render_progress(s);
}

void LiveOutput::row(const std::string& text) {
  if (style_ == LiveStyle::off) return;
  // One write per update, so a line is never split by another writer to stderr.
  if (style_ == LiveStyle::terminal) {
    std::string out(line_shown_ ? kClearLine : "");
    out += "ibgpu: " + text + "\n" + progress_text();
    line_shown_ = true;
    write_(out);
    return;
  }
  write_("ibgpu: " + text + "\n");
}

void LiveOutput::phase(const std::string& text) {
  phase_ = text;
  show_progress();
}

void LiveOutput::budget(double started_s, double budget_s) {
  budget_start_s_ = started_s;
  budget_s_ = budget_s;
}

void LiveOutput::tick() { show_progress(); }

void LiveOutput::show_progress() {
  if (style_ == LiveStyle::off) return;
  if (style_ == LiveStyle::terminal) {
    write_(std::string(kClearLine) + progress_text());
    line_shown_ = true;
    return;
  }
  const double now = now_();
  if (last_plain_s_ && now - *last_plain_s_ < kPlainInterval) return;
  last_plain_s_ = now;
  write_(progress_text() + "\n");
}

void LiveOutput::clear() {
  if (style_ == LiveStyle::terminal && line_shown_) write_(kClearLine);
  line_shown_ = false;
}

}  // namespace ibgpu
