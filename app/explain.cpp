#include <cstdlib>
#include <iostream>
#include <string>

#include "app/commands.h"
#include "reports/reason_code_doc.h"

namespace ibgpu {

namespace {

// The terminal's width where the shell says it ($COLUMNS), else 100.
std::size_t text_width() {
  const char* columns = std::getenv("COLUMNS");
  if (columns == nullptr) return 100;
  char* end = nullptr;
  const long n = std::strtol(columns, &end, 10);
  return end != columns && *end == '\0' && n >= 40 && n <= 1000 ? static_cast<std::size_t>(n) : 100;
}

}  // namespace

int run_explain(const ExplainOptions& options) {
  if (options.markdown) {
    write_reason_code_markdown(std::cout, options.codes);
  } else if (options.codes.empty()) {
    write_reason_code_list(std::cout);
  } else {
    for (std::size_t i = 0; i < options.codes.size(); ++i) {
      if (i) std::cout << '\n';
      write_reason_code_text(std::cout, info(options.codes[i]), text_width());
    }
  }
  std::cout.flush();
  return std::cout ? 0 : 1;
}

}  // namespace ibgpu
