#include "scheduler/admission_actions.h"

#include <cctype>
#include <cstdio>

#include "health/admission.h"

namespace ibgpu {

namespace {

bool space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// "{word}" at `at`, with word [a-z_]+: its length, else 0.
std::size_t placeholder_at(std::string_view arg, std::size_t at) {
  if (arg[at] != '{') return 0;
  std::size_t end = at + 1;
  while (end < arg.size() && (std::islower(static_cast<unsigned char>(arg[end])) || arg[end] == '_')) ++end;
  if (end == at + 1 || end >= arg.size() || arg[end] != '}') return 0;
  return end - at + 1;
}

void check_placeholders(std::string_view arg) {
  for (std::size_t i = 0; i < arg.size(); ++i) {
    const std::size_t n = placeholder_at(arg, i);
    if (n == 0) continue;
    const std::string_view name = arg.substr(i, n);
    if (name != "{host}" && name != "{reason}")
      throw TemplateError("unknown placeholder " + std::string(name) + " (known: {host}, {reason})");
  }
}

// Words the shell reads as syntax in command position ("if", "time"): quoted there.
bool reserved_word(std::string_view word) {
  for (std::string_view r : {"!",    "{",  "}",   "[[",       "]]", "case", "coproc", "do",   "done", "elif",  "else",
                             "esac", "fi", "for", "function", "if", "in",   "select", "then", "time", "until", "while"})
    if (word == r) return true;
  return false;
}

bool plain_word(std::string_view word, bool first) {
  if (word.empty()) return false;
  if (first && reserved_word(word)) return false;
  for (char c : word) {
    const bool ok =
        std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_@%+=:,./-").find(c) != std::string_view::npos;
    if (!ok) return false;
    if (first && c == '=') return false;  // the shell would read NAME=value as an assignment
  }
  return true;
}

bool has_control(std::string_view word) {
  for (char c : word)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  return false;
}

std::string quote_word(std::string_view word, bool first) {
  if (plain_word(word, first)) return std::string(word);
  std::string out;
  if (has_control(word)) {
    out = "$'";
    for (char c : word) {
      const auto u = static_cast<unsigned char>(c);
      if (c == '\\' || c == '\'') {
        out += '\\';
        out += c;
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\t') {
        out += "\\t";
      } else if (u < 0x20 || u == 0x7f) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", u);
        out += hex;
      } else {
        out += c;
      }
    }
    return out + "'";
  }
  out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The value of `key=` in a node description: from after '=' to the end of
// the word (whole_line false) or of the line. Keys match only at the start of
// a word, so "NextState=" is not "State=".
std::optional<std::string> field(std::string_view text, std::string_view key, bool whole_line) {
  for (std::size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
    if (at > 0 && !space(text[at - 1])) continue;
    std::size_t begin = at + key.size(), end = begin;
    while (end < text.size() && text[end] != '\n' && (whole_line || !space(text[end]))) ++end;
    std::string_view value = text.substr(begin, end - begin);
    while (!value.empty() && space(value.back())) value.remove_suffix(1);
    return std::string(value);
  }
  return std::nullopt;
}

std::vector<std::string> slurm_update(const std::string& host, std::vector<std::string> rest) {
  std::vector<std::string> argv{"scontrol", "update", "NodeName=" + host};
  argv.insert(argv.end(), rest.begin(), rest.end());
  return argv;
}

}  // namespace

std::vector<std::string> split_command_template(std::string_view text) {
  std::vector<std::string> argv;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (space(c)) {
      if (in_word) argv.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      const std::size_t close = text.find('\'', i + 1);
      if (close == std::string_view::npos) throw TemplateError("unclosed ' in command: " + std::string(text));
      word.append(text.substr(i + 1, close - i - 1));
      i = close;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() && (text[j + 1] == '"' || text[j + 1] == '\\')) ++j;
        word += text[j];
      }
      if (j >= text.size()) throw TemplateError("unclosed \" in command: " + std::string(text));
      i = j;
    } else if (c == '\\') {
      if (i + 1 >= text.size()) throw TemplateError("command ends in a lone backslash: " + std::string(text));
      word += text[++i];
    } else {
      word += c;
    }
  }
  if (in_word) argv.push_back(std::move(word));
  if (argv.empty()) throw TemplateError("empty command");
  for (const auto& arg : argv) check_placeholders(arg);
  return argv;
}

std::vector<std::string> expand_command_template(const std::vector<std::string>& argv_template, const std::string& host,
                                                 const std::string& reason) {
  std::vector<std::string> argv;
  argv.reserve(argv_template.size());
  for (const std::string& arg : argv_template) {
    std::string out;
    for (std::size_t i = 0; i < arg.size();) {
      const std::size_t n = placeholder_at(arg, i);
      const std::string_view name = std::string_view(arg).substr(i, n);
      if (name == "{host}")
        out += host;
      else if (name == "{reason}")
        out += reason;
      else {
        out += arg[i++];
        continue;
      }
      i += n;
    }
    argv.push_back(std::move(out));
  }
  return argv;
}

const char* to_string(ActionKind kind) { return kind == ActionKind::drain ? "drain" : "resume"; }

std::vector<PlannedAction> plan_admission_actions(const std::vector<Verdict>& verdicts,
                                                  const AdmissionActionOptions& options) {
  std::vector<PlannedAction> plan;
  for (const auto& v : verdicts) {
    if (v.entity.kind() != EntityKind::node || !v.action) continue;
    const std::string& host = v.entity.id();
    const std::string reason = short_reasons(v);
    PlannedAction a;
    a.host = host;
    if (*v.action == Action::drain) {
      a.kind = ActionKind::drain;
      if (options.slurm) {
        a.argv = slurm_update(host, {"State=DRAIN", "Reason=" + std::string(kSlurmReasonPrefix) + " " + reason});
        a.guard_query = {"scontrol", "show", "node", host, "-o"};
      } else if (!options.drain_cmd.empty())
        a.argv = expand_command_template(options.drain_cmd, host, reason);
    } else {
      a.kind = ActionKind::resume;
      if (options.slurm) {
        a.argv = slurm_update(host, {"State=RESUME"});
        a.guard_query = {"scontrol", "show", "node", host, "-o"};
      } else if (!options.resume_cmd.empty()) {
        a.argv = expand_command_template(options.resume_cmd, host, reason);
      }
    }
    if (!a.argv.empty()) plan.push_back(std::move(a));
  }
  return plan;
}

std::string quote_argv(const std::vector<std::string>& argv) {
  std::string line;
  for (std::size_t i = 0; i < argv.size(); ++i) line += (i ? " " : "") + quote_word(argv[i], i == 0);
  return line;
}

bool SlurmNodeState::drained() const { return state.find("DRAIN") != std::string::npos; }

std::optional<SlurmNodeState> parse_scontrol_show_node(std::string_view text) {
  auto state = field(text, "State=", false);
  if (!state) return std::nullopt;
  return SlurmNodeState{*state, field(text, "Reason=", true).value_or("")};
}

bool drained_by_ibgpu(const SlurmNodeState& node) {
  return node.drained() && node.reason.compare(0, kSlurmReasonPrefix.size(), kSlurmReasonPrefix) == 0;
}

bool drained_by_someone_else(const SlurmNodeState& node) { return node.drained() && !drained_by_ibgpu(node); }

}  // namespace ibgpu
