#include "reports/json.h"
#include "reports/reporter.h"

namespace ibgpu {

namespace {

using nlohmann::json;

// Writes `text` (a dump at indent 2) as if nested `level` deep. JSON strings
// never hold a raw newline, so every newline starts a line.
void write_nested(std::ostream& out, const std::string& text, int level) {
  const std::string pad(static_cast<std::size_t>(2 * level), ' ');
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    out.write(text.data() + start, static_cast<std::streamsize>(nl + 1 - start)) << pad;
  out.write(text.data() + start, static_cast<std::streamsize>(text.size() - start));
}

// A long array one element at a time: a run's probes never become one tree.
template <class T>
void write_array(std::ostream& out, const std::vector<T>& items) {
  if (items.empty()) {
    out << "[]";
    return;
  }
  out << "[\n";
  for (std::size_t i = 0; i < items.size(); ++i) {
    out << "    ";
    write_nested(out, json(items[i]).dump(2), 2);
    out << (i + 1 < items.size() ? ",\n" : "\n");
  }
  out << "  ]";
}

}  // namespace

// The same text as json(report).dump(2) (keys sorted), without building the
// whole document in memory first.
void JsonReporter::render(const Report& report, std::ostream& out) const {
  Report small;  // everything but the long arrays, which are written one element at a time
  small.schema_version = report.schema_version;
  small.tool = report.tool;
  small.run = report.run;
  small.summary = report.summary;
  const json head = small;
  out << "{\n";
  bool first = true;
  for (const auto& [name, value] : head.items()) {  // sorted, as dump() writes them
    out << (first ? "" : ",\n") << "  \"" << name << "\": ";
    first = false;
    if (name == "hosts") write_array(out, report.hosts);
    else if (name == "probes") write_array(out, report.probes);
    else if (name == "verdicts") write_array(out, report.verdicts);
    else write_nested(out, value.dump(2), 1);
  }
  out << "\n}\n";
}

}  // namespace ibgpu
