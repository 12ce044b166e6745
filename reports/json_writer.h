#pragma once
// Streams JSON text exactly as nlohmann::json::dump(2) writes the same
// document, without building the document first: a fleet's report holds
// hundreds of thousands of probe results, and a tree of them costs far more
// than their text. Callers write object keys in sorted order, as nlohmann's
// object keeps them; a test compares the two byte for byte.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ibgpu {

// Whether text goes into JSON as it is: printable ASCII without quote or
// backslash. Eight bytes at a time: the report checks millions of short
// strings (each byte test is exact, no false answer either way).
inline bool json_plain_text(const char* text, std::size_t size) {
  constexpr std::uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
  auto has_zero_byte = [](std::uint64_t w) { return ((w - ones) & ~w & highs) != 0; };
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, text + i, 8);
    const bool below_space = ((w - ones * 0x20) & ~w & highs) != 0;
    const bool above_tilde = ((w + ones * (127 - 0x7e)) | w) & highs;
    if (below_space || above_tilde || has_zero_byte(w ^ (ones * '"')) || has_zero_byte(w ^ (ones * '\\'))) return false;
  }
  for (; i < size; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
  }
  return true;
}

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out);
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  JsonWriter& key(std::string_view name);  // inside an object, before its value
  // A key written in the source: its length is known when compiled, and the
  // report writes millions of them.
  // (Inlined, the check of a literal's text folds away when compiled.)
  template <std::size_t N>
  JsonWriter& key(const char (&name)[N]) {
    return json_plain_text(name, N - 1) ? key_plain(name, N - 1) : key_text(name, N - 1);
  }

  void string(std::string_view text);
  void number(double v);  // not finite: null, as dump() writes it
  void integer(long long v);
  void unsigned_integer(unsigned long long v);
  void boolean(bool v);
  void null();
  void json(const nlohmann::json& value);

  // Shorthands for the result model's optional fields.
  void number(const std::optional<double>& v) { v ? number(*v) : null(); }
  void string_or_null(const std::optional<std::string>& text) { text ? string(*text) : null(); }
  void strings(const std::vector<std::string>& items);
  void integers(const std::vector<int>& items);

  // Hands what is buffered to the stream; done as the buffer fills, and
  // once more by the caller at the end (a destructor must not throw).
  void flush();

 private:
  JsonWriter& key_text(const char* name, std::size_t size);
  JsonWriter& key_plain(const char* name, std::size_t size);  // text known to need no escapes
  void before_value();
  void new_line();
  void append_string(std::string_view text);
  void append_escaped(std::string_view text);
  // Room for n more bytes in the buffer, flushing it first when it lacks them.
  char* room(std::size_t n) {
    if (static_cast<std::size_t>(end_ - at_) < n) make_room(n);
    return at_;
  }
  void make_room(std::size_t n);
  void put(const char* text, std::size_t size) {
    std::memcpy(room(size), text, size);
    at_ += size;
  }
  void put(char c) {
    *room(1) = c;
    ++at_;
  }

  std::ostream& out_;
  std::unique_ptr<char[]> buffer_;
  std::size_t capacity_;
  char* at_;
  char* end_;
  std::vector<std::uint8_t> open_;  // per open container: whether it has an element yet
  bool after_key_ = false;
};

}  // namespace ibgpu
