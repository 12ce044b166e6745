#include "reports/reporter.h"

#include <functional>

namespace ibgpu {

namespace {

struct Format {
  const char* name;
  bool concatenates;
  std::function<std::unique_ptr<Reporter>()> make;
};

// One row per format: `--format` of every command and `ibgpu report` list these.
const std::vector<Format>& formats() {
  static const std::vector<Format> table{
      {"table", true, [] { return std::make_unique<TableReporter>(); }},
      {"table-full", true, [] { return std::make_unique<TableReporter>(TableReporter::Detail::full); }},
      {"json", false, [] { return std::make_unique<JsonReporter>(); }},
      {"prometheus", false, [] { return std::make_unique<PrometheusReporter>(); }},
      {"junit", false, [] { return std::make_unique<JunitReporter>(); }},
      {"markdown", true, [] { return std::make_unique<MarkdownReporter>(); }},
      {"html", false, [] { return std::make_unique<HtmlReporter>(); }},
      {"admission", false, [] { return std::make_unique<AdmissionReporter>(); }},
  };
  return table;
}

const Format* find(const std::string& name) {
  for (const auto& f : formats())
    if (name == f.name) return &f;
  return nullptr;
}

}  // namespace

std::unique_ptr<Reporter> make_reporter(const std::string& format) {
  const Format* f = find(format);
  return f ? f->make() : nullptr;
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
