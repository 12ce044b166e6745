#include "reports/json_writer.h"

#include <charconv>
#include <cmath>

namespace ibgpu {

namespace {

constexpr std::size_t kFlushBytes = std::size_t{1} << 16;

// Printable ASCII without quote or backslash is written as it is; anything
// else goes through nlohmann's escaping and UTF-8 checks.
bool plain_text(std::string_view text) {
  for (const char c : text)
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
  return true;
}

}  // namespace

void JsonWriter::new_line(std::size_t depth) {
  buffer_ += '\n';
  buffer_.append(2 * depth, ' ');
}

// Inside an array each value starts a line; after a key it follows ": ".
void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (open_.empty()) return;
  if (open_.back()) buffer_ += ',';
  open_.back() = true;
  new_line(open_.size());
}

JsonWriter& JsonWriter::key(std::string_view name) {
  if (open_.back()) buffer_ += ',';
  open_.back() = true;
  new_line(open_.size());
  append_string(name);
  buffer_ += ": ";
  after_key_ = true;
  return *this;
}

void JsonWriter::begin_object() {
  before_value();
  buffer_ += '{';
  open_.push_back(false);
}

void JsonWriter::begin_array() {
  before_value();
  buffer_ += '[';
  open_.push_back(false);
}

// An empty container closes on its own line: "{}" and "[]".
void JsonWriter::end_object() {
  const bool any = open_.back();
  open_.pop_back();
  if (any) new_line(open_.size());
  buffer_ += '}';
  maybe_flush();
}

void JsonWriter::end_array() {
  const bool any = open_.back();
  open_.pop_back();
  if (any) new_line(open_.size());
  buffer_ += ']';
  maybe_flush();
}

void JsonWriter::append_string(std::string_view text) {
  if (!plain_text(text)) {
    buffer_ += nlohmann::json(std::string(text)).dump();
    return;
  }
  buffer_ += '"';
  buffer_ += text;
  buffer_ += '"';
}

void JsonWriter::string(std::string_view text) {
  before_value();
  append_string(text);
}

void JsonWriter::number(double v) {
  before_value();
  if (!std::isfinite(v)) {
    buffer_ += "null";
    return;
  }
  // The serializer's own shortest round-trip form ("400.0", "1e-05"), so
  // numbers read exactly as dump() writes them.
  char text[64];
  const char* end = nlohmann::detail::to_chars(text, text + sizeof text, v);
  buffer_.append(text, static_cast<std::size_t>(end - text));
}

void JsonWriter::integer(long long v) {
  before_value();
  char text[24];
  buffer_.append(text, static_cast<std::size_t>(std::to_chars(text, text + sizeof text, v).ptr - text));
}

void JsonWriter::unsigned_integer(unsigned long long v) {
  before_value();
  char text[24];
  buffer_.append(text, static_cast<std::size_t>(std::to_chars(text, text + sizeof text, v).ptr - text));
}

void JsonWriter::boolean(bool v) {
  before_value();
  buffer_ += v ? "true" : "false";
}

void JsonWriter::null() {
  before_value();
  buffer_ += "null";
}

void JsonWriter::strings(const std::vector<std::string>& items) {
  begin_array();
  for (const auto& item : items) string(item);
  end_array();
}

void JsonWriter::integers(const std::vector<int>& items) {
  begin_array();
  for (int item : items) integer(item);
  end_array();
}

void JsonWriter::json(const nlohmann::json& value) {
  using Type = nlohmann::json::value_t;
  switch (value.type()) {
    case Type::object:
      begin_object();
      for (auto it = value.begin(); it != value.end(); ++it) {
        key(it.key());
        json(it.value());
      }
      end_object();
      return;
    case Type::array:
      begin_array();
      for (const auto& item : value) json(item);
      end_array();
      return;
    case Type::string: string(value.get_ref<const std::string&>()); return;
    case Type::boolean: boolean(value.get<bool>()); return;
    case Type::number_integer: integer(value.get<long long>()); return;
    case Type::number_unsigned: unsigned_integer(value.get<unsigned long long>()); return;
    case Type::number_float: number(value.get<double>()); return;
    case Type::null: null(); return;
    case Type::binary:
    case Type::discarded: break;
  }
  // Kinds a report never holds: dump() at this depth, line by line.
  before_value();
  const std::string text = value.dump(2);
  const std::string pad(2 * open_.size(), ' ');
  for (const char c : text) {
    buffer_ += c;
    if (c == '\n') buffer_ += pad;
  }
}

void JsonWriter::maybe_flush() {
  if (buffer_.size() >= kFlushBytes) flush();
}

void JsonWriter::flush() {
  out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.clear();
}

}  // namespace ibgpu
