#pragma once
// From the admission decision to the scheduler commands that apply it: drain
// the nodes to drain, resume the nodes to admit. Pure: this file builds the
// argument vectors; scheduler/run_actions.cpp runs them (without a shell).
//
// A command template is split into arguments once, when the command line is
// parsed; {host} and {reason} are then substituted inside single arguments and
// never re-split, so a host name like "h1;rm -rf x" arrives as one literal
// argument.
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/verdict.h"

namespace ibgpu {

struct AdmissionActionOptions {
  std::vector<std::string> drain_cmd;   // argv template; empty: no drain command
  std::vector<std::string> resume_cmd;  // argv template; empty: no resume command
  bool slurm = false;                   // the built-in scontrol forms (excludes the templates)
  bool dry_run = false;                 // print the argv instead of running them
  double timeout_s = 30;                // per command
  bool any() const { return slurm || !drain_cmd.empty() || !resume_cmd.empty(); }
};

struct TemplateError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// "PROG ARG..." -> argv. Whitespace separates; '...' keeps its text literally;
// "..." too, except that \" and \\ stand for " and \; outside quotes a
// backslash keeps the next character. Placeholders other than {host} and
// {reason} (a word in braces) are refused, so a typo is not sent to the
// scheduler. Throws TemplateError.
std::vector<std::string> split_command_template(std::string_view text);

// Each argument with {host} and {reason} replaced; the substituted text is
// not scanned again.
std::vector<std::string> expand_command_template(const std::vector<std::string>& argv_template, const std::string& host,
                                                 const std::string& reason);

enum class ActionKind { drain, resume };
const char* to_string(ActionKind kind);

struct PlannedAction {
  ActionKind kind = ActionKind::drain;
  std::string host;
  std::vector<std::string> argv;
  // Slurm: first run this query. A resume goes ahead only for a node that its
  // answer shows drained by ibgpu (see drained_by_ibgpu); a drain is skipped
  // for a node that someone else drained (see drained_by_someone_else), whose
  // reason it would replace. Empty: unconditional.
  std::vector<std::string> guard_query;
};

// Slurm's drain reason for a node: "ibgpu: " + short_reasons(node).
inline constexpr std::string_view kSlurmReasonPrefix = "ibgpu:";

// Drains for nodes whose action is drain, resumes for admit and
// admit_degraded; nodes in verdict order.
std::vector<PlannedAction> plan_admission_actions(const std::vector<Verdict>& verdicts,
                                                  const AdmissionActionOptions& options);

// An argv as one line a POSIX shell would read back into the same argv:
// plain words bare, others in '...', control characters as $'\n', $'\x01'.
std::string quote_argv(const std::vector<std::string>& argv);

// A node as `scontrol show node NAME [-o]` describes it.
struct SlurmNodeState {
  std::string state;   // "IDLE+DRAIN"
  std::string reason;  // "ibgpu: failed: ... [root@2026-11-29T10:00:00]"; empty: none
  bool drained() const;
};
// nullopt when the text has no State= field (not a node description).
std::optional<SlurmNodeState> parse_scontrol_show_node(std::string_view text);
bool drained_by_ibgpu(const SlurmNodeState& node);
// Drained with a reason that is not ibgpu's: a person's (or Slurm's own).
bool drained_by_someone_else(const SlurmNodeState& node);

}  // namespace ibgpu
