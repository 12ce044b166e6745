#pragma once
// Errors in saved JSON said for the person who has the file open: where (a JSON pointer, or a
// line and column) and what was expected, never the JSON library's own tags and numbers.
#include <nlohmann/json.hpp>
#include <string>

#include "core/report.h"

namespace ibgpu {

// "[json.exception.type_error.302] type must be string, but is null" -> "expected a string, found
// null"; "key 'x' not found" -> "missing member 'x'"; anything else without the library's tag.
std::string describe_json_error(const std::string& what);
// "[json.exception.parse_error.101] parse error at line 2, column 1: syntax error while parsing
// array - unexpected end of input; expected ']'" -> "line 2, column 1: unexpected end of input;
// expected ']' (in an array)".
std::string describe_parse_error(const std::string& what);

// j.get<Report>(), or InputError naming the place: "at /probes/1/status: expected a string, found null".
Report decode_report(const nlohmann::json& j);

}  // namespace ibgpu
