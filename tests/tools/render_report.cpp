// Test tool: renders a saved JSON report in any reporter format, so the
// browser test can open a page made by the real reporter from a known report.
//   ibgpu_render_report FORMAT IN.json OUT
// Exit 0 written, 64 usage or unreadable report, 1 write failure.
#include <fstream>
#include <iostream>
#include <string>

#include "reports/atomic_file.h"
#include "reports/json.h"
#include "reports/reporter.h"

int main(int argc, char** argv) {
  using namespace ibgpu;
  if (argc != 4) {
    std::cerr << "usage: ibgpu_render_report FORMAT IN.json OUT\n";
    return kExitUsage;
  }
  const auto reporter = make_reporter(argv[1]);
  if (!reporter) {
    std::cerr << "unknown format '" << argv[1] << "'\n";
    return kExitUsage;
  }
  Report report;
  try {
    std::ifstream in(argv[2]);
    if (!in) throw std::runtime_error("cannot open " + std::string(argv[2]));
    report = report_from_json(nlohmann::json::parse(in));
  } catch (const std::exception& e) {
    std::cerr << argv[2] << ": " << e.what() << '\n';
    return kExitUsage;
  }
  try {
    write_atomically(argv[3], [&](std::ostream& out) { reporter->render(report, out); });
  } catch (const std::exception& e) {
    std::cerr << e.what() << '\n';
    return 1;
  }
  return 0;
}
