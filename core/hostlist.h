#pragma once
// Slurm hostlist expressions: "gpu[001-032]", "gpu[001-004,010]", "a[1-2]b[3-4]", lists of
// them separated by commas ("gpu[01-02],login1"). A range keeps the zero padding of its lower
// bound ("[001-032]": gpu001 .. gpu032). Pure.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ibgpu {

// The names an expression stands for, in its order. Throws InputError saying what was expected
// (an unclosed bracket, a range that runs backwards, a range of letters) or when the names would
// be more than max_names (a typo such as "n[0-99999999]" must not fill the memory).
std::vector<std::string> expand_hostlist(std::string_view expression, std::size_t max_names);

// The shortest plain form of a set of names: "node[01-04,07],login1". Names that end in digits are
// grouped by their prefix and the width of their number; the rest are listed as they are. Sorted.
std::string compress_hostlist(std::vector<std::string> names);

}  // namespace ibgpu
