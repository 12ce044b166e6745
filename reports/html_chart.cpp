#include "reports/html_chart.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>

#include "reports/html.h"

namespace ibgpu {

namespace {

constexpr double kWidth = 640, kHeight = 260;
constexpr double kLeft = 60, kRight = 16, kTop = 12, kBottom = 44;

// Okabe and Ito's palette (distinct under the common colour-vision deficiencies),
// each also with a dash and a marker of its own.
constexpr std::array<const char*, 6> kColours{"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#000000", "#e69f00"};
constexpr std::array<const char*, 4> kDashes{"", "6 3", "2 3", "8 3 2 3"};
enum class Marker { circle, square, triangle };

Marker marker_of(std::size_t i) { return static_cast<Marker>(i % 3); }

// Opens the marker's element (the caller closes it) and returns its name.
const char* write_marker(std::ostream& out, Marker m, double x, double y, const char* colour) {
  switch (m) {
    case Marker::circle:
      out << "<circle cx=\"" << svg_number(x) << "\" cy=\"" << svg_number(y) << "\" r=\"3.5\" fill=\"" << colour
          << "\"";
      return "circle";
    case Marker::square:
      out << "<rect x=\"" << svg_number(x - 3.2) << "\" y=\"" << svg_number(y - 3.2)
          << "\" width=\"6.4\" height=\"6.4\" fill=\"" << colour << "\"";
      return "rect";
    case Marker::triangle:
      out << "<path d=\"M" << svg_number(x) << ' ' << svg_number(y - 4.5) << "L" << svg_number(x + 4) << ' '
          << svg_number(y + 3) << "H" << svg_number(x - 4) << "Z\" fill=\"" << colour << "\"";
      return "path";
  }
  return "";
}

// A round step for about five gridlines: 1, 2 or 5 times a power of ten.
double nice_step(double span) {
  if (span <= 0) return 1;
  const double raw = span / 5, power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double f : {1.0, 2.0, 5.0})
    if (raw <= f * power) return f * power;
  return 10 * power;
}

}  // namespace

std::string series_swatch(std::size_t i) {
  const char* colour = kColours[i % kColours.size()];
  std::ostringstream out;
  out << "<svg class=\"series-swatch\" width=\"28\" height=\"12\" viewBox=\"0 0 28 12\" aria-hidden=\"true\"><path "
         "d=\"M1 6H27\" "
         "stroke=\""
      << colour << "\" stroke-width=\"2\" stroke-dasharray=\"" << kDashes[i % kDashes.size()] << "\"/>";
  write_marker(out, marker_of(i), 14, 6, colour);
  out << "/></svg>";
  return out.str();
}

