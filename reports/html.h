#pragma once
// Pieces of the HTML report (reports/html_reporter.cpp) that stand and are
// tested on their own.
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

#include "core/report.h"
#include "reports/bandwidth_matrix.h"

namespace ibgpu {

// Text safe in HTML and SVG content and in quoted attribute values: host
// names, error texts and reasons are untrusted input. Control characters
// other than tab and newlines become U+FFFD.
std::string html_escape(std::string_view text);

// A colour of the heatmap ramp (viridis-like, dark = slow): t in [0, 1]
// quantised to 16 steps, so equal neighbours merge at scale. "#rrggbb".
std::string ramp_colour(double t);
// The ramp as a CSS gradient, for the legend.
std::string ramp_css_gradient();
// The heatmap's scale is fixed to the rail's best value, not spread from its worst to its best: a
// pair sits on the ramp by its ratio to the best (best / value for latency), from this ratio or
// worse (the darkest) to 1 (the brightest). A healthy rail whose pairs lie within a few percent
// of each other stays bright instead of spanning the whole ramp.
inline constexpr double kRampFloorRatio = 0.5;

// Up to this many hosts every cell is its own element with a tooltip; above
// it the cells are one embedded image (a pixel per pair, about hosts^2 bytes
// however noisy the data) and only host rows and flagged pairs keep tooltips.
inline constexpr std::size_t kHeatmapDetailedHosts = 64;
// Up to this many hosts cells carry their value as text.
inline constexpr std::size_t kHeatmapLabelledHosts = 12;
// The matrix is drawn at most this many pixels wide, whatever the host count.
inline constexpr double kHeatmapMaxSide_px = 720;

// <svg class="heatmap" data-quantity=.. data-rail=.. data-probe=..> for one
// matrix (bandwidth or latency; the best value brightest either way). The
// diagonal is drawn as no pair; flagged links are marked by shape.
void write_heatmap_svg(const PairMatrix& matrix, std::ostream& out);

// A state as a label: a glyph and the word on a background of its own, so
// that neither colour nor the glyph alone carries it. `state` is a
// HealthState's name or "none" (not judged).
std::string state_badge(const std::string& state);

// A number for markup: up to four significant digits, no locale.
std::string svg_number(double v);

// The all-reduce section: a table per group and size, and bus bandwidth over
// message size as a chart (html_allreduce.cpp). Nothing when the run has none.
void write_allreduce_section(const Report& report, std::ostream& out);

// The burn-in section: for every entity not healthy over the rounds, each of
// its figures drawn round by round with the rounds it was not healthy in
// marked (html_burn_in.cpp). Nothing for a single check.
void write_burn_in_section(const Report& report, std::ostream& out);

}  // namespace ibgpu
