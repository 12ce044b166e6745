#include <algorithm>
#include <cctype>

#include "app/commands.h"
#include "core/errors.h"
#include "subcommand.h"

namespace ibgpu::cli {

namespace {

// A code as an operator types it: any case.
ReasonCode code_named(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
  if (const auto code = reason_code_from_string(name)) return *code;
  std::vector<std::string> names;
  for (const auto& row : every_reason_code()) names.emplace_back(row.name);
  auto close = close_names(name, names);
  if (close.size() > 4) close.resize(4);
  throw UsageError("'" + name + "' is not a reason code" +
                   (close.empty() ? "" : "; did you mean " + quoted_list("", close) + "?") +
                   " ('ibgpu explain' lists them)");
}

}  // namespace

Subcommand add_explain(CLI::App& parent) {
  auto options = std::make_shared<ExplainOptions>();
  auto names = std::make_shared<std::vector<std::string>>();
  CLI::App* sub = parent.add_subcommand(
      "explain", "What a reason code means and what to do about it (from the table in this binary; no MPI)");
  sub->add_option("CODE", *names,
                  "Reason codes as reports write them (GPU_XID, IB_PORT_DOWN, ...); none: list them all")
      ->type_name("CODE...");
  sub->add_flag("--markdown", options->markdown,
                "Print the table of every code as docs/reason-codes.md has it (with CODE: those rows)");
  sub->footer(
      "Exit codes: 0 explained, 64 a CODE that is not a reason code.\n"
      "Examples:\n"
      "  ibgpu explain                  # every code with its next step, by group\n"
      "  ibgpu explain IB_LINK_BW_OUTLIER GPU_XID\n"
      "  ibgpu report out.json --format table | grep -o '[A-Z_]*_[A-Z]*' | sort -u | xargs ibgpu explain");
  auto validate = [options, names] {
    options->codes.clear();
    for (const auto& name : *names) options->codes.push_back(code_named(name));
  };
  Subcommand s{sub, nullptr, validate, &options->common};
  s.run_without_mpi = [options] { return run_explain(*options); };
  return s;
}

}  // namespace ibgpu::cli
