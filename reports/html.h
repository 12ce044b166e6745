#pragma once
// Pieces of the HTML report (reports/html_reporter.cpp) that stand and are
// tested on their own.
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

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

// Up to this many hosts every cell is its own element with a tooltip; above
// it the cells are one embedded image (a pixel per pair, about hosts^2 bytes
// however noisy the data) and only host rows and flagged pairs keep tooltips.
inline constexpr std::size_t kHeatmapDetailedHosts = 64;
// Up to this many hosts cells carry their value as text.
inline constexpr std::size_t kHeatmapLabelledHosts = 12;
// The matrix is drawn at most this many pixels wide, whatever the host count.
inline constexpr double kHeatmapMaxSide_px = 720;

// <svg class="heatmap" data-rail=.. data-probe=..> for one matrix; `index`
// keeps its pattern ids unique within the page.
void write_heatmap_svg(const BandwidthMatrix& matrix, std::size_t index, std::ostream& out);

}  // namespace ibgpu