void write_line_chart(const LineChart& c, std::ostream& out) {
  auto fx = [&](double x) { return c.log2_x ? std::log2(std::max(x, 1e-300)) : x; };
  double x0 = std::numeric_limits<double>::max(), x1 = std::numeric_limits<double>::lowest();
  double y0 = 0, y1 = 0;
  for (const auto& s : c.series) {
    for (const auto& p : s.points) {
      x0 = std::min(x0, fx(p.x));
      x1 = std::max(x1, fx(p.x));
      y0 = std::min(y0, p.y);
      y1 = std::max(y1, p.y);
    }
    for (const double v : s.high) y1 = std::max(y1, v);
    for (const double v : s.low) y0 = std::min(y0, v);
  }
  for (const auto& b : c.bands) {
    x0 = std::min(x0, fx(b.from));
    x1 = std::max(x1, fx(b.to));
  }
  if (c.x_range) x0 = fx(c.x_range->first), x1 = fx(c.x_range->second);
  if (x0 > x1) x0 = 0, x1 = 1;
  if (x1 == x0) x0 -= 1, x1 += 1;
  const double step = nice_step(y1 - y0);
  y1 = std::ceil(y1 / step) * step;
  y0 = std::floor(y0 / step) * step;
  if (y1 == y0) y1 = y0 + step;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto px = [&](double x) { return kLeft + (fx(x) - x0) / (x1 - x0) * plot_w; };
  auto py = [&](double y) { return kTop + (y1 - y) / (y1 - y0) * plot_h; };

  out << "<svg class=\"chart" << (c.cls.empty() ? "" : " " + html_escape(c.cls))
      << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" viewBox=\"0 0 " << kWidth << ' ' << kHeight << "\" role=\"img\" aria-label=\"" << html_escape(c.label)
      << "\" data-series=\"" << c.series.size() << '"';
  for (const auto& [key, value] : c.data) out << " data-" << key << "=\"" << html_escape(value) << '"';
  out << ">\n";
  for (const auto& b : c.bands) {
    // A band is at least a few pixels wide, so a single round shows.
    const double left = px(b.from), right = std::max(px(b.to), left + 4);
    out << "<rect class=\"band\" x=\"" << svg_number(left) << "\" y=\"" << kTop << "\" width=\""
        << svg_number(right - left) << "\" height=\"" << plot_h
        << "\" fill=\"#f3c5bd\" stroke=\"#a3201a\" stroke-dasharray=\"3 2\"><title>" << html_escape(b.title)
        << "</title></rect>\n";
  }
  for (double y = y0; y <= y1 + step / 2; y += step) {
    out << "<path class=\"grid\" d=\"M" << kLeft << ' ' << svg_number(py(y)) << "H" << kWidth - kRight
        << "\"/><text x=\"" << kLeft - 6 << "\" y=\"" << svg_number(py(y)) << "\" text-anchor=\"end\" "
        << "dominant-baseline=\"central\">" << svg_number(y) << "</text>\n";
  }
  for (const auto& [x, text] : c.x_ticks)
    out << "<text class=\"x-tick\" x=\"" << svg_number(px(x)) << "\" y=\"" << kHeight - kBottom + 16
        << "\" text-anchor=\"middle\">" << html_escape(text) << "</text>\n";
  out << "<path class=\"axis-line\" d=\"M" << kLeft << ' ' << kTop << "V" << kHeight - kBottom << "H" << kWidth - kRight
      << "\" fill=\"none\"/>\n";
  out << "<text x=\"" << svg_number(kLeft + plot_w / 2) << "\" y=\"" << kHeight - 6 << "\" text-anchor=\"middle\">"
      << html_escape(c.x_label) << "</text>\n<text transform=\"translate(14," << svg_number(kTop + plot_h / 2)
      << ") rotate(-90)\" text-anchor=\"middle\">" << html_escape(c.y_label) << "</text>\n";
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const ChartSeries& s = c.series[i];
    const char* colour = kColours[i % kColours.size()];
    out << "<g class=\"series\" data-name=\"" << html_escape(s.name) << "\" data-points=\"" << s.points.size()
        << "\">\n";
    if (s.low.size() == s.points.size() && s.high.size() == s.points.size() && !s.points.empty()) {
      out << "<path class=\"spread\" fill=\"" << colour << "\" fill-opacity=\"0.15\" stroke=\"none\" d=\"";
      for (std::size_t k = 0; k < s.points.size(); ++k)
        out << (k ? 'L' : 'M') << svg_number(px(s.points[k].x)) << ' ' << svg_number(py(s.high[k]));
      for (std::size_t k = s.points.size(); k-- > 0;)
        out << 'L' << svg_number(px(s.points[k].x)) << ' ' << svg_number(py(s.low[k]));
      out << "Z\"/>\n";
    }
    out << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\" stroke-dasharray=\""
        << kDashes[i % kDashes.size()] << "\" points=\"";
    for (const auto& p : s.points) out << svg_number(px(p.x)) << ',' << svg_number(py(p.y)) << ' ';
    out << "\"/>\n";
    for (const auto& p : s.points) {
      const char* tag = "path";
      if (p.flagged) {
        const double x = px(p.x), y = py(p.y);
        out << "<path class=\"point flagged\" d=\"M" << svg_number(x) << ' ' << svg_number(y - 6) << "L"
            << svg_number(x + 6) << ' ' << svg_number(y) << "L" << svg_number(x) << ' ' << svg_number(y + 6) << "L"
            << svg_number(x - 6) << ' ' << svg_number(y) << "Z\" fill=\"" << colour
            << "\" stroke=\"#000\" stroke-width=\"2\"";
      } else {
        tag = write_marker(out, marker_of(i), px(p.x), py(p.y), colour);
        out << " class=\"point\"";
      }
      out << "><title>" << html_escape(p.title) << "</title></" << tag << ">\n";
    }
    out << "</g>\n";
  }
  out << "</svg>\n";
}

}  // namespace ibgpu
