#include <charconv>
#include <climits>
#include <cstdlib>
#include <sstream>
#include <string>

#include "app/live_output.h"
#include "core/errors.h"
#include "reports/render_util.h"
#include "subcommand.h"

namespace ibgpu::cli {

std::string bad_environment() {
  const char* progress = std::getenv("IBGPU_PROGRESS");
  if (progress && *progress && !live_style_named(progress))
    return "IBGPU_PROGRESS='" + printable(progress) + "': expected terminal, plain or off (or unset)";
  return "";
}

namespace {

template <class T>
std::string number_text(T value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// "FLOAT in [0.1, 86400]", "INT >= 1": a bound at the type's limit is no bound to the reader.
template <class T>
std::string range_text(const char* type, T min, T max, bool unbounded_max) {
  return std::string(type) +
         (unbounded_max ? " >= " + number_text(min) : " in [" + number_text(min) + ", " + number_text(max) + "]");
}

// "'0' is out of range: a number from 0.1 to 86400"; no `max`: "... of 0 or more".
std::string out_of_range_text(const std::string& input, const char* what, const std::string& min,
                              const std::string& max) {
  return "'" + input + "' is out of range: " + what + " " +
         (max.empty() ? "of " + min + " or more" : "from " + min + " to " + max);
}

}  // namespace

std::string out_of_range(const std::string& input, double min, double max) {
  return out_of_range_text(input, "a number", number_text(min), max >= 1e300 ? "" : number_text(max));
}

std::string range_help(double min, double max) { return range_text("FLOAT", min, max, max >= 1e300); }

CLI::Validator whole_number(long long min, long long max) {
  const bool unbounded = max == INT_MAX || max == LLONG_MAX;
  const std::string range = range_text("INT", min, max, unbounded);
  return CLI::Validator(
      [min, max, unbounded](std::string& input) -> std::string {
        long long value = 0;
        const char* end = input.data() + input.size();
        const auto [stop, ec] = std::from_chars(input.data(), end, value);
        if (input.empty() || ec != std::errc{} || stop != end) return "'" + input + "' is not a whole number";
        if (value < min || value > max)
          return out_of_range_text(input, "a whole number", std::to_string(min), unbounded ? "" : std::to_string(max));
        return {};
      },
      range);
}

}  // namespace ibgpu::cli

namespace ibgpu::cli {

namespace {

const CLI::Option* given(const CLI::App& sub, const char* name) {
  const CLI::Option* option = sub.get_option_no_throw(name);
  return option && option->count() > 0 ? option : nullptr;
}

}  // namespace

void refuse_two_on_stdout(const CLI::App& sub) {
  const CLI::Option* json = given(sub, "--json");
  const CLI::Option* format = given(sub, "--format");
  const CLI::Option* output = given(sub, "--output");
  const bool json_out = json && json->as<std::string>() == "-";
  const bool output_out = output && output->as<std::string>() == "-";
  // Without --output (report) the terminal format goes to stdout, and --json - takes its place there.
  if (json_out && format && (!output || output_out))
    throw UsageError("--json - and --format " + format->as<std::string>() +
                     " both write to stdout: give --json a FILE, or leave out --format");
  if (json_out && output_out) throw UsageError("--json - and --output - both write to stdout: give one of them a FILE");
}

}  // namespace ibgpu::cli
