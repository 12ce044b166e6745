// Scheduler actions from the admission decision: templates split once into
// argument vectors, hosts substituted literally inside one argument, the
// built-in Slurm forms, quoting for the dry run, and reading scontrol's answer.
#include "scheduler/admission_actions.h"

#include <gtest/gtest.h>

#include "scheduler/process.h"

namespace ibgpu {
namespace {

using Argv = std::vector<std::string>;

Verdict node(const std::string& name, HealthState state, Action action, std::vector<Reason> reasons = {},
             std::vector<std::string> excluded = {}) {
  Verdict v{Entity::node(name), state, std::move(reasons), action};
  v.excluded = std::move(excluded);
  return v;
}

const std::vector<std::string> kHostileHosts{"h1;rm -rf x",  "$(id)",       "`id`",     "two words",
                                             "it's \"q\"",   "a\\b",        "{reason}", "-n",
                                             "h|cat>/tmp/x", "line\nbreak", "*",        "~root"};

TEST(CommandTemplate, SplitsOnWhitespaceOnly) {
  EXPECT_EQ(split_command_template("  drain-node   {host}\t--why {reason} "),
            (Argv{"drain-node", "{host}", "--why", "{reason}"}));
}

TEST(CommandTemplate, QuotesKeepOneArgument) {
  EXPECT_EQ(split_command_template(R"(scontrol update NodeName={host} "Reason=ibgpu: {reason}")"),
            (Argv{"scontrol", "update", "NodeName={host}", "Reason=ibgpu: {reason}"}));
  EXPECT_EQ(split_command_template(R"(p 'a "b" $c' "d \"e\" \\ \n" f\ g '' x'y'z)"),
            (Argv{"p", "a \"b\" $c", "d \"e\" \\ \\n", "f g", "", "xyz"}));
}

TEST(CommandTemplate, RefusesWhatItCannotReadFaithfully) {
  EXPECT_THROW(split_command_template(""), TemplateError);
  EXPECT_THROW(split_command_template("   "), TemplateError);
  EXPECT_THROW(split_command_template("p 'open"), TemplateError);
  EXPECT_THROW(split_command_template("p \"open"), TemplateError);
  EXPECT_THROW(split_command_template("p trailing\\"), TemplateError);
  try {
    split_command_template("drain {hostname}");
    FAIL() << "a misspelt placeholder was accepted";
  } catch (const TemplateError& e) {
    EXPECT_NE(std::string(e.what()).find("{hostname}"), std::string::npos) << e.what();
  }
  // Braces that are not a placeholder are the program's business.
  EXPECT_EQ(split_command_template("awk '{print $1}' {}"), (Argv{"awk", "{print $1}", "{}"}));
}

TEST(CommandTemplate, HostArrivesLiterallyInsideOneArgument) {
  const Argv tmpl = split_command_template("mark --node={host} {host} 'why: {reason}'");
  for (const auto& host : kHostileHosts) {
    const Argv argv = expand_command_template(tmpl, host, "failed: X");
    ASSERT_EQ(argv.size(), 4u) << host;
    EXPECT_EQ(argv[1], "--node=" + host);
    EXPECT_EQ(argv[2], host);
    EXPECT_EQ(argv[3], "why: failed: X");
  }
}

TEST(CommandTemplate, SubstitutedTextIsNotScannedAgain) {
  EXPECT_EQ(expand_command_template({"{host}:{reason}"}, "{reason}", "{host}"), (Argv{"{reason}:{host}"}));
}

TEST(PlanActions, SlurmDrainIsOneArgumentPerField) {
  AdmissionActionOptions options;
  options.slurm = true;
  const auto plan = plan_admission_actions(
      {Verdict{Entity::gpu("n1", "gpu0"), HealthState::failed, {}, std::nullopt},
       node("n1", HealthState::failed, Action::drain, {Reason{ReasonCode::GPU_MISSING, "", "", 7.0, 8.0}}, {"gpu7"})},
      options);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].kind, ActionKind::drain);
  EXPECT_EQ(plan[0].host, "n1");
  EXPECT_EQ(plan[0].argv, (Argv{"scontrol", "update", "NodeName=n1", "State=DRAIN",
                                "Reason=ibgpu: failed: GPU_MISSING (excluded gpu7)"}));
  // Asked first: a node someone else drained keeps their reason.
  EXPECT_EQ(plan[0].guard_query, (Argv{"scontrol", "show", "node", "n1", "-o"}));
}

TEST(PlanActions, SlurmResumesAdmittedNodesOnlyAfterAsking) {
  AdmissionActionOptions options;
  options.slurm = true;
  const auto plan = plan_admission_actions(
      {node("ok", HealthState::healthy, Action::admit), node("meh", HealthState::degraded, Action::admit_degraded)},
      options);
  ASSERT_EQ(plan.size(), 2u);
  for (const auto& a : plan) {
    EXPECT_EQ(a.kind, ActionKind::resume);
    EXPECT_EQ(a.argv, (Argv{"scontrol", "update", "NodeName=" + a.host, "State=RESUME"}));
    EXPECT_EQ(a.guard_query, (Argv{"scontrol", "show", "node", a.host, "-o"}));
  }
}

TEST(PlanActions, SlurmFormsKeepHostileHostsWhole) {
  AdmissionActionOptions options;
  options.slurm = true;
  for (const auto& host : kHostileHosts) {
    const auto plan = plan_admission_actions(
        {node(host, HealthState::failed, Action::drain), node(host + "2", HealthState::healthy, Action::admit)},
        options);
    ASSERT_EQ(plan.size(), 2u);
    EXPECT_EQ(plan[0].argv.size(), 5u);
    EXPECT_EQ(plan[0].argv[2], "NodeName=" + host);
    EXPECT_EQ(plan[1].guard_query[3], host + "2");
  }
}

