#include "reports/reporter.h"

#include <functional>

namespace ibgpu {

namespace {

struct Format {
  const char* name;
  bool concatenates;
  std::function<std::unique_ptr<Reporter>(LineWidth line)> make;  // line: the table's
};

// One row per format: `--format` of every command and `ibgpu report` list these.
const std::vector<Format>& formats() {
  static const std::vector<Format> table{
      {"table", true, [](LineWidth w) { return std::make_unique<TableReporter>(TableReporter::Detail::fit, w); }},
      {"table-full", true, [](LineWidth w) { return std::make_unique<TableReporter>(TableReporter::Detail::full, w); }},
      {"json", false, [](LineWidth) { return std::make_unique<JsonReporter>(); }},
      {"prometheus", false, [](LineWidth) { return std::make_unique<PrometheusReporter>(); }},
      {"junit", false, [](LineWidth) { return std::make_unique<JunitReporter>(); }},
      {"markdown", true, [](LineWidth) { return std::make_unique<MarkdownReporter>(); }},
      {"html", false, [](LineWidth) { return std::make_unique<HtmlReporter>(); }},
      {"admission", false, [](LineWidth) { return std::make_unique<AdmissionReporter>(); }},
  };
  return table;
}

const Format* find(const std::string& name) {
  for (const auto& f : formats())
    if (name == f.name) return &f;
  return nullptr;
}

}  // namespace

std::unique_ptr<Reporter> make_reporter(const std::string& format, LineWidth line) {
  const Format* f = find(format);
  return f ? f->make(line) : nullptr;
}

std::vector<std::string> reporter_formats() {
  std::vector<std::string> names;
  for (const auto& f : formats()) names.emplace_back(f.name);
  return names;
}

bool reporter_concatenates(const std::string& format) {
  const Format* f = find(format);
  return f && f->concatenates;
}

}  // namespace ibgpu
