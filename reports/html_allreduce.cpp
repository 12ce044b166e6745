// The all-reduce section of the HTML report: nccl-tests' numbers per group
// and message size as a table, and bus bandwidth over message size as a chart
// (per probe and placement: the median over the groups, their spread shaded).
#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "core/statistics.h"
#include "core/text.h"
#include "core/units.h"
#include "reports/html.h"
#include "reports/html_chart.h"
#include "reports/text_table.h"

namespace ibgpu {

namespace {

// Rows past this many are in the JSON report (a fleet has an all-reduce per node and rail).
constexpr std::size_t kTableRows = 200;

std::string param(const ProbeResult& p, const char* key) {
  const auto it = p.params.find(key);
  if (it == p.params.end() || it->is_null()) return "-";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

std::string metric_cell(const ProbeResult& p, const char* name) {
  const auto v = typical(p, name);
  return "<td class=\"num\">" + (v ? html_escape(format_number(*v)) : std::string("-")) + "</td>";
}

void write_table(const std::vector<const ProbeResult*>& results, std::ostream& out) {
  out << "<table id=\"allreduce\">\n<thead><tr><th>probe</th><th>placement</th><th>group</th><th>ranks</th>"
         "<th>size</th><th>in place</th><th>status</th><th>time us</th><th>algbw GB/s</th><th>busbw GB/s</th>"
         "<th>#wrong</th></tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < results.size() && i < kTableRows; ++i) {
    const ProbeResult& p = *results[i];
    const auto size = message_size(p);
    out << "<tr class=\"allreduce\"><td>" << html_escape(p.id) << "</td><td>" << html_escape(param(p, "placement"))
        << "</td><td>" << html_escape(param(p, "group")) << "</td><td class=\"num\">" << html_escape(param(p, "nranks"))
        << "</td><td class=\"num\">" << (size ? format_size(*size) : std::string("-")) << "</td><td>"
        << (p.params.value("in_place", false) ? "yes" : "no") << "</td><td>" << to_string(p.status) << "</td>"
        << metric_cell(p, metrics::time_us_avg) << metric_cell(p, metrics::algbw_GBps)
        << metric_cell(p, metrics::busbw_GBps) << metric_cell(p, metrics::wrong_elements_total) << "</tr>\n";
  }
  out << "</tbody>\n</table>\n";
  if (results.size() > kTableRows)
    out << "<p class=\"more\">" << results.size() - kTableRows
        << " more all-reduce results are in the JSON report.</p>\n";
}

// Out-of-place results with a bus bandwidth, per (probe, placement), per size: over the groups.
void write_chart(const std::vector<const ProbeResult*>& results, std::ostream& out) {
  std::map<std::pair<std::string, std::string>, std::map<std::uint64_t, std::vector<double>>> by_series;
  std::set<std::uint64_t> sizes;
  for (const ProbeResult* p : results) {
    const auto busbw = typical(*p, metrics::busbw_GBps);
    const auto size = message_size(*p);
    if (p->status != ProbeStatus::ok || !busbw || !size || *size == 0 || p->params.value("in_place", false)) continue;
    by_series[{p->id, param(*p, "placement")}][*size].push_back(*busbw);
    sizes.insert(*size);
  }
  if (by_series.empty()) return;
  LineChart chart;
  chart.cls = "allreduce";
  chart.label = "all-reduce bus bandwidth over message size";
  chart.x_label = "message size (bytes, log scale)";
  chart.y_label = "busbw GB/s";
  chart.log2_x = true;
  // At most about ten size labels, so they do not overlap.
  const std::size_t every = (sizes.size() + 9) / 10;
  std::size_t k = 0;
  for (const auto size : sizes)
    if (k++ % every == 0) chart.x_ticks.emplace_back(static_cast<double>(size), format_size(size));
  std::string legend;
  for (const auto& [key, per_size] : by_series) {
    ChartSeries s;
    s.name = key.first + " (" + key.second + ")";
    std::size_t groups = 0;
    for (auto [size, values] : per_size) {
      std::sort(values.begin(), values.end());
      groups = std::max(groups, values.size());
      const double median = sorted_lower_quantile(values, 0.5);
      s.points.push_back({static_cast<double>(size), median, false,
                          s.name + " at " + format_size(size) + ": busbw " + format_number(median) +
                              " GB/s (median of " + count_text(values.size(), "group") + ", " +
                              format_number(values.front()) + " to " + format_number(values.back()) + ")"});
      s.low.push_back(values.front());
      s.high.push_back(values.back());
    }
    legend += "<span>" + series_swatch(chart.series.size()) + html_escape(s.name) + ", " + count_text(groups, "group") +
              "</span>";
    chart.series.push_back(std::move(s));
  }
  out << "<figure class=\"chart\" id=\"allreduce-chart\">\n<figcaption>Bus bandwidth over message size "
         "(out of place; the line is the median over the groups, the shade their range)</figcaption>\n";
  write_line_chart(chart, out);
  out << "<div class=\"legend\">" << legend << "</div>\n</figure>\n";
}

}  // namespace

void write_allreduce_section(const Report& r, std::ostream& out) {
  std::vector<const ProbeResult*> results;
  for (const auto& p : r.probes)
    if (is_allreduce_probe(p)) results.push_back(&p);
  if (results.empty()) return;
  // Group by group, then size, then out-of-place before in-place: nccl-tests' reading order.
  std::stable_sort(results.begin(), results.end(), [](const ProbeResult* a, const ProbeResult* b) {
    auto key = [](const ProbeResult* p) {
      return std::make_tuple(p->id, param(*p, "placement"), param(*p, "group"), message_size(*p).value_or(0),
                             p->params.value("in_place", false));
    };
    return key(a) < key(b);
  });
  out << "<section id=\"allreduce-section\">\n<h2>All-reduce</h2>\n";
  write_chart(results, out);
  write_table(results, out);
  out << "</section>\n";
}

}  // namespace ibgpu
