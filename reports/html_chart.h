#pragma once
// A small line chart as inline SVG for the HTML report: the all-reduce's bus
// bandwidth over message size, a burn-in figure over the rounds. Series are
// told apart by dash and marker as well as colour.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ibgpu {

struct ChartPoint {
  double x = 0, y = 0;
  bool flagged = false;  // drawn as a larger black-outlined diamond (a round not healthy)
  std::string title;     // the point's tooltip
};

struct ChartSeries {
  std::string name;
  std::vector<ChartPoint> points;  // in x order
  // Optional spread around the line (same x as the points): a shaded band.
  std::vector<double> low, high;
};

// A vertical band over [from, to] on the x axis, e.g. a round the entity was not healthy in.
struct ChartBand {
  double from = 0, to = 0;
  std::string title;
};

struct LineChart {
  std::string cls;  // added to "chart" on the <svg>
  std::string label;
  std::string x_label, y_label;
  bool log2_x = false;                                  // message sizes
  std::optional<std::pair<double, double>> x_range;     // else from the points and bands
  std::vector<std::pair<double, std::string>> x_ticks;  // at x (not yet log2), with their text
  std::vector<ChartBand> bands;
  std::vector<ChartSeries> series;
  std::vector<std::pair<std::string, std::string>> data;  // extra data-* attributes on the <svg>
};

// Draws nothing but an empty frame when no series has a point.
void write_line_chart(const LineChart& chart, std::ostream& out);

// The marker, dash and colour of series `i` as a small inline SVG for a legend.
std::string series_swatch(std::size_t i);

}  // namespace ibgpu
