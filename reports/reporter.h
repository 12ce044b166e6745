#pragma once
// Every output format implements one interface: a pure function of the
// report onto a stream. Only rank 0 renders.
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "reports/report.h"

namespace ibgpu {

class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void render(const Report& report, std::ostream& out) const = 0;
};

class TableReporter final : public Reporter {
 public:
  void render(const Report& report, std::ostream& out) const override;
};

class JsonReporter final : public Reporter {
 public:
  void render(const Report& report, std::ostream& out) const override;
};

// Self-contained page: run facts, a bandwidth heatmap per rail, nodes, reasons.
class HtmlReporter final : public Reporter {
 public:
  void render(const Report& report, std::ostream& out) const override;
};

std::unique_ptr<Reporter> make_reporter(const std::string& format);  // "table" | "json"
std::vector<std::string> reporter_formats();

}  // namespace ibgpu
