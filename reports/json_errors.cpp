#include "reports/json_errors.h"

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "core/bounded_input.h"
#include "reports/json.h"

namespace ibgpu {

using json = nlohmann::json;

namespace {

// nlohmann's message without its "[json.exception.type_error.302] " tag.
std::string untagged(const std::string& what) {
  if (what.rfind("[json.exception.", 0) == 0)
    if (const auto end = what.find("] "); end != std::string::npos) return what.substr(end + 2);
  return what;
}

std::string with_article(const std::string& type) {
  if (type == "null") return "null";
  const bool vowel = !type.empty() && std::string_view("aeiou").find(type[0]) != std::string_view::npos;
  return (vowel ? "an " : "a ") + type;
}

// "type must be string, but is null" -> {"string", "null"}.
std::optional<std::pair<std::string, std::string>> expected_and_found(const std::string& text) {
  static constexpr std::string_view kMust = "type must be ", kBut = ", but is ";
  if (text.rfind(kMust, 0) != 0) return std::nullopt;
  const auto but = text.find(kBut);
  if (but == std::string::npos) return std::nullopt;
  return std::make_pair(text.substr(kMust.size(), but - kMust.size()), text.substr(but + kBut.size()));
}

// A value of the type a message says was expected, to try in the place of a suspect.
std::optional<json> placeholder(const std::string& type) {
  if (type == "string") return json("");
  if (type == "number") return json(0);
  if (type == "boolean") return json(false);
  if (type == "array") return json::array();
  if (type == "object") return json::object();
  return std::nullopt;
}

std::string escape_pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

using Decode = std::function<void(const json&)>;

// The error `decode` throws for `value`, or nullopt when it decodes.
std::optional<std::string> decode_error(const Decode& decode, const json& value) {
  try {
    decode(value);
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
}

// Which member (at any depth) of `value` a type error is about: the one place where a value of the
// expected type instead of the found one makes `value` decode, or, when none does, the only place
// where it turns the error into one that is not about a type (the decoder then checks the content:
// "" is no probe status). Empty when no single place does: a value can be wrong twice.
std::string place_of_type_error(const Decode& decode, const json& value, const std::string& message) {
  const auto types = expected_and_found(untagged(message));
  if (!types) return "";
  const auto replacement = placeholder(types->first);
  if (!replacement) return "";
  std::string decodes;
  std::vector<std::string> changes;
  std::size_t tries = 0;
  constexpr std::size_t kMaxTries = 200;  // only the small pieces reach this; a bound all the same
  std::function<void(const json&, const std::string&)> walk = [&](const json& v, const std::string& pointer) {
    if (!decodes.empty() || tries >= kMaxTries) return;
    if (!pointer.empty() && v.type_name() == types->second) {
      ++tries;
      json patched = value;
      patched[json::json_pointer(pointer)] = *replacement;
      const auto error = decode_error(decode, patched);
      if (!error) {
        decodes = pointer;
        return;
      }
      if (*error != message && !expected_and_found(untagged(*error))) changes.push_back(pointer);
    }
    if (v.is_object())
      for (const auto& [key, member] : v.items()) walk(member, pointer + "/" + escape_pointer_token(key));
    else if (v.is_array())
      for (std::size_t i = 0; i < v.size(); ++i) walk(v[i], pointer + "/" + std::to_string(i));
  };
  walk(value, "");
  if (!decodes.empty()) return decodes;
  return changes.size() == 1 ? changes.front() : "";
}

// Which object (at any depth) of `value` lacks the member a "key 'x' not found" error names: the
// one where adding it makes the error go away or become another that is not about a type. Objects
// that do not read the member, or read it optionally, are unaffected by a value of its right type.
std::string place_of_missing_key(const Decode& decode, const json& value, const std::string& message) {
  const std::string text = untagged(message);
  if (text.rfind("key '", 0) != 0 || !text.ends_with("' not found") || text.size() <= 16) return "";
  const std::string key = text.substr(5, text.size() - 16);
  std::string found;
  std::size_t tries = 0;
  constexpr std::size_t kMaxTries = 200;
  std::function<void(const json&, const std::string&)> walk = [&](const json& v, const std::string& pointer) {
    if (!found.empty() || tries >= kMaxTries) return;
    if (v.is_object() && !v.contains(key))
      for (const char* type : {"string", "number", "boolean", "array", "object"}) {
        ++tries;
        json patched = value;
        patched[json::json_pointer(pointer + "/" + escape_pointer_token(key))] = *placeholder(type);
        const auto error = decode_error(decode, patched);
        if (!error || (*error != message && !expected_and_found(untagged(*error)))) {
          found = pointer.empty() ? "/" : pointer;
          return;
        }
      }
    if (v.is_object())
      for (const auto& [k, member] : v.items()) walk(member, pointer + "/" + escape_pointer_token(k));
    else if (v.is_array())
      for (std::size_t i = 0; i < v.size(); ++i) walk(v[i], pointer + "/" + std::to_string(i));
  };
  walk(value, "");
  return found == "/" ? "" : found;
}

// The error of decoding `value`, said at its place under `pointer`: "at /probes/1/status: expected
// a string, found null".
[[noreturn]] void throw_located(const Decode& decode, const json& value, const std::string& pointer,
                                const std::string& message) {
  std::string inner;
  try {
    inner = place_of_type_error(decode, value, message);
    if (inner.empty()) inner = place_of_missing_key(decode, value, message);
  } catch (const std::exception&) {  // the search is a courtesy: the element's place still stands
    inner.clear();
  }
  const std::string place = pointer + inner;
  throw InputError("at " + (place.empty() ? std::string("the top level") : place) + ": " +
                   describe_json_error(message));
}

template <class T>
Decode decoder() {
  return [](const json& v) { static_cast<void>(v.get<T>()); };
}

// Each element of the array `key` of `parent` on its own, so an error names its index.
template <class T>
void check_elements(const json& parent, const char* key, const std::string& pointer) {
  const auto it = parent.find(key);
  if (it == parent.end() || !it->is_array()) return;
  for (std::size_t i = 0; i < it->size(); ++i)
    if (const auto error = decode_error(decoder<T>(), (*it)[i]))
      throw_located(decoder<T>(), (*it)[i], pointer + "/" + key + "/" + std::to_string(i), *error);
}

}  // namespace

std::string describe_json_error(const std::string& what) {
  std::string text = untagged(what);
  if (const auto types = expected_and_found(text))
    return "expected " + with_article(types->first) + ", found " + with_article(types->second);
  // out_of_range.403: "key 'exit_code' not found"
  if (text.rfind("key '", 0) == 0 && text.size() > 16 && text.ends_with("' not found"))
    return "missing member " + text.substr(4, text.size() - 14);
  // type_error.304/305: "cannot use at() with array", "cannot use operator[] with a string argument with array"
  if (text.rfind("cannot use ", 0) == 0)
    if (const auto with = text.rfind(" with "); with != std::string::npos)
      return "expected an object, found " + with_article(text.substr(with + 6));
  return text;
}

std::string describe_parse_error(const std::string& what) {
  std::string text = untagged(what);
  // "parse error at line 2, column 1: syntax error while parsing array - unexpected end of input; expected ']'"
  static constexpr std::string_view kAt = "parse error at ";
  if (text.rfind(kAt, 0) == 0) {
    std::string place = text.substr(kAt.size());
    std::string detail;
    if (const auto colon = place.find(": "); colon != std::string::npos) {
      detail = place.substr(colon + 2);
      place.resize(colon);
    }
    static constexpr std::string_view kSyntax = "syntax error while parsing ";
    if (detail.rfind(kSyntax, 0) == 0)
      if (const auto dash = detail.find(" - "); dash != std::string::npos)
        detail = detail.substr(dash + 3) + " (in " +
                 with_article(detail.substr(kSyntax.size(), dash - kSyntax.size())) + ")";
    return place + ": " + detail;
  }
  return text;
}

Report decode_report(const json& j) {
  try {
    return j.get<Report>();
  } catch (const std::exception& e) {
    const std::string first = e.what();
    // The arrays element by element, then the rest of the report without them: the place is as
    // narrow as the decoders allow, and large reports are never walked as a whole.
    check_elements<HostInventory>(j, "hosts", "");
    check_elements<ProbeResult>(j, "probes", "");
    check_elements<Verdict>(j, "verdicts", "");
    if (const auto b = j.find("burn_in"); b != j.end() && b->is_object())
      check_elements<BurnInEntity>(*b, "entities", "/burn_in");
    if (const auto s = j.find("summary"); s != j.end())
      if (const auto error = decode_error(decoder<RunSummary>(), *s))
        throw_located(decoder<RunSummary>(), *s, "/summary", *error);
    // Copied without the arrays: a fleet's report is large, its top level small.
    json rest = json::object();
    for (const auto& [key, member] : j.items())
      rest[key] =
          (key == "hosts" || key == "probes" || key == "verdicts") && member.is_array() ? json::array() : member;
    if (rest.contains("burn_in") && rest["burn_in"].is_object() && rest["burn_in"].contains("entities") &&
        rest["burn_in"]["entities"].is_array())
      rest["burn_in"]["entities"] = json::array();
    const auto error = decode_error(decoder<Report>(), rest);
    throw_located(decoder<Report>(), rest, "", error.value_or(first));
  }
}

}  // namespace ibgpu
