#include "reports/compare.h"

#include "core/result.h"
#include "reports/render_util.h"
#include "reports/text_table.h"

namespace ibgpu {

using nlohmann::json;

void print_comparison(const Comparison& c, std::ostream& out) {
  out << "Changes from run " << c.old_run << " to run " << c.new_run << " (metrics beyond "
      << format_value(c.threshold * 100) << "%)\n";
  if (c.changes.empty()) {
    out << "  no change\n";
    return;
  }
  TextTable table({{"change"},
                   {"entity"},
                   {"old", TextTable::Align::right},
                   {"new", TextTable::Align::right},
                   {"delta", TextTable::Align::right},
                   {"detail", TextTable::Align::left, true}});
  std::size_t counts[4] = {0, 0, 0, 0};
  for (const auto& ch : c.changes) {
    ++counts[static_cast<int>(ch.kind)];
    std::string delta;
    if (ch.kind == Change::Kind::metric) delta = ch.relative ? format_value(*ch.relative * 100) + "%" : "from 0";
    const bool metric = ch.kind == Change::Kind::metric;
    table.add_row({to_string(ch.kind), ch.entity, metric ? format_number(*ch.old_value) : ch.old_text,
                   metric ? format_number(*ch.new_value) : ch.new_text, delta, ch.what.empty() ? "-" : ch.what});
  }
  table.print(out, "  ");
  out << c.changes.size() << (c.changes.size() == 1 ? " change" : " changes") << ": " << counts[0] << " state, "
      << counts[1] << " new, " << counts[2] << " vanished, " << counts[3] << " metric\n";
}

json to_json(const Comparison& c) {
  json changes = json::array();
  for (const auto& ch : c.changes) {
    json j{{"change", to_string(ch.kind)}, {"entity", ch.entity}};
    if (ch.kind == Change::Kind::metric) {
      j["kind"] = ch.what;
      j["old"] = ch.old_value ? json(*ch.old_value) : json(nullptr);
      j["new"] = ch.new_value ? json(*ch.new_value) : json(nullptr);
      j["relative_change"] = ch.relative ? json(*ch.relative) : json(nullptr);
    } else {
      j["old"] = ch.old_text == "-" ? json(nullptr) : json(ch.old_text);
      j["new"] = ch.new_text == "-" ? json(nullptr) : json(ch.new_text);
      j["reasons"] = ch.what;
    }
    changes.push_back(std::move(j));
  }
  return json{{"old_run", c.old_run},
              {"new_run", c.new_run},
              {"threshold", c.threshold},
              {"changed", !c.changes.empty()},
              {"changes", changes}};
}

}  // namespace ibgpu