TEST(PlanActions, TemplatesForEachSideAndNothingWithout) {
  AdmissionActionOptions options;
  options.drain_cmd = split_command_template("drain {host} {reason}");
  const std::vector<Verdict> verdicts{node("bad", HealthState::unknown, Action::drain),
                                      node("good", HealthState::healthy, Action::admit)};
  auto plan = plan_admission_actions(verdicts, options);
  ASSERT_EQ(plan.size(), 1u);  // no resume template: admitted nodes are left as they are
  EXPECT_EQ(plan[0].argv, (Argv{"drain", "bad", "unknown"}));

  options.resume_cmd = split_command_template("resume {host}");
  plan = plan_admission_actions(verdicts, options);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[1].argv, (Argv{"resume", "good"}));
  EXPECT_TRUE(plan[1].guard_query.empty());

  EXPECT_TRUE(plan_admission_actions(verdicts, AdmissionActionOptions{}).empty());
}

TEST(QuoteArgv, PlainWordsStayBare) {
  EXPECT_EQ(quote_argv({"scontrol", "update", "NodeName=n1", "State=DRAIN"}),
            "scontrol update NodeName=n1 State=DRAIN");
  EXPECT_EQ(quote_argv({"scontrol", "update", "Reason=ibgpu: failed"}), "scontrol update 'Reason=ibgpu: failed'");
  EXPECT_EQ(quote_argv({"A=b", "x"}), "'A=b' x");  // not a shell assignment
  EXPECT_EQ(quote_argv({"p", "", "it's"}), "p '' 'it'\\''s'");
  EXPECT_EQ(quote_argv({"p", "a\nb"}), "p $'a\\nb'");
  // A reserved word in command position is syntax to the shell: quoted there, bare elsewhere.
  EXPECT_EQ(quote_argv({"if", "time"}), "'if' time");
  EXPECT_EQ(quote_argv({"time", "x"}), "'time' x");
}

// The dry-run line is unambiguous: bash reads it back into the same argv.
TEST(QuoteArgv, BashReadsItBackIntoTheSameArgv) {
  Argv argv{"printf", "<%s>"};
  for (const auto& host : kHostileHosts) argv.push_back(host);
  argv.push_back(std::string("ctl\x01\x7f"));
  const ProcessOutcome out = run_process({"bash", "-c", quote_argv(argv)}, 10);
  ASSERT_TRUE(out.ok()) << out.describe() << ": " << out.output;
  std::string expected;
  for (std::size_t i = 2; i < argv.size(); ++i) expected += "<" + argv[i] + ">";
  EXPECT_EQ(out.output, expected);
}

TEST(ScontrolShowNode, OneLineAnswerDrainedByIbgpu) {
  const auto n = parse_scontrol_show_node(
      "NodeName=gpu001 Arch=x86_64 CoresPerSocket=56 CPUAlloc=0 CPUEfctv=224 CPUTot=224 CPULoad=0.31 "
      "AvailableFeatures=h100 ActiveFeatures=h100 Gres=gpu:8 NodeAddr=gpu001 NodeHostName=gpu001 "
      "State=IDLE+DRAIN ThreadsPerCore=2 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=gpu "
      "NextState=RESUME BootTime=2026-11-20T08:00:00 LastBusyTime=2026-11-29T09:00:00 "
      "Reason=ibgpu: failed: GPU_MISSING (excluded gpu7) [root@2026-11-29T10:00:00]\n");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->state, "IDLE+DRAIN");
  EXPECT_EQ(n->reason, "ibgpu: failed: GPU_MISSING (excluded gpu7) [root@2026-11-29T10:00:00]");
  EXPECT_TRUE(n->drained());
  EXPECT_TRUE(drained_by_ibgpu(*n));
  EXPECT_FALSE(drained_by_someone_else(*n));
}

TEST(ScontrolShowNode, DrainedByAPersonIsNotOurs) {
  const auto n = parse_scontrol_show_node(
      "NodeName=gpu002 State=MIXED+DRAIN Reason=PSU swap, ticket 4411 [alice@2026-11-28T16:00:00]");
  ASSERT_TRUE(n);
  EXPECT_TRUE(n->drained());
  EXPECT_FALSE(drained_by_ibgpu(*n));
  EXPECT_TRUE(drained_by_someone_else(*n));
  // The prefix must start the reason, not appear in it.
  EXPECT_FALSE(drained_by_ibgpu(*parse_scontrol_show_node("State=DRAIN Reason=not ibgpu: x")));
  EXPECT_TRUE(drained_by_someone_else(*parse_scontrol_show_node("State=DRAIN Reason=not ibgpu: x")));
}

TEST(ScontrolShowNode, MultiLineAnswerAndUndrainedNodes) {
  const auto n = parse_scontrol_show_node(
      "NodeName=gpu003 Arch=x86_64 CoresPerSocket=56\n   State=IDLE ThreadsPerCore=2 TmpDisk=0\n   "
      "NextState=DRAIN\n");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->state, "IDLE");  // NextState= is another field
  EXPECT_EQ(n->reason, "");
  EXPECT_FALSE(n->drained());
  EXPECT_FALSE(drained_by_ibgpu(*n));
  // A stale ibgpu reason on a node that is no longer drained: nothing to resume.
  EXPECT_FALSE(drained_by_ibgpu(*parse_scontrol_show_node("State=IDLE Reason=ibgpu: old")));
  EXPECT_FALSE(drained_by_someone_else(*parse_scontrol_show_node("State=IDLE Reason=maintenance")));
  EXPECT_FALSE(parse_scontrol_show_node("Node gpu009 not found"));
}

}  // namespace
}  // namespace ibgpu
