// One self-contained HTML page: inline CSS and SVG, no script, nothing
// fetched. Every text from the run (host names, errors, reasons) is escaped.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

#include "core/text.h"
#include "core/units.h"
#include "reports/html.h"
#include "reports/next_steps.h"
#include "reports/render_util.h"
#include "reports/reporter.h"
#include "reports/table_summary.h"
#include "reports/text_table.h"

namespace ibgpu {

namespace {

constexpr const char* kStyle = R"(
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1a1a1a;background:#fff}
h1{font-size:1.4em;margin:0 0 .4em}h2{font-size:1.15em;margin:1.6em 0 .5em;border-bottom:1px solid #ddd}
code{font:13px ui-monospace,monospace}
dl#run-facts{display:grid;grid-template-columns:max-content 1fr;gap:.15em 1em;margin:0}
dl#run-facts dt{color:#555}dl#run-facts dd{margin:0}
.state{display:inline-block;padding:0 .45em;border-radius:3px;font-weight:600;border:1px solid;white-space:nowrap}
.state .glyph{margin-right:.25em}
.state.state-healthy{background:#dff3ea;color:#0a4d31;border-color:#0a4d31}
.state.state-degraded{background:#fff0c2;color:#5c3d00;border-color:#5c3d00;border-style:dashed}
.state.state-failed{background:#a3201a;color:#fff;border-color:#5e100c}
.state.state-unknown{background:#e8e8e8;color:#333;border-color:#666;border-style:dotted}
.state.state-none{background:#f2f2f2;color:#444;border-color:#999}
table{border-collapse:collapse;margin:.3em 0}th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
td ul{margin:0;padding-left:1.1em}
figure.rail{margin:1em 0 2em}figcaption{font-weight:600;margin-bottom:.3em}
table.within-host caption{text-align:left;font-style:italic}
svg.heatmap{display:block;max-width:100%;height:auto}
svg.heatmap text{font-family:ui-monospace,monospace}
svg.heatmap[data-detail=cells] rect.cell{stroke:#fff;stroke-width:1px;vector-effect:non-scaling-stroke}
svg.heatmap .leaf-label{font-family:system-ui,sans-serif;font-weight:600}
svg.chart{display:block;max-width:100%;height:auto;font:12px system-ui,sans-serif}
svg.chart .grid{stroke:#ddd}svg.chart .axis-line{stroke:#333}
figure.chart{margin:1em 0 2em}
.entity{margin:1em 0 2em}.entity h3{font-size:1em;margin:0 0 .3em}
.legend{display:flex;flex-wrap:wrap;align-items:center;gap:.4em 1em;margin-top:.4em;font-size:13px}
.legend .ramp{display:inline-block;width:180px;height:12px;vertical-align:middle;margin:0 .4em}
.legend .swatch{display:inline-block;width:12px;height:12px;vertical-align:middle;margin-right:.3em;border:1px solid #999}
.notes li{color:#8a4b00}
)";

std::string profile_name(const Report& r) {
  const auto it = r.run.profile.find("name");
  return it != r.run.profile.end() && it->is_string() ? it->get<std::string>() : "-";
}

std::string or_dash(const std::string& text) { return text.empty() ? "-" : text; }

void write_header(const Report& r, std::ostream& out) {
  const char* state = to_string(r.summary.state);
  out << "<header id=\"run\">\n<h1>" << html_escape(r.tool.name) << " run <code>" << html_escape(r.run.id) << "</code> "
      << state_badge(state) << "</h1>\n<dl id=\"run-facts\">\n";
  auto fact = [&](const char* key, const std::string& label, const std::string& html) {
    out << "<dt>" << label << "</dt><dd data-key=\"" << key << "\">" << html << "</dd>\n";
  };
  fact("command", "command", "<code>" + html_escape(or_dash(join(r.run.command, " "))) + "</code>");
  fact("profile", "profile", html_escape(profile_name(r)));
  fact("started", "started", html_escape(or_dash(r.run.started)));
  fact("finished", "finished", html_escape(or_dash(r.run.finished)));
  fact("ranks", "ranks / hosts", std::to_string(r.run.ranks) + " / " + std::to_string(r.hosts.size()));
  fact("state", "overall state", state_badge(state));
  fact("exit_code", "exit code", std::to_string(r.summary.exit_code));
  fact("admission", "admission",
       "admit " + std::to_string(r.summary.admit.size()) + ", admit degraded " +
           std::to_string(r.summary.admit_degraded.size()) + ", drain " + std::to_string(r.summary.drain.size()));
  fact("tool", "tool", html_escape(r.tool.name + " " + r.tool.version + " (" + r.tool.git + ")"));
  out << "</dl>\n";
  if (!r.run.notes.empty()) {
    out << "<ul class=\"notes\">\n";
    for (const auto& note : r.run.notes) out << "<li>" << html_escape(note) << "</li>\n";
    out << "</ul>\n";
  }
  out << "</header>\n";
}

std::string sizes_text(const PairMatrix& m) {
  std::set<std::size_t> sizes;
  for (const auto& c : m.cells) sizes.insert(c.size_B);
  if (sizes.empty()) return "";
  if (sizes.size() == 1) return "at " + format_size(*sizes.begin());
  return std::string("at the ") + (m.higher_is_better() ? "largest" : "smallest") + " size each pair measured (" +
         format_size(*sizes.begin()) + " to " + format_size(*sizes.rbegin()) + ")";
}

// The ends of the ramp say which values they stand for: bright is the rail's best (the fastest
// bandwidth, the lowest latency), dark kRampFloorRatio of it or worse (half the bandwidth, twice
// the latency); then the worst pair, which may lie anywhere on it.
void write_legend(const PairMatrix& m, std::ostream& out) {
  out << "<div class=\"legend\">";
  if (m.best) {
    const double worst = m.higher_is_better() ? *m.min : *m.max, best = *m.best;
    const double floor = m.higher_is_better() ? best * kRampFloorRatio : best / kRampFloorRatio;
    out << "<span><span class=\"floor\">" << format_number(floor) << "</span> " << m.unit()
        << (m.higher_is_better() ? " or less" : " or more")
        << "<span class=\"ramp\" style=\"background:" << ramp_css_gradient() << "\"></span>best <span class=\"best\">"
        << format_number(best) << "</span> " << m.unit() << " " << html_escape(sizes_text(m))
        << "; worst pair <span class=\"worst\">" << format_number(worst) << "</span> " << m.unit() << "</span>";
  } else if (m.min) {
    out << "<span>no value above 0 on this rail: every pair drawn at the dark end</span>";
  } else {
    out << "<span>no value on this rail</span>";
  }
  out << "<span><span class=\"swatch\" style=\"background:#d9d9d9\"></span>not measured</span>"
         "<span><span class=\"swatch\" style=\"background:#595959\"></span>measured, no value</span>"
         "<span><span class=\"swatch\" style=\"background:#fff\"></span>same host (no pair)</span>"
         "<span><svg class=\"swatch\" width=\"14\" height=\"14\" viewBox=\"0 0 14 14\"><rect x=\"1\" y=\"1\" "
         "width=\"12\" height=\"12\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\" stroke-dasharray=\"4 3\"/>"
         "</svg>link degraded (dashed outline)</span>"
         "<span><svg class=\"swatch\" width=\"14\" height=\"14\" viewBox=\"0 0 14 14\"><rect x=\"1\" y=\"1\" "
         "width=\"12\" height=\"12\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\"/><path d=\"M4 4L10 10M10 "
         "4L4 10\" stroke=\"#000\" stroke-width=\"2\"/></svg>link failed (outline and cross)</span>";
  if (std::any_of(m.leaves.begin(), m.leaves.end(), [](const std::string& l) { return !l.empty(); }))
    out << "<span>hosts leaf by leaf; black lines between leaf switches</span>";
  out << "</div>\n";
}

// What each host measured within itself on the rail (a loopback between two of its ports, two
// ranks of one host): not a pair of hosts, so not in the heatmap, but on one host the only figure.
void write_within_host(const PairMatrix& m, const std::string& id, std::ostream& out) {
  if (m.within_host.empty()) return;
  out << "<table class=\"within-host\" id=\"" << id
      << "\">\n<caption>Within one host</caption>\n<thead><tr><th>host</th><th>"
      << (m.higher_is_better() ? "bandwidth" : "latency") << "</th><th>size</th><th>status</th><th>link</th></tr>"
      << "</thead>\n<tbody>\n";
  for (const PairCell& c : m.within_host) {
    std::string status = to_string(c.status);
    if (!c.note.empty()) status += ": " + c.note;
    out << "<tr><td>" << html_escape(m.hosts[c.row]) << "</td><td class=\"num\""
        << (c.value ? " data-value=\"" + format_number(*c.value) + "\"" : std::string()) << ">"
        << (c.value ? format_number(*c.value) + " " + m.unit() : std::string("no value")) << "</td><td>"
        << format_size(c.size_B) << "</td><td>" << html_escape(status) << "</td><td>"
        << (c.link ? to_string(*c.link) : "-") << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n";
}

void write_pairs(const Report& r, Quantity quantity, std::ostream& out) {
  const bool latency = quantity == Quantity::latency;
  const auto matrices = pair_matrices(r, quantity);
  if (latency && matrices.empty()) return;  // latency is optional; a bandwidth run says it had none
  out << "<section id=\"" << (latency ? "latency" : "bandwidth") << "\">\n<h2>Pairwise "
      << (latency ? "latency" : "bandwidth") << "</h2>\n";
  if (matrices.empty()) out << "<p class=\"empty\">No pairwise bandwidth was measured in this run.</p>\n";
  for (std::size_t i = 0; i < matrices.size(); ++i) {
    const PairMatrix& m = matrices[i];
    const auto flagged = std::count_if(m.cells.begin(), m.cells.end(), [](const PairCell& c) { return c.link; });
    out << "<figure class=\"rail\" id=\"" << (latency ? "lat-" : "rail-") << i << "\" data-rail=\""
        << html_escape(m.rail) << "\">\n<figcaption>Rail " << html_escape(m.rail) << " <span class=\"probe\">("
        << html_escape(m.probe) << ")</span>: ";
    if (m.possible_pairs() == 0) {  // one host: no pair of hosts to draw, only what it measured within
      out << "one host, no pair of hosts";
    } else {
      out << "<span class=\"pairs\">" << m.cells.size() << " of " << count_text(m.possible_pairs(), "host pair")
          << " measured</span>, " << flagged << " flagged by the link verdicts";
      if (!m.within_host.empty())
        out << "; what " << count_text(m.within_host.size(), "host") << " measured within "
            << (m.within_host.size() == 1 ? "itself" : "themselves") << ", below (no pair)";
    }
    out << "</figcaption>\n";
    if (m.possible_pairs() > 0) {
      write_heatmap_svg(m, out);
      write_legend(m, out);
    }
    write_within_host(m, std::string(latency ? "within-lat-" : "within-rail-") + std::to_string(i), out);
    out << "</figure>\n";
  }
  out << "</section>\n";
}

std::string parts(const std::vector<std::string>& all, bool gpus) {
  std::vector<std::string> picked;
  std::copy_if(all.begin(), all.end(), std::back_inserter(picked),
               [&](const std::string& p) { return gpu_index(p).has_value() == gpus; });
  return html_escape(or_dash(join(picked, ", ")));
}

std::string reason_line(const Reason& reason) {
  return "<code>" + html_escape(code_text(reason)) + "</code>" +
         (reason.message.empty() ? "" : " " + html_escape(reason.message));
}

void write_nodes(const Report& r, std::ostream& out) {
  std::vector<std::string> names;
  std::unordered_map<std::string, const Verdict*> verdict_of;
  for (const auto& h : r.hosts)
    if (verdict_of.emplace(h.name, nullptr).second) names.push_back(h.name);
  for (const auto& v : r.verdicts) {
    if (v.entity.kind() != EntityKind::node) continue;
    auto [it, fresh] = verdict_of.emplace(v.entity.id(), &v);
    if (fresh)
      names.push_back(v.entity.id());
    else
      it->second = &v;
  }
  out << "<section id=\"admission\">\n<h2>Nodes</h2>\n<table id=\"nodes\">\n<thead><tr><th>node</th><th>state</th>"
         "<th>action</th><th>usable GPUs</th><th>usable rails</th><th>excluded GPUs</th><th>excluded rails</th>"
         "<th>reasons</th></tr></thead>\n<tbody>\n";
  for (const auto& name : names) {
    const Verdict* v = verdict_of[name];
    const char* state = v ? to_string(v->state) : "none";
    out << "<tr class=\"node state-" << state << "\" data-node=\"" << html_escape(name) << "\"><td>"
        << html_escape(name) << "</td><td>" << state_badge(state) << "</td><td>"
        << (v && v->action ? to_string(*v->action) : "-") << "</td>";
    if (!v) {
      out << "<td>-</td><td>-</td><td>-</td><td>-</td><td>-</td></tr>\n";
      continue;
    }
    out << "<td>" << parts(v->usable, true) << "</td><td>" << parts(v->usable, false) << "</td><td>"
        << parts(v->excluded, true) << "</td><td>" << parts(v->excluded, false) << "</td><td>";
    if (v->reasons.empty())
      out << "-";
    else {
      out << "<ul>";
      for (const auto& reason : v->reasons) out << "<li>" << reason_line(reason) << "</li>";
      out << "</ul>";
    }
    out << "</td></tr>\n";
  }
  out << "</tbody>\n</table>\n</section>\n";
}

// What to do about each node not admitted, and whether anything was drained.
void write_next_steps(const Report& r, std::ostream& out) {
  const std::vector<NodeNextStep> nodes = nodes_not_admitted(r);
  if (nodes.empty()) return;
  out << "<section id=\"next-steps\">\n<h2>Next steps</h2>\n<p class=\"actions\">" << html_escape(actions_taken(r))
      << " The full advice per reason: <code>" << kFullAdvice << "</code>.</p>\n<table id=\"next\">\n"
      << "<thead><tr><th>node</th><th>action</th><th>main reason</th><th>next step</th></tr></thead>\n<tbody>\n";
  for (const auto& n : nodes)
    out << "<tr><td>" << html_escape(n.node->entity.id()) << "</td><td>" << to_string(*n.node->action) << "</td><td>"
        << html_escape(n.reason) << "</td><td>" << html_escape(n.step) << "</td></tr>\n";
  out << "</tbody>\n</table>\n</section>\n";
}

// Counts and states read better without decimals.
std::string optional_number(const std::optional<double>& v) {
  if (!v) return "-";
  if (*v == std::floor(*v) && std::fabs(*v) < 1e15) return std::to_string(static_cast<long long>(*v));
  return format_number(*v);
}

// Worst first: a reader starts with what drains nodes.
void write_reasons(const Report& r, std::ostream& out) {
  std::vector<const Verdict*> bad;
  for (const auto& v : r.verdicts)
    if (v.state != HealthState::healthy) bad.push_back(&v);
  std::stable_sort(bad.begin(), bad.end(), [](const Verdict* a, const Verdict* b) { return a->state > b->state; });
  out << "<section id=\"problems\">\n<h2>Reasons</h2>\n";
  if (bad.empty()) {
    out << "<p class=\"empty\">Every verdict is healthy.</p>\n</section>\n";
    return;
  }
  out << "<table id=\"reasons\">\n<thead><tr><th>entity</th><th>kind</th><th>state</th><th>code</th><th>metric</th>"
         "<th>value</th><th>threshold</th><th>message</th></tr></thead>\n<tbody>\n";
  for (const Verdict* v : bad) {
    const char* state = to_string(v->state);
    auto row_start = [&] {
      out << "<tr class=\"reason state-" << state << "\"><td>" << html_escape(v->entity.id()) << "</td><td>"
          << html_escape(to_string(v->entity.kind())) << "</td><td>" << state_badge(state) << "</td>";
    };
    if (v->reasons.empty()) {
      row_start();
      out << "<td>-</td><td>-</td><td class=\"num\">-</td><td class=\"num\">-</td><td>-</td></tr>\n";
    }
    for (const auto& reason : v->reasons) {
      row_start();
      out << "<td><code>" << html_escape(code_text(reason)) << "</code></td><td>" << html_escape(or_dash(reason.metric))
          << "</td><td class=\"num\">" << optional_number(reason.value) << "</td><td class=\"num\">"
          << optional_number(reason.threshold) << "</td><td>" << html_escape(or_dash(reason.message)) << "</td></tr>\n";
    }
  }
  out << "</tbody>\n</table>\n</section>\n";
}

}  // namespace

std::string state_badge(const std::string& state) {
  static const std::map<std::string, const char*> kGlyph{
      {"healthy", "\u2713"}, {"degraded", "\u25B2"}, {"failed", "\u2716"}, {"unknown", "?"}};
  const auto glyph = kGlyph.find(state);
  return "<span class=\"state state-" + html_escape(state) + "\"><span class=\"glyph\" aria-hidden=\"true\">" +
         (glyph == kGlyph.end() ? "\u2013" : glyph->second) + "</span>" +
         (state == "none" ? std::string("not judged") : html_escape(state)) + "</span>";
}

std::string svg_number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if ((static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') || ch == '\x7f')
          out += "&#xFFFD;";
        else
          out += ch;
    }
  }
  return out;
}

void HtmlReporter::render(const Report& r, std::ostream& out) const {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"
      << html_escape(r.tool.name + " run " + r.run.id + ": " + to_string(r.summary.state)) << "</title>\n<style>"
      << kStyle << "</style>\n</head>\n<body>\n";
  write_header(r, out);
  write_pairs(r, Quantity::bandwidth, out);
  write_pairs(r, Quantity::latency, out);
  write_allreduce_section(r, out);
  write_nodes(r, out);
  write_next_steps(r, out);
  write_reasons(r, out);
  write_burn_in_section(r, out);
  out << "<footer><p>"
      << html_escape(r.tool.name + " " + r.tool.version + " (" + r.tool.git + "), report schema " +
                     std::to_string(r.schema_version))
      << "</p></footer>\n</body>\n</html>\n";
}

}  // namespace ibgpu
