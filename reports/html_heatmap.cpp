// The pairwise-bandwidth heatmap as inline SVG. The cells live in an inner
// <svg> whose viewBox is one unit per host, so coordinates stay small
// integers and the drawn size stays bounded however many hosts there are.
// Up to kHeatmapDetailedHosts every pair is an element; above, an image.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#include "core/units.h"
#include "reports/html.h"
#include "reports/png.h"
#include "reports/text_table.h"

namespace ibgpu {

namespace {

struct Rgb {
  int r, g, b;
};

// Viridis at ten evenly spaced points: perceptually even and readable in grey.
constexpr std::array<Rgb, 10> kRamp{{{0x44, 0x01, 0x54},
                                     {0x48, 0x28, 0x78},
                                     {0x3e, 0x49, 0x89},
                                     {0x31, 0x68, 0x8e},
                                     {0x26, 0x82, 0x8e},
                                     {0x1f, 0x9e, 0x89},
                                     {0x35, 0xb7, 0x79},
                                     {0x6e, 0xce, 0x58},
                                     {0xb5, 0xde, 0x2b},
                                     {0xfd, 0xe7, 0x25}}};
constexpr int kSteps = 16;
constexpr Rgb kUnmeasuredRgb{0xd9, 0xd9, 0xd9};
constexpr Rgb kNoValueRgb{0x59, 0x59, 0x59};
constexpr Rgb kSelfRgb{0xff, 0xff, 0xff};
constexpr const char* kUnmeasuredFill = "#d9d9d9";
constexpr const char* kNoValueFill = "#595959";
constexpr const char* kSelfFill = "#fff";
std::string hex(const Rgb& c) {
  char text[8];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", c.r, c.g, c.b);
  return text;
}

PngColour to_png(const Rgb& c) {
  return {static_cast<std::uint8_t>(c.r), static_cast<std::uint8_t>(c.g), static_cast<std::uint8_t>(c.b)};
}

int step_of(double t) { return static_cast<int>(std::lround(std::clamp(t, 0.0, 1.0) * (kSteps - 1))); }

Rgb ramp_rgb(double t) {
  const double at = static_cast<double>(step_of(t)) / (kSteps - 1) * (kRamp.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const auto hi = std::min(lo + 1, kRamp.size() - 1);
  const double f = at - static_cast<double>(lo);
  auto mix = [&](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * f)); };
  return {mix(kRamp[lo].r, kRamp[hi].r), mix(kRamp[lo].g, kRamp[hi].g), mix(kRamp[lo].b, kRamp[hi].b)};
}

// Where a value sits on the ramp (kRampFloorRatio): by its ratio to the matrix's best value (the
// fastest bandwidth, the lowest latency above 0), the best at 1 (the brightest), kRampFloorRatio
// of it or worse at 0. A value of 0 or less (no bandwidth; a latency no clock reads) is the worst,
// and so is every value of a matrix with no value above 0.
double position(const PairMatrix& m, double v) {
  if (!m.best || v <= 0) return 0.0;
  const double ratio = m.higher_is_better() ? v / *m.best : *m.best / v;
  return (ratio - kRampFloorRatio) / (1 - kRampFloorRatio);
}

std::string fill_of(const PairMatrix& m, const PairCell& c) {
  return c.value ? ramp_colour(position(m, *c.value)) : kNoValueFill;
}

// A host name shortened for an axis label (the tooltip keeps it whole),
// never cut inside a UTF-8 sequence.
std::string short_label(const std::string& name, std::size_t max_bytes = 24) {
  if (name.size() <= max_bytes) return name;
  std::size_t cut = max_bytes - 3;
  while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
  return name.substr(0, cut) + "\u2026";
}

std::string num(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

std::string cell_title(const PairMatrix& m, const PairCell& c) {
  std::string text = m.hosts[c.row] + " <-> " + m.hosts[c.col] + " (" + m.rail + "): ";
  text += c.value ? format_number(*c.value) + " " + m.unit() : std::string("no value");
  text += " at " + format_size(c.size_B);
  if (c.status != ProbeStatus::ok) text += ", " + std::string(to_string(c.status));
  if (!c.note.empty()) text += ": " + c.note;
  if (c.link) text += "; link " + std::string(to_string(*c.link));
  return text;
}

// The half below the diagonal repeats the one above: a "mirror", so a reader
// can follow one host along its row while each pair is still counted once.
std::string cell_class(const PairCell& c, bool mirror) {
  return std::string(c.value ? "cell" : "cell novalue") + (mirror ? " mirror" : "");
}

void write_rect(std::ostream& out, const std::string& cls, std::size_t x, std::size_t y, std::size_t width,
                const std::string& fill, const std::string& extra = "") {
  out << "<rect class=\"" << cls << "\" x=\"" << x << "\" y=\"" << y << "\" width=\"" << width
      << "\" height=\"1\" fill=\"" << fill << '"' << extra;
}

// A flagged link is told by its shape, not by a colour alone (colour-blind
// readers, greyscale prints): degraded a dashed outline, failed a solid one
// with a cross. Each line is black over a wider white one, so it stands out on
// the dark and on the bright end of the ramp alike.
void write_flag(std::ostream& out, const PairCell& c, std::size_t x, std::size_t y, bool mirror) {
  const bool failed = c.link == HealthState::failed;
  out << "<g class=\"flag " << (failed ? "failed" : "degraded") << (mirror ? " mirror" : "")
      << "\" fill=\"none\" vector-effect=\"non-scaling-stroke\" pointer-events=\"none\">";
  for (const char* layer : {"#fff", "#000"}) {
    const bool top = layer[1] == '0';
    out << "<rect x=\"" << x << ".1\" y=\"" << y << ".1\" width=\"0.8\" height=\"0.8\" stroke=\"" << layer
        << "\" stroke-width=\"" << (top ? 2 : 4) << '"' << (failed || !top ? "" : " stroke-dasharray=\"4 3\"")
        << " vector-effect=\"non-scaling-stroke\"/>";
    if (failed)
      out << "<path d=\"M" << x << ".25 " << y << ".25L" << x << ".75 " << y << ".75M" << x << ".75 " << y << ".25L"
          << x << ".25 " << y << ".75\" stroke=\"" << layer << "\" stroke-width=\"" << (top ? 2 : 4)
          << "\" vector-effect=\"non-scaling-stroke\"/>";
  }
  out << "</g>\n";
}

// Every pair its own element, unmeasured ones included: what the tests and a
// reader hovering a cell see. The diagonal is no pair (a host with itself).
void write_detailed_cells(const PairMatrix& m, std::ostream& out) {
  const std::size_t n = m.hosts.size();
  std::vector<const PairCell*> at(n * n, nullptr);
  for (const auto& c : m.cells) at[c.row * n + c.col] = at[c.col * n + c.row] = &c;
  const bool labelled = n <= kHeatmapLabelledHosts;
  for (std::size_t y = 0; y < n; ++y)
    for (std::size_t x = 0; x < n; ++x) {
      const bool mirror = y > x;
      if (x == y) {
        write_rect(out, "self", x, y, 1, kSelfFill);
        out << "><title>" << html_escape(m.hosts[y]) << ": the same host, no pair</title></rect>\n";
        continue;
      }
      const PairCell* c = at[y * n + x];
      if (!c) {
        write_rect(out, mirror ? "cell none mirror" : "cell none", x, y, 1, kUnmeasuredFill);
        out << "><title>" << html_escape(m.hosts[y] + " <-> " + m.hosts[x] + ": not measured") << "</title></rect>\n";
        continue;
      }
      const std::string value = c->value ? " data-value=\"" + num(*c->value) + '"' : "";
      write_rect(out, cell_class(*c, mirror), x, y, 1, fill_of(m, *c), value);
      out << "><title>" << html_escape(cell_title(m, *c)) << "</title></rect>\n";
      if (labelled && c->value) {
        const bool dark = step_of(position(m, *c->value)) < kSteps / 2;
        out << "<text class=\"value\" x=\"" << x << ".5\" y=\"" << y << ".5\" fill=\"" << (dark ? "#fff" : "#000")
            << "\">" << html_escape(format_number(*c->value, 3)) << "</text>\n";
      }
    }
  for (std::size_t y = 0; y < n; ++y)
    for (std::size_t x = 0; x < n; ++x)
      if (const PairCell* c = at[y * n + x]; c && c->link) write_flag(out, *c, x, y, y > x);
}

// Above kHeatmapDetailedHosts: one pixel per pair in an embedded PNG, drawn
// crisp and scaled to the matrix (about hosts^2 bytes, whatever the data);
// a transparent rect per host row for its tooltip; flagged pairs as elements
// with tooltips of their own.
void write_raster_cells(const PairMatrix& m, std::ostream& out) {
  const std::size_t n = m.hosts.size();
  constexpr std::uint8_t kUnmeasured = 0, kNoValue = 1, kSelf = 2, kFirstStep = 3;
  std::vector<PngColour> palette{to_png(kUnmeasuredRgb), to_png(kNoValueRgb), to_png(kSelfRgb)};
  for (int step = 0; step < kSteps; ++step)
    palette.push_back(to_png(ramp_rgb(static_cast<double>(step) / (kSteps - 1))));
  std::vector<std::uint8_t> pixels(n * n, kUnmeasured);
  for (std::size_t i = 0; i < n; ++i) pixels[i * n + i] = kSelf;
  for (const auto& c : m.cells) {
    const auto colour = c.value ? static_cast<std::uint8_t>(kFirstStep + step_of(position(m, *c.value))) : kNoValue;
    pixels[c.row * n + c.col] = pixels[c.col * n + c.row] = colour;
  }
  out << "<image class=\"matrix\" width=\"" << n << "\" height=\"" << n
      << "\" preserveAspectRatio=\"none\" style=\"image-rendering:pixelated\" href=\"data:image/png;base64,"
      << base64(indexed_png(n, n, palette, pixels)) << "\"/>\n";
  for (std::size_t y = 0; y < n; ++y)
    out << "<rect class=\"row\" y=\"" << y << "\" width=\"" << n
        << "\" height=\"1\" fill=\"#000\" fill-opacity=\"0\"><title>" << html_escape(m.hosts[y]) << "</title></rect>\n";
  for (const auto& c : m.cells) {
    if (!c.link) continue;
    for (const auto& [x, y] : {std::pair{c.col, c.row}, std::pair{c.row, c.col}}) {
      write_rect(out, cell_class(c, y > x), x, y, 1, fill_of(m, c));
      out << "><title>" << html_escape(cell_title(m, c)) << "</title></rect>\n";
    }
  }
  for (const auto& c : m.cells)
    if (c.link) {
      write_flag(out, c, c.col, c.row, false);
      write_flag(out, c, c.row, c.col, true);
    }
}

// Where each leaf's hosts start and end on the axes: [first, last) runs.
struct LeafRun {
  std::string leaf;
  std::size_t first = 0, last = 0;
};

std::vector<LeafRun> leaf_runs(const PairMatrix& m) {
  std::vector<LeafRun> runs;
  if (std::all_of(m.leaves.begin(), m.leaves.end(), [](const std::string& l) { return l.empty(); })) return runs;
  for (std::size_t i = 0; i < m.leaves.size(); ++i) {
    if (runs.empty() || runs.back().leaf != m.leaves[i]) runs.push_back({m.leaves[i], i, i});
    runs.back().last = i + 1;
  }
  return runs;
}

// Lines between the leaves across the cells (inside the unit viewBox).
void write_leaf_boundaries(const std::vector<LeafRun>& runs, std::size_t n, std::ostream& out) {
  for (std::size_t r = 1; r < runs.size(); ++r) {
    const std::size_t at = runs[r].first;
    out << "<path class=\"leaf-boundary\" d=\"M" << at << " 0V" << n << "M0 " << at << 'H' << n
        << "\" stroke=\"#000\" stroke-width=\"2\" vector-effect=\"non-scaling-stroke\" pointer-events=\"none\"/>\n";
  }
}

}  // namespace

std::string ramp_colour(double t) { return hex(ramp_rgb(t)); }

std::string ramp_css_gradient() {
  std::string css = "linear-gradient(to right";
  for (const auto& c : kRamp) css += "," + hex(c);
  return css + ")";
}

void write_heatmap_svg(const PairMatrix& m, std::ostream& out) {
  const std::size_t n = m.hosts.size();
  const bool detailed = n <= kHeatmapDetailedHosts;
  const double side = std::min(40.0 * static_cast<double>(n), kHeatmapMaxSide_px);
  const double cell = n ? side / static_cast<double>(n) : 0;
  std::size_t label_bytes = 0;
  if (detailed)
    for (const auto& h : m.hosts) label_bytes = std::max(label_bytes, short_label(h).size());
  const double margin = detailed ? 10.0 + 7.0 * static_cast<double>(label_bytes) : 6.0;
  const double font = std::clamp(cell * 0.7, 7.0, 12.0);
  const auto runs = leaf_runs(m);
  std::size_t leaf_bytes = 0;
  for (const auto& run : runs)
    leaf_bytes = std::max(leaf_bytes, short_label(run.leaf.empty() ? "no leaf" : run.leaf).size());
  const double right = runs.empty() ? 6.0 : 14.0 + 7.0 * static_cast<double>(leaf_bytes);
  const char* quantity = m.quantity == Quantity::latency ? "latency" : "bandwidth";

  out << "<svg class=\"heatmap\" xmlns=\"http://www.w3.org/2000/svg\" data-rail=\"" << html_escape(m.rail)
      << "\" data-probe=\"" << html_escape(m.probe) << "\" data-quantity=\"" << quantity << "\" data-hosts=\"" << n
      << "\" data-pairs=\"" << m.cells.size() << "\" data-possible-pairs=\"" << m.possible_pairs()
      << "\" data-leaves=\"" << runs.size() << "\" data-detail=\"" << (detailed ? "cells" : "raster") << "\" width=\""
      << num(margin + side + right) << "\" height=\"" << num(margin + side + 6) << "\" role=\"img\" aria-label=\""
      << html_escape(std::string("pairwise ") + quantity + " on " + m.rail) << "\">\n";
  if (detailed) {
    out << "<g class=\"axis\" font-size=\"" << num(font) << "\">\n";
    for (std::size_t i = 0; i < n; ++i) {
      const std::string label = html_escape(short_label(m.hosts[i]));
      const std::string full = html_escape(m.hosts[i]);
      const double mid = margin + (static_cast<double>(i) + 0.5) * cell;
      out << "<text class=\"row-label\" x=\"" << num(margin - 4) << "\" y=\"" << num(mid)
          << "\" text-anchor=\"end\" dominant-baseline=\"central\"><title>" << full << "</title>" << label
          << "</text>\n";
      out << "<text class=\"col-label\" transform=\"translate(" << num(mid) << ',' << num(margin - 4)
          << ") rotate(-90)\" dominant-baseline=\"central\"><title>" << full << "</title>" << label << "</text>\n";
    }
    out << "</g>\n";
  }
  if (!runs.empty()) {
    // Each leaf named beside its band of rows, with a bracket the height of the band; where
    // bands are thinner than a line of text (hundreds of leaves), a name that would overlap
    // the one above is left out and the bracket's tooltip still names the leaf.
    out << "<g class=\"leaves\" font-size=\"12\">\n";
    double last_label = -1e9;
    for (const auto& run : runs) {
      const double top = margin + static_cast<double>(run.first) * cell;
      const double bottom = margin + static_cast<double>(run.last) * cell;
      const double x = margin + side + 4, mid = (top + bottom) / 2;
      const std::string name = run.leaf.empty() ? "no leaf" : run.leaf;
      const std::string title =
          "<title>" + html_escape(name) + ": " + std::to_string(run.last - run.first) + " hosts</title>";
      out << "<path class=\"leaf-bracket\" d=\"M" << num(x) << ' ' << num(top + 1) << "V" << num(bottom - 1)
          << "\" stroke=\"#000\" stroke-width=\"2\">" << title << "</path>";
      if (mid - last_label >= 13) {
        out << "<text class=\"leaf-label\" x=\"" << num(x + 5) << "\" y=\"" << num(mid)
            << "\" dominant-baseline=\"central\" data-first=\"" << run.first << "\" data-hosts=\""
            << run.last - run.first << "\">" << title << html_escape(short_label(name)) << "</text>";
        last_label = mid;
      }
      out << '\n';
    }
    out << "</g>\n";
  }
  out << "<svg class=\"cells\" x=\"" << num(margin) << "\" y=\"" << num(margin) << "\" width=\"" << num(side)
      << "\" height=\"" << num(side) << "\" viewBox=\"0 0 " << n << ' ' << n
      << "\" preserveAspectRatio=\"none\" font-size=\"0.3\" text-anchor=\"middle\" dominant-baseline=\"central\">\n";
  if (detailed)
    write_detailed_cells(m, out);
  else
    write_raster_cells(m, out);
  write_leaf_boundaries(runs, n, out);
  out << "</svg>\n</svg>\n";
}

}  // namespace ibgpu
