#include <algorithm>
#include <string_view>
#include <vector>

#include "subcommand.h"

namespace ibgpu::cli {

namespace {

// Optimal string alignment distance: Levenshtein plus a swap of two neighbours as one edit,
// the commonest typo ("chekc").
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::vector<std::string> close_names(const std::string& word, const std::vector<std::string>& names) {
  std::vector<std::string> best;
  std::size_t best_distance = 3;
  for (const auto& name : names) {
    std::size_t distance = edit_distance(word, name);
    if (distance > 2 || 2 * distance >= name.size()) distance = 3;
    if (word.size() >= 2 && name.starts_with(word)) distance = std::min<std::size_t>(distance, 1);
    if (distance < best_distance) {
      best.clear();
      best_distance = distance;
    }
    if (distance == best_distance && distance < 3) best.push_back(name);
  }
  return best;
}

std::string quoted_list(const std::string& prefix, const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out += i + 1 == names.size() ? " or " : ", ";
    out += "'" + prefix + names[i] + "'";
  }
  return out;
}

std::string unknown_command(const CLI::App& app, int argc, char** argv) {
  const CLI::App* level = &app;
  std::string path;
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') continue;  // the levels with commands take flags only
    const auto subs = level->get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); });
    if (subs.empty()) return "";
    const auto match = std::find_if(subs.begin(), subs.end(), [&](const CLI::App* s) { return s->get_name() == word; });
    if (match == subs.end()) {
      std::vector<std::string> names;
      for (const CLI::App* s : subs) names.push_back(s->get_name());
      const auto close = close_names(word, names);
      std::string message = "unknown command '" + path + word + "'";
      if (!close.empty()) return message + "; did you mean " + quoted_list(path, close) + "?";
      return message + " (ibgpu " + path + "--help lists them)";
    }
    level = *match;
    path += word + " ";
    if (level->get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); }).empty()) return "";
  }
  return "";
}

std::string unknown_option(const CLI::App& app, int argc, char** argv) {
  auto named = [](const CLI::App* s) { return !s->get_name().empty(); };
  const CLI::App* level = &app;
  for (int i = 1; i < argc; ++i) {  // the command named: option values in between are not commands
    const std::string word = argv[i];
    if (word.empty() || word[0] == '-') continue;
    const auto subs = level->get_subcommands(named);
    const auto match = std::find_if(subs.begin(), subs.end(), [&](const CLI::App* s) { return s->get_name() == word; });
    if (match != subs.end()) level = *match;
  }
  // The command's options and its option groups' (CLI11 keeps a group as a command without a name).
  std::vector<std::string> names;
  std::vector<const CLI::App*> holders{level};
  for (std::size_t i = 0; i < holders.size(); ++i) {
    for (const CLI::Option* option : holders[i]->get_options())
      if (!option->get_group().empty())  // hidden options are not suggested
        for (const auto& name : option->get_lnames()) names.push_back("--" + name);
    for (const CLI::App* group : holders[i]->get_subcommands([](const CLI::App* s) { return s->get_name().empty(); }))
      holders.push_back(group);
  }
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") break;
    if (!word.starts_with("--")) continue;
    const std::string name = word.substr(0, word.find('='));
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    const std::string where = level == &app ? "" : " of '" + level->get_name() + "'";
    const auto close = close_names(name, names);
    if (!close.empty())
      return "unknown option '" + name + "'" + where + "; did you mean " + quoted_list("", close) + "?";
    return "unknown option '" + name + "'" + where + " (ibgpu " + (level == &app ? "" : level->get_name() + " ") +
           "--help lists them)";
  }
  return "";
}

}  // namespace ibgpu::cli
