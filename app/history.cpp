#include <iostream>
#include <string>

#include "app/commands.h"
#include "app/history_store.h"
#include "core/errors.h"
#include "core/text.h"
#include "core/units.h"
#include "reports/atomic_file.h"
#include "reports/text_table.h"

namespace ibgpu {

namespace {

constexpr int kHistoryVersion = 1;

std::string says(const NodeStory& s) {
  if (!s.last.reason) return "";
  switch (s.last.reason->code) {
    case ReasonCode::HISTORY_FLAPPING:
      return "flapping";
    case ReasonCode::HISTORY_LEMON:
      return "lemon";
    default:
      return "";
  }
}

nlohmann::json story_json(const std::string& node, const std::vector<CheckRecord>& records, const NodeStory& s,
                          bool with_records) {
  nlohmann::json j = {{"node", node},
                      {"checks", s.checks},
                      {"bad", s.bad},
                      {"failures", s.failures},
                      {"mean_time_between_failures_s", nullptr},
                      {"says", says(s).empty() ? nlohmann::json() : nlohmann::json(says(s))},
                      {"reason", s.last.reason ? nlohmann::json(s.last.reason->message) : nlohmann::json()}};
  if (s.mean_time_between_failures_s) j["mean_time_between_failures_s"] = *s.mean_time_between_failures_s;
  if (!records.empty()) {
    j["last_check"] = to_json(records.back());
  }
  if (with_records) {
    j["records"] = nlohmann::json::array();
    for (const auto& r : records) j["records"].push_back(to_json(r));
  }
  return j;
}

void print_fleet(std::ostream& out, const HistoryOptions& o, const HistoryRead& read) {
  TextTable table({{"node"},
                   {"checks", TextTable::Align::right},
                   {"bad", TextTable::Align::right},
                   {"last check"},
                   {"state"},
                   {"action"},
                   {"says"},
                   {"between failures", TextTable::Align::right}});
  std::vector<std::string> flapping, lemons;
  for (const auto& [node, records] : read.past) {
    const NodeStory s = story_of(records, o.profile.history);
    if (says(s) == "flapping") flapping.push_back(node);
    if (says(s) == "lemon") lemons.push_back(node);
    const CheckRecord* last = records.empty() ? nullptr : &records.back();
    table.add_row({node, std::to_string(s.checks), std::to_string(s.bad), last ? rfc3339(last->time) : "-",
                   last ? to_string(last->state) : "-", last ? to_string(last->action) : "-", says(s),
                   s.mean_time_between_failures_s ? duration_text(*s.mean_time_between_failures_s) : "-"});
  }
  out << "history in " << o.dir << ": " << count_text(read.past.size(), "node") << " (rules: profile " << o.profile.name
      << " [history])\n";
  table.print(out, "  ");
  out << "flapping: " << (flapping.empty() ? "none" : join(flapping, ", ")) << "\n";
  out << "lemons: " << (lemons.empty() ? "none" : join(lemons, ", ")) << "\n";
}

void print_node(std::ostream& out, const HistoryOptions& o, const std::string& node,
                const std::vector<CheckRecord>& records) {
  const NodeStory s = story_of(records, o.profile.history);
  out << node << ": " << count_text(s.checks, "judged check") << ", " << s.bad << " bad, "
      << count_text(s.failures, "failure");
  if (s.mean_time_between_failures_s)
    out << ", mean time between failures " << duration_text(*s.mean_time_between_failures_s);
  out << "\n";
  if (s.last.reason) out << "  now: " << to_string(s.last.reason->code) << ": " << s.last.reason->message << "\n";
  TextTable table(
      {{"time"}, {"state"}, {"action"}, {"codes", TextTable::Align::left, false, TextTable::Narrow::fold}, {"run"}});
  for (const auto& r : records)
    table.add_row({rfc3339(r.time), to_string(r.state), to_string(r.action), join(r.codes, ","), r.run});
  table.print(out, "  ");
}

}  // namespace

int run_history(const HistoryOptions& o) {
  const HistoryRead read = read_history(o.dir, o.nodes);
  for (const auto& note : read.notes) std::cerr << "ibgpu: " << note << '\n';
  const int code = read.notes.empty() ? 0 : 1;  // shown, but not all of it could be read
  if (!o.common.json_path.empty()) {
    nlohmann::json j = {{"history_version", kHistoryVersion},
                        {"dir", o.dir},
                        {"profile", o.profile.name},
                        {"nodes", nlohmann::json::array()}};
    for (const auto& [node, records] : read.past)
      j["nodes"].push_back(story_json(node, records, story_of(records, o.profile.history), !o.nodes.empty()));
    for (const auto& node : o.nodes)  // asked for, and no checks kept
      if (!read.past.count(node)) j["nodes"].push_back(story_json(node, {}, {}, true));
    const std::string text = j.dump(2) + "\n";
    if (o.common.json_path == "-") {
      std::cout << text;
      return std::cout ? code : 1;
    }
    write_atomically(o.common.json_path, [&](std::ostream& out) { out << text; });
  }
  if (o.nodes.empty()) {
    print_fleet(std::cout, o, read);
  } else {
    for (const auto& node : o.nodes) {
      const auto it = read.past.find(node);
      if (it == read.past.end()) {
        std::cout << node << ": no checks in " << o.dir << "\n";
        continue;
      }
      print_node(std::cout, o, node, it->second);
    }
  }
  std::cout.flush();
  return std::cout ? code : 1;
}

}  // namespace ibgpu
