#pragma once
// JSON text written value by value, byte for byte as nlohmann::json's dump()
// (compact) or dump(2) (indented) writes the same document: the report's long
// arrays (a fleet's results and verdicts) go to text without a DOM per element.
// Keys must come in the order dump() writes them: sorted, as std::map sorts.
// reports/json.cpp stays the model's serializer (and reader); the writers
// here must say what its to_json says, and tests/reports/json_writer_test.cpp
// compares the two.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/verdict.h"

namespace ibgpu {

class JsonWriter {
 public:
  // Appends to `out`; `depth`: how deeply the first value is nested, as dump(2) indents it.
  JsonWriter(std::string& out, bool indented, int depth = 0) : out_(out), indented_(indented), depth_(depth) {}

  void begin_object();
  void begin_array();
  void end();  // of the innermost open object or array
  void key(std::string_view name);
  void string(std::string_view text);
  void number(double v);  // not finite: null, as dump() writes it
  void number(std::int64_t v);
  void number(std::uint64_t v);
  void number(int v) { number(static_cast<std::int64_t>(v)); }
  void boolean(bool v);
  void null();
  void value(const nlohmann::json& j);

  // Absent: null.
  void string_or_null(const std::optional<std::string>& text);
  void number_or_null(const std::optional<double>& v);
  void strings(const std::vector<std::string>& items);

 private:
  void before_value();
  void newline_indent(std::size_t level);
  void escaped(std::string_view text);

  std::string& out_;
  bool indented_;
  std::size_t depth_;
  struct Open {
    char closing;  // '}' or ']'
    bool empty;    // nothing in it yet
  };
  std::vector<Open> open_;
  bool after_key_ = false;
};

// The text of json(p) and json(v) (reports/json.cpp).
void write_json(JsonWriter& w, const ProbeResult& p);
void write_json(JsonWriter& w, const Verdict& v);

}  // namespace ibgpu
