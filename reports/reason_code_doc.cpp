#include "reports/reason_code_doc.h"

#include <algorithm>
#include <ostream>
#include <string>
#include <string_view>

#include "reports/render_util.h"

namespace ibgpu {

namespace {

// A table cell: a '|' in the text would end it.
std::string cell(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string group_title(const ReasonGroupInfo& g) {
  std::string title = "**" + std::string(g.title) + "**";
  if (!g.note.empty()) title += " (" + std::string(g.note) + ")";
  return title;
}

std::string plain(std::string_view markdown) {
  std::string out;
  std::copy_if(markdown.begin(), markdown.end(), std::back_inserter(out), [](char c) { return c != '`'; });
  return out;
}

// `text` after a label of `indent` columns, its lines within `width`.
void write_wrapped(std::ostream& out, std::string_view text, std::size_t indent, std::size_t width) {
  const auto lines = wrap_words(text, width > indent + 20 ? width - indent : 20);
  for (std::size_t i = 0; i < lines.size(); ++i) out << (i ? std::string(indent, ' ') : "") << lines[i] << '\n';
  if (lines.empty()) out << '\n';
}

}  // namespace

void write_reason_code_markdown(std::ostream& out, std::span<const ReasonCode> only) {
  out << "| code | entity | state | fires when | what to do |\n|---|---|---|---|---|\n";
  const ReasonGroupInfo* group = nullptr;
  for (const ReasonCodeInfo& row : every_reason_code()) {
    if (!only.empty() && std::find(only.begin(), only.end(), row.code) == only.end()) continue;
    if (group == nullptr || group->group != row.group) {
      group = &info(row.group);
      out << "| " << group_title(*group) << " | | | | |\n";
    }
    out << "| `" << row.name << "` | " << cell(row.lands_on) << " | " << cell(row.states) << " | "
        << cell(row.fires_when) << " | " << cell(row.what_to_do) << " |\n";
  }
}

void write_reason_code_text(std::ostream& out, const ReasonCodeInfo& row, std::size_t width) {
  out << row.name << " (" << info(row.group).title << ")\n";
  const std::pair<const char*, std::string_view> fields[] = {{"lands on", row.lands_on},
                                                             {"state", row.states},
                                                             {"fires when", row.fires_when},
                                                             {"what to do", row.what_to_do},
                                                             {"in short", row.next_step}};
  constexpr std::size_t kIndent = 14;  // "  fires when  "
  for (const auto& [label, text] : fields) {
    const std::string head = "  " + std::string(label);
    out << head << std::string(kIndent - head.size(), ' ');
    write_wrapped(out, plain(text), kIndent, width);
  }
}

void write_reason_code_list(std::ostream& out) {
  std::size_t longest = 0;
  for (const ReasonCodeInfo& row : every_reason_code()) longest = std::max(longest, row.name.size());
  const ReasonGroupInfo* group = nullptr;
  for (const ReasonCodeInfo& row : every_reason_code()) {
    if (group == nullptr || group->group != row.group) {
      group = &info(row.group);
      out << (row.code == every_reason_code().front().code ? "" : "\n") << group->title << '\n';
    }
    out << "  " << row.name << std::string(longest + 2 - row.name.size(), ' ') << row.next_step << '\n';
  }
}

}  // namespace ibgpu
