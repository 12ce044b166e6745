#include "reports/json_writer.h"

#include <charconv>
#include <cmath>

namespace ibgpu {

namespace {

// Big enough that a stream sees few, large writes; small enough to stay in cache.
constexpr std::size_t kBufferBytes = std::size_t{1} << 16;

// A new line and the indent of up to kIndentLevels levels, copied in one piece.
constexpr std::size_t kIndentLevels = 32;
struct Indents {
  char text[1 + 2 * kIndentLevels];
  constexpr Indents() : text() {
    text[0] = '\n';
    for (std::size_t i = 1; i < sizeof text; ++i) text[i] = ' ';
  }
};
constexpr Indents kIndents;

}  // namespace

JsonWriter::JsonWriter(std::ostream& out)
    : out_(out), buffer_(new char[kBufferBytes]), capacity_(kBufferBytes), at_(buffer_.get()), end_(at_ + capacity_) {}

void JsonWriter::make_room(std::size_t n) {
  flush();
  if (n <= capacity_) return;
  buffer_.reset(new char[n]);  // one text longer than the buffer: grow it to that
  capacity_ = n;
  at_ = buffer_.get();
  end_ = at_ + capacity_;
}

void JsonWriter::new_line() {
  const std::size_t depth = open_.size();
  if (depth <= kIndentLevels) return put(kIndents.text, 1 + 2 * depth);
  put('\n');
  for (std::size_t i = 0; i < depth; ++i) put("  ", 2);
}

// Inside an array each value starts a line; after a key it follows ": ".
void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (open_.empty()) return;
  if (open_.back()) put(',');
  open_.back() = 1;
  new_line();
}

JsonWriter& JsonWriter::key(std::string_view name) { return key_text(name.data(), name.size()); }

JsonWriter& JsonWriter::key_text(const char* name, std::size_t size) {
  if (json_plain_text(name, size)) return key_plain(name, size);
  if (open_.back()) put(',');
  open_.back() = 1;
  new_line();
  append_escaped({name, size});
  put(": ", 2);
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::key_plain(const char* name, std::size_t size) {
  if (open_.back()) put(',');
  open_.back() = 1;
  new_line();
  char* at = room(size + 4);
  *at++ = '"';
  std::memcpy(at, name, size);
  at += size;
  std::memcpy(at, "\": ", 3);
  at_ = at + 3;
  after_key_ = true;
  return *this;
}

void JsonWriter::begin_object() {
  before_value();
  put('{');
  open_.push_back(0);
}

void JsonWriter::begin_array() {
  before_value();
  put('[');
  open_.push_back(0);
}

// An empty container closes on its own line: "{}" and "[]".
void JsonWriter::end_object() {
  const bool any = open_.back();
  open_.pop_back();
  if (any) new_line();
  put('}');
}

void JsonWriter::end_array() {
  const bool any = open_.back();
  open_.pop_back();
  if (any) new_line();
  put(']');
}

void JsonWriter::append_escaped(std::string_view text) {
  const std::string escaped = nlohmann::json(std::string(text)).dump();
  put(escaped.data(), escaped.size());
}

void JsonWriter::append_string(std::string_view text) {
  if (!json_plain_text(text.data(), text.size())) return append_escaped(text);
  char* at = room(text.size() + 2);
  *at++ = '"';
  std::memcpy(at, text.data(), text.size());
  at += text.size();
  *at++ = '"';
  at_ = at;
}

void JsonWriter::string(std::string_view text) {
  before_value();
  append_string(text);
}

void JsonWriter::number(double v) {
  before_value();
  if (!std::isfinite(v)) return put("null", 4);
  // The serializer's own shortest round-trip form ("400.0", "1e-05"), so
  // numbers read exactly as dump() writes them.
  char* at = room(64);
  at_ = nlohmann::detail::to_chars(at, at + 64, v);
}

void JsonWriter::integer(long long v) {
  before_value();
  char* at = room(24);
  at_ = std::to_chars(at, at + 24, v).ptr;
}

void JsonWriter::unsigned_integer(unsigned long long v) {
  before_value();
  char* at = room(24);
  at_ = std::to_chars(at, at + 24, v).ptr;
}

void JsonWriter::boolean(bool v) {
  before_value();
  v ? put("true", 4) : put("false", 5);
}

void JsonWriter::null() {
  before_value();
  put("null", 4);
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
      for (const auto& [name, item] : value.get_ref<const nlohmann::json::object_t&>()) {
        key(name);
        json(item);
      }
      end_object();
      return;
    case Type::array:
      begin_array();
      for (const auto& item : value.get_ref<const nlohmann::json::array_t&>()) json(item);
      end_array();
      return;
    case Type::string:
      string(value.get_ref<const std::string&>());
      return;
    case Type::boolean:
      boolean(value.get<bool>());
      return;
    case Type::number_integer:
      integer(value.get<long long>());
      return;
    case Type::number_unsigned:
      unsigned_integer(value.get<unsigned long long>());
      return;
    case Type::number_float:
      number(value.get<double>());
      return;
    case Type::null:
      null();
      return;
    case Type::binary:
    case Type::discarded:
      break;
  }
  // Kinds a report never holds: dump() at this depth, line by line.
  before_value();
  const std::string text = value.dump(2);
  for (const char c : text) {
    if (c == '\n')
      new_line();
    else
      put(c);
  }
}

void JsonWriter::flush() {
  out_.write(buffer_.get(), static_cast<std::streamsize>(at_ - buffer_.get()));
  at_ = buffer_.get();
}

}  // namespace ibgpu
