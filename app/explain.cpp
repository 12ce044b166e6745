#include <cstdlib>
#include <iostream>
#include <string>

#include "app/commands.h"
#include "app/text.h"
#include "reports/reason_code_doc.h"

namespace ibgpu {

int run_explain(const ExplainOptions& options) {
  if (options.markdown) {
    write_reason_code_markdown(std::cout, options.codes);
  } else if (options.codes.empty()) {
    write_reason_code_list(std::cout);
  } else {
    for (std::size_t i = 0; i < options.codes.size(); ++i) {
      if (i) std::cout << '\n';
      write_reason_code_text(std::cout, info(options.codes[i]), terminal_width().value_or(100));
    }
  }
  std::cout.flush();
  return std::cout ? 0 : 1;
}

}  // namespace ibgpu
