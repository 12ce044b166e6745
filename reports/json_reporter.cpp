#include <string>
#include <string_view>

#include "reports/json.h"
#include "reports/reporter.h"

namespace ibgpu {

namespace {

using nlohmann::json;

// `text` (a dump(2) of a value) as it reads nested `depth` levels deep.
void write_nested(std::ostream& out, const std::string& text, int depth) {
  const std::string indent(static_cast<std::size_t>(2 * depth), ' ');
  std::size_t from = 0;
  for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', from)) {
    out.write(text.data() + from, static_cast<std::streamsize>(at + 1 - from)) << indent;
    from = at + 1;
  }
  out.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
}

// A value at `depth`: indented as dump(2) nests it, or dump()'s one line.
void write_value(std::ostream& out, const json& value, int depth, bool indented) {
  if (indented)
    write_nested(out, value.dump(2), depth);
  else
    out << value.dump();
}

template <class T>
void write_array(std::ostream& out, const std::vector<T>& items, bool indented) {
  if (items.empty()) return void(out << "[]");
  out << (indented ? "[\n" : "[");
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (indented) out << (i ? ",\n    " : "    ");
    if (!indented && i) out << ',';
    write_value(out, json(items[i]), 2, indented);
  }
  out << (indented ? "\n  ]" : "]");
}

}  // namespace

// The text of json(report).dump(2) (compact: dump()), through the model's one serializer
// (reports/json.cpp), with the long arrays converted one element at a time: a
// fleet's report as one document is about a gigabyte of small allocations,
// and their page faults alone cost seconds.
void JsonReporter::render(const Report& report, std::ostream& out) const {
  Report head;  // everything but the long arrays
  head.schema_version = report.schema_version;
  head.tool = report.tool;
  head.run = report.run;
  head.summary = report.summary;
  head.burn_in = report.burn_in;
  const json doc = head;
  const bool indented = layout_ == Layout::indented;
  out << (indented ? "{\n" : "{");
  bool first = true;
  for (const auto& [name, value] : doc.items()) {  // sorted, as dump() writes them
    if (indented)
      out << (first ? "  \"" : ",\n  \"") << name << "\": ";
    else
      out << (first ? "\"" : ",\"") << name << "\":";
    first = false;
    if (name == "hosts")
      write_array(out, report.hosts, indented);
    else if (name == "probes")
      write_array(out, report.probes, indented);
    else if (name == "verdicts")
      write_array(out, report.verdicts, indented);
    else
      write_value(out, value, 1, indented);
  }
  out << (indented ? "\n}\n" : "}\n");
}

}  // namespace ibgpu
