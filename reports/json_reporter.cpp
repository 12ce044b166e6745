#include <string>

#include "reports/json.h"
#include "reports/json_writer.h"
#include "reports/reporter.h"

namespace ibgpu {

namespace {

using nlohmann::json;

// The text is built in a string and handed to the stream in pieces of about this size.
constexpr std::size_t kChunk = 1 << 16;

void flush(std::string& text, std::ostream& out) {
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  text.clear();
}

}  // namespace

// The text of json(report).dump(2) (compact: dump()). Everything but the long arrays goes through
// the model's one serializer (reports/json.cpp), a host at a time; each result and verdict is
// written straight to text (reports/json_writer.h): a fleet's report as one document is about a
// gigabyte of small allocations, and a document per element still cost seconds at 4096 hosts.
void JsonReporter::render(const Report& report, std::ostream& out) const {
  Report head;  // everything but the long arrays
  head.schema_version = report.schema_version;
  head.tool = report.tool;
  head.run = report.run;
  head.summary = report.summary;
  head.burn_in = report.burn_in;
  head.work_orders = report.work_orders;  // one per cable to act on: short
  const json doc = head;
  std::string text;
  text.reserve(2 * kChunk);
  JsonWriter w(text, layout_ == Layout::indented);
  w.begin_object();
  for (auto it = doc.begin(); it != doc.end(); ++it) {  // sorted, as dump() writes them
    w.key(it.key());
    if (it.key() == "hosts") {
      w.begin_array();
      for (const auto& host : report.hosts) {
        w.value(json(host));
        if (text.size() > kChunk) flush(text, out);
      }
      w.end();
    } else if (it.key() == "probes") {
      w.begin_array();
      for (const auto& p : report.probes) {
        write_json(w, p);
        if (text.size() > kChunk) flush(text, out);
      }
      w.end();
    } else if (it.key() == "verdicts") {
      w.begin_array();
      for (const auto& v : report.verdicts) {
        write_json(w, v);
        if (text.size() > kChunk) flush(text, out);
      }
      w.end();
    } else {
      w.value(it.value());
    }
  }
  w.end();
  text += '\n';
  flush(text, out);
}

}  // namespace ibgpu
