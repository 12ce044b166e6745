#pragma once
// Small text helpers the reporters share. Pure.
#include <optional>
#include <string>
#include <vector>

namespace ibgpu {

// "2026-01-02T03:04:05Z" (or with a +hh:mm offset, fractions ignored) as Unix
// seconds; nullopt when the text is not RFC 3339.
std::optional<long long> unix_seconds(const std::string& rfc3339);

// The shortest text that reads back as the same double ("11.5", "1e+20").
std::string shortest_number(double v);

std::string join(const std::vector<std::string>& items, const std::string& sep);

}  // namespace ibgpu
