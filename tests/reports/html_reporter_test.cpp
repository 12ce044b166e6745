// The HTML report: escaping of untrusted text, the bandwidth matrices behind
// the heatmaps, and the heatmap markup for small and large fleets. The golden
// page of the shared fixture is compared in reporters_test.cpp.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "core/inventory.h"
#include "reports/bandwidth_matrix.h"
#include "reports/html.h"
#include "reports/png.h"
#include "reports/reporter.h"
#include "tests/reports/report_fixture.h"

namespace ibgpu {
namespace {

std::string render_html(const Report& report) {
  std::ostringstream out;
  HtmlReporter{}.render(report, out);
  return out.str();
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

// The text of the first <svg class="heatmap" ...> whose data-rail is `rail`.
std::string heatmap_of(const std::string& html, const std::string& rail) {
  const auto start =
      html.find("<svg class=\"heatmap\" xmlns=\"http://www.w3.org/2000/svg\" data-rail=\"" + rail + "\"");
  if (start == std::string::npos) return "";
  const auto end = html.find("</svg>\n</svg>", start);
  return html.substr(start, end - start);
}

HostInventory host(const std::string& name) {
  HostInventory h;
  h.name = name;
  return h;
}

ProbeResult bw(const std::string& id, const std::string& a, const std::string& b, std::size_t size_B,
               std::optional<double> gbps, const std::string& device = "") {
  ProbeResult p;
  p.id = id;
  p.scope.hosts = {a, b};
  if (!device.empty()) p.scope.devices = {device, device};
  p.params = {{"size_B", size_B}};
  p.metrics["bw_avg_GBps"] = gbps ? Metric::of(*gbps) : Metric::missing();
  if (!gbps) {
    p.status = ProbeStatus::timeout;
    p.error = "peer did not complete the exchange within 60 s";
  }
  return p;
}

// Four hosts, every pair on rail mlx5_0:1 and over MPI; b<->c is slow and
// judged degraded, a<->d timed out at the largest size and is judged failed.
Report degraded_link_report() {
  Report r;
  r.run.id = "feedfacefeedface";
  r.summary.state = HealthState::failed;
  r.summary.exit_code = 2;
  const std::vector<std::string> hosts{"a", "b", "c", "d"};
  for (const auto& h : hosts) r.hosts.push_back(host(h));
  for (std::size_t i = 0; i < hosts.size(); ++i)
    for (std::size_t j = i + 1; j < hosts.size(); ++j) {
      const bool slow = hosts[i] == "b" && hosts[j] == "c";
      const bool dead = hosts[i] == "a" && hosts[j] == "d";
      r.probes.push_back(bw("net.verbs.write_bw", hosts[i], hosts[j], 65536, 30.0, "mlx5_0:1"));
      r.probes.push_back(bw("net.verbs.write_bw", hosts[i], hosts[j], 1048576,
                            dead ? std::nullopt : std::optional<double>(slow ? 20.0 : 48.0), "mlx5_0:1"));
      r.probes.push_back(bw("net.mpi.bw", hosts[i], hosts[j], 1048576, 11.0));
    }
  // A re-test of b<->c: the better of the two is drawn.
  r.probes.push_back(bw("net.verbs.write_bw", "b", "c", 1048576, 22.5, "mlx5_0:1"));
  ProbeResult lat = bw("net.mpi.lat", "a", "b", 8, std::nullopt);
  r.probes.push_back(lat);  // latency: no heatmap
  r.verdicts = {
      Verdict{Entity::link("b", "c"),
              HealthState::degraded,
              {Reason{ReasonCode::IB_LINK_BW_LOW, "slow", "bw_avg_GBps", 22.5, 40.0}},
              std::nullopt},
      Verdict{Entity::link("d", "a"),
              HealthState::failed,
              {Reason{ReasonCode::PROBE_TIMEOUT, "timeout", "net.verbs.write_bw", std::nullopt, std::nullopt}},
              std::nullopt},
      Verdict{Entity::link("a", "b"), HealthState::healthy, {}, std::nullopt},
      Verdict{Entity::node("a"), HealthState::healthy, {}, Action::admit, {"gpu0", "mlx5_0:1"}, {}},
  };
  return r;
}

TEST(HtmlEscape, EscapesMarkupQuotesAndControls) {
  EXPECT_EQ(html_escape("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
  EXPECT_EQ(html_escape("a\tb\nc\x01\x7f"), "a\tb\nc&#xFFFD;&#xFFFD;");
  EXPECT_EQ(html_escape("gpu-n\xC3\xB8"
                        "de-01"),
            "gpu-n\xC3\xB8"
            "de-01");  // UTF-8 passes
  EXPECT_EQ(html_escape(""), "");
}

TEST(HtmlReporter, HostileHostNameRendersAsText) {
  Report r = degraded_link_report();
  const std::string evil = "<script>alert(1)</script>\"'&";
  for (auto& h : r.hosts)
    if (h.name == "c") h.name = evil;
  for (auto& p : r.probes)
    for (auto& h : p.scope.hosts)
      if (h == "c") h = evil;
  r.verdicts.push_back(Verdict{Entity::node(evil),
                               HealthState::failed,
                               {Reason{ReasonCode::PROBE_ERROR, evil, "", std::nullopt, std::nullopt}},
                               Action::drain});
  r.run.command = {"ibgpu", "--hostfile", evil};
  const std::string html = render_html(r);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("alert(1)</script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;"), std::string::npos);
  EXPECT_NE(html.find("data-node=\"&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;\""), std::string::npos);
}

TEST(BandwidthMatrix, OneMatrixPerRailAtTheLargestSize) {
  const auto matrices = bandwidth_matrices(degraded_link_report());
  ASSERT_EQ(matrices.size(), 2u);
  const PairMatrix& verbs = matrices[0];
  EXPECT_EQ(verbs.probe, "net.verbs.write_bw");
  EXPECT_EQ(verbs.rail, "mlx5_0:1");
  EXPECT_EQ(verbs.hosts, (std::vector<std::string>{"a", "b", "c", "d"}));
  ASSERT_EQ(verbs.cells.size(), 6u);  // every pair once
  for (const auto& c : verbs.cells) {
    EXPECT_LT(c.row, c.col);
    EXPECT_EQ(c.size_B, 1048576u);
  }
  const PairCell& ad = verbs.cells[2];  // (a,d): timed out at 1M, so no value though 64K had one
  EXPECT_EQ(ad.row, 0u);
  EXPECT_EQ(ad.col, 3u);
  EXPECT_FALSE(ad.value.has_value());
  EXPECT_EQ(ad.status, ProbeStatus::timeout);
  EXPECT_EQ(ad.link, HealthState::failed);  // verdict named d<->a: either order matches
  const PairCell& bc = verbs.cells[3];
  EXPECT_EQ(bc.row, 1u);
  EXPECT_EQ(bc.col, 2u);
  EXPECT_EQ(bc.value, 22.5);  // the better re-test
  EXPECT_EQ(bc.link, HealthState::degraded);
  EXPECT_FALSE(verbs.cells[0].link.has_value());  // a<->b healthy: no flag
  EXPECT_EQ(verbs.min, 22.5);
  EXPECT_EQ(verbs.max, 48.0);
  EXPECT_EQ(verbs.possible_pairs(), 6u);
  EXPECT_EQ(verbs.leaves, (std::vector<std::string>(4, "")));

  EXPECT_EQ(matrices[1].rail, "mpi");  // no device named: the transport is the rail
  EXPECT_EQ(matrices[1].cells.size(), 6u);
}

TEST(BandwidthMatrix, CrossRailPairsAndLatencyAreKeptApart) {
  Report r;
  ProbeResult cross = bw("net.verbs.write_bw", "x", "y", 4096, 5.0);
  cross.scope.devices = {"mlx5_0:1", "mlx5_1:1"};
  r.probes = {cross, bw("net.verbs.write_lat", "x", "y", 8, 1.0, "mlx5_0:1"), bw("net.mpi.bw", "x", "x", 4096, 9.0)};
  const auto matrices = bandwidth_matrices(r);
  ASSERT_EQ(matrices.size(), 2u);
  EXPECT_EQ(matrices[0].rail, "mlx5_0:1<->mlx5_1:1");
  EXPECT_EQ(matrices[1].rail, "mpi");
  EXPECT_TRUE(matrices[1].cells.empty());  // two ranks on one host: no pair of hosts
  EXPECT_EQ(matrices[1].same_host, 1u);
  EXPECT_EQ(matrices[1].possible_pairs(), 1u);
  EXPECT_EQ(matrices[0].hosts, (std::vector<std::string>{"x", "y"}));  // hosts named only by probes
}

TEST(HtmlReporter, DegradedAndFailedLinksAreFlaggedInTheHeatmap) {
  const std::string html = render_html(degraded_link_report());
  const std::string verbs = heatmap_of(html, "mlx5_0:1");
  ASSERT_FALSE(verbs.empty()) << html;
  EXPECT_NE(verbs.find("data-detail=\"cells\""), std::string::npos);
  // Six pairs of four hosts: each drawn above the diagonal and mirrored below; the diagonal is no pair.
  EXPECT_NE(verbs.find("data-pairs=\"6\" data-possible-pairs=\"6\""), std::string::npos);
  EXPECT_EQ(count(verbs, "<rect class=\"cell"), 12u);
  EXPECT_EQ(count(verbs, "<rect class=\"cell mirror\""), 5u);  // a<->d has no value
  EXPECT_EQ(count(verbs, "<rect class=\"self\""), 4u);
  EXPECT_EQ(count(verbs, "<rect class=\"cell none"), 0u);
  EXPECT_EQ(count(verbs, "<rect class=\"cell novalue"), 2u);  // a<->d both halves
  EXPECT_EQ(count(verbs, "<g class=\"flag degraded\""), 1u);
  EXPECT_EQ(count(verbs, "<g class=\"flag degraded mirror\""), 1u);
  EXPECT_EQ(count(verbs, "<g class=\"flag failed"), 2u);
  // Told apart by shape: a dashed outline for degraded, a cross for failed; no hatch patterns.
  EXPECT_EQ(count(verbs, "stroke-dasharray=\"4 3\""), 2u);
  EXPECT_EQ(count(verbs, "<path d=\"M"), 4u);  // the failed pair's cross, white under black, both halves
  EXPECT_EQ(verbs.find("<pattern"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"pairs\">6 of 6 host pairs measured</span>"), std::string::npos);
  EXPECT_NE(verbs.find("b &lt;-&gt; c (mlx5_0:1): 22.50 GB/s at 1M; link degraded"), std::string::npos) << verbs;
  EXPECT_NE(verbs.find("a &lt;-&gt; d (mlx5_0:1): no value at 1M, timeout"), std::string::npos) << verbs;
  // Extremes of the ramp: the slowest pair darkest, the fastest brightest; values as text at 4 hosts.
  EXPECT_NE(verbs.find("fill=\"" + ramp_colour(0) + "\" data-value=\"22.5\""), std::string::npos);
  EXPECT_NE(verbs.find("fill=\"" + ramp_colour(1) + "\" data-value=\"48\""), std::string::npos);
  EXPECT_EQ(count(verbs, "<text class=\"value\""), 10u);

  const std::string mpi = heatmap_of(html, "mpi");
  EXPECT_EQ(count(mpi, "<g class=\"flag"), 4u);          // link verdicts hold whatever the rail
  EXPECT_EQ(count(html, "<svg class=\"heatmap\""), 3u);  // mlx5_0:1 and mpi bandwidth, mpi latency

  // The reasons table lists non-healthy verdicts only, worst first.
  const auto reasons = html.find("<table id=\"reasons\">");
  ASSERT_NE(reasons, std::string::npos);
  EXPECT_EQ(count(html.substr(reasons), "<tr class=\"reason"), 2u);
  EXPECT_LT(html.find("PROBE_TIMEOUT", reasons), html.find("IB_LINK_BW_LOW", reasons));
  // Every host has a row, judged or not.
  EXPECT_EQ(count(html, "<tr class=\"node "), 4u);
  EXPECT_EQ(count(html, "<tr class=\"node state-none\""), 3u);
}

TEST(HtmlReporter, LargeFleetStaysBounded) {
  constexpr std::size_t kHosts = 520;
  Report r;
  for (std::size_t i = 0; i < kHosts; ++i) r.hosts.push_back(host("gpu-node-" + std::to_string(i)));
  for (std::size_t i = 0; i < kHosts; ++i)
    for (std::size_t j = i + 1; j < kHosts; ++j) {
      // One slow node; the rest spread over 10 %, so colours vary from pair to pair.
      const double gbps = (i == 7 || j == 7) ? 24.0 : 48.0 - static_cast<double>((i * 31 + j * 17) % 50) / 10.0;
      r.probes.push_back(bw("net.verbs.write_bw", r.hosts[i].name, r.hosts[j].name, 1048576, gbps, "mlx5_0:1"));
    }
  r.verdicts.push_back(Verdict{Entity::link("gpu-node-3", "gpu-node-9"), HealthState::failed, {}, std::nullopt});
  const std::string html = render_html(r);
  const std::string map = heatmap_of(html, "mlx5_0:1");
  ASSERT_FALSE(map.empty());
  EXPECT_NE(map.find("data-detail=\"raster\""), std::string::npos);
  EXPECT_NE(map.find("width=\"732\" height=\"732\""), std::string::npos) << map.substr(0, 400);
  EXPECT_EQ(count(map, "<text"), 0u);                    // no labels at this scale
  EXPECT_EQ(count(map, "<rect class=\"row\""), kHosts);  // a tooltip per host row
  EXPECT_EQ(count(map, "<image class=\"matrix\""), 1u);
  EXPECT_EQ(count(map, "<rect class=\"cell"), 2u);  // only the flagged pair, both halves
  EXPECT_EQ(count(map, "<rect class=\"cell mirror\""), 1u);
  EXPECT_EQ(count(map, "<g class=\"flag failed"), 2u);
  EXPECT_NE(map.find("data-pairs=\"134940\" data-possible-pairs=\"134940\""), std::string::npos);
  // 134,940 pairs: a pixel each, base64, plus the rows.
  EXPECT_LT(html.size(), 600'000u);
}

TEST(Png, IndexedImageIsWellFormed) {
  EXPECT_EQ(crc32("123456789"), 0xCBF43926u);  // the CRC-32 check value
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  const std::string png = indexed_png(3, 2, {{1, 2, 3}, {250, 251, 252}}, {0, 1, 0, 1, 1, 0});
  EXPECT_EQ(png.substr(0, 8), "\x89PNG\r\n\x1a\n");
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  EXPECT_EQ(png.substr(16, 8), std::string("\0\0\0\x03\0\0\0\x02", 8));  // 3 x 2
  EXPECT_EQ(png.substr(png.size() - 12), std::string("\0\0\0\0IEND\xAE\x42\x60\x82", 12));
  // Stored deflate: the filtered rows appear verbatim.
  EXPECT_NE(png.find(std::string("\0\0\x01\0\0\x01\x01\0", 8)), std::string::npos);
  EXPECT_THROW(indexed_png(3, 2, {{0, 0, 0}}, {0, 0}), std::invalid_argument);
  // More than one stored block (65535 bytes each) still ends in one IEND.
  const std::string big = indexed_png(300, 300, {{0, 0, 0}}, std::vector<std::uint8_t>(300 * 300, 0));
  EXPECT_GT(big.size(), 300u * 301u);
  EXPECT_EQ(count(big, "IEND"), 1u);
}

ProbeResult lat(const std::string& id, const std::string& a, const std::string& b, std::size_t size_B, double p50_us) {
  ProbeResult p;
  p.id = id;
  p.scope.hosts = {a, b};
  p.params = {{"size_B", size_B}};
  Stats s;
  s.n = 100;
  s.min = p50_us * 0.9;
  s.p50 = p50_us;
  s.max = p50_us * 2;
  p.metrics["lat_us"] = Metric::of(s);
  return p;
}

TEST(PairMatrix, LatencyIsDrawnAtTheSmallestSizeAndTheLowestIsBrightest) {
  Report r;
  for (const char* h : {"a", "b", "c"}) r.hosts.push_back(host(h));
  r.probes = {lat("net.mpi.lat", "a", "b", 8, 2.0), lat("net.mpi.lat", "a", "b", 4096, 9.0),
              lat("net.mpi.lat", "a", "b", 8, 1.5), lat("net.mpi.lat", "a", "c", 8, 6.0),
              lat("net.mpi.lat", "b", "c", 8, 3.0), bw("net.mpi.bw", "a", "b", 4096, 10.0)};
  const auto matrices = latency_matrices(r);
  ASSERT_EQ(matrices.size(), 1u);
  const PairMatrix& m = matrices[0];
  EXPECT_EQ(m.quantity, Quantity::latency);
  EXPECT_STREQ(m.unit(), "us");
  ASSERT_EQ(m.cells.size(), 3u);
  EXPECT_EQ(m.cells[0].size_B, 8u);
  EXPECT_EQ(m.cells[0].value, 1.5);  // the better of the two at the smallest size
  EXPECT_EQ(m.min, 1.5);
  EXPECT_EQ(m.max, 6.0);

  const std::string html = render_html(r);
  ASSERT_NE(html.find("<section id=\"latency\">"), std::string::npos);
  const auto latency = html.find("data-quantity=\"latency\"");
  ASSERT_NE(latency, std::string::npos);
  const std::string section = html.substr(latency, html.find("</svg>\n</svg>", latency) - latency);
  EXPECT_NE(section.find("fill=\"" + ramp_colour(1) + "\" data-value=\"1.5\""), std::string::npos) << section;
  EXPECT_NE(section.find("fill=\"" + ramp_colour(0) + "\" data-value=\"6\""), std::string::npos) << section;
  EXPECT_NE(section.find("a &lt;-&gt; c (mpi): 6.000 us at 8"), std::string::npos) << section;
  EXPECT_NE(html.find("best <span class=\"best\">1.500</span> us"), std::string::npos);
  EXPECT_EQ(count(html, "<svg class=\"heatmap\""), 2u);  // bandwidth and latency
}

// The ramp is fixed to the rail's best: a pair 6% under it stays near the bright end, half the
// best or less is the darkest (a min-to-max scale drew a healthy few percent as the whole ramp).
TEST(PairMatrix, AHealthySpreadStaysBrightAndHalfTheBestIsDarkest) {
  Report r;
  for (const char* h : {"a", "b", "c", "d"}) r.hosts.push_back(host(h));
  r.probes = {bw("net.mpi.bw", "a", "b", 1 << 20, 48.0), bw("net.mpi.bw", "a", "c", 1 << 20, 45.0),
              bw("net.mpi.bw", "b", "c", 1 << 20, 36.0), bw("net.mpi.bw", "a", "d", 1 << 20, 20.0)};
  const std::string html = render_html(r);
  const std::string map = heatmap_of(html, "mpi");
  EXPECT_NE(map.find("fill=\"" + ramp_colour(1) + "\" data-value=\"48\""), std::string::npos) << map;
  EXPECT_NE(map.find("fill=\"" + ramp_colour(0.875) + "\" data-value=\"45\""), std::string::npos) << map;
  EXPECT_NE(map.find("fill=\"" + ramp_colour(0.5) + "\" data-value=\"36\""), std::string::npos) << map;
  EXPECT_NE(map.find("fill=\"" + ramp_colour(0) + "\" data-value=\"20\""), std::string::npos) << map;
  EXPECT_NE(ramp_colour(0.875), ramp_colour(0.5));
  EXPECT_NE(html.find("<span class=\"floor\">24.00</span> GB/s or less"), std::string::npos) << html;
  EXPECT_NE(html.find("worst pair <span class=\"worst\">20.00</span> GB/s"), std::string::npos);
}

// On one host there is no pair of hosts: no empty heatmap, but what its loopback measured, with
// the link's verdict.
TEST(PairMatrix, OneHostShowsWhatItMeasuredWithinNotAnEmptyHeatmap) {
  Report r;
  r.hosts.push_back(host("a"));
  ProbeResult loop = bw("net.verbs.write_bw", "a", "a", 8 << 20, 45.5, "mlx5_0:1");
  // A host name is untrusted text: escaped in the list as everywhere.
  Report hostile;
  hostile.hosts.push_back(host("<b>x</b>"));
  hostile.probes = {bw("net.mpi.bw", "<b>x</b>", "<b>x</b>", 1 << 20, 9.0)};
  const std::string page = render_html(hostile);
  EXPECT_NE(page.find("<tr><td>&lt;b&gt;x&lt;/b&gt;</td>"), std::string::npos) << page;
  EXPECT_EQ(page.find("<b>x</b>"), std::string::npos);
  loop.scope.devices = {"mlx5_0:1", "mlx5_1:1"};
  r.probes = {loop, bw("net.verbs.write_bw", "a", "a", 1 << 20, 30.0, "mlx5_0:1")};
  r.probes.back().scope.devices = loop.scope.devices;
  r.verdicts.push_back(Verdict{Entity::link("a", "a"), HealthState::degraded, {}, std::nullopt});
  const auto matrices = bandwidth_matrices(r);
  ASSERT_EQ(matrices.size(), 1u);
  EXPECT_EQ(matrices[0].possible_pairs(), 0u);
  EXPECT_EQ(matrices[0].same_host, 2u);
  ASSERT_EQ(matrices[0].within_host.size(), 1u);  // the largest size, as a pair's cell
  EXPECT_EQ(matrices[0].within_host[0].value, 45.5);
  const std::string html = render_html(r);
  EXPECT_EQ(count(html, "<svg class=\"heatmap\""), 0u) << html;
  EXPECT_EQ(html.find("0 of 0"), std::string::npos);
  EXPECT_NE(html.find("Rail mlx5_0:1&lt;-&gt;mlx5_1:1 <span class=\"probe\">(net.verbs.write_bw)</span>: one host, "
                      "no pair of hosts"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<tr><td>a</td><td class=\"num\" data-value=\"45.50\">45.50 GB/s</td><td>8M</td><td>ok</td>"
                      "<td>degraded</td></tr>"),
            std::string::npos)
      << html;
}

// A latency of 0 (no clock reads one) does not become the best and turn every pair bright: the
// best is the lowest above 0, and 0 is drawn as the worst; a rail with no value above 0 has no best.
TEST(PairMatrix, AValueOfZeroIsNeverTheBest) {
  Report r;
  for (const char* h : {"a", "b", "c"}) r.hosts.push_back(host(h));
  r.probes = {lat("net.mpi.lat", "a", "b", 8, 2.0), lat("net.mpi.lat", "a", "c", 8, 4.0),
              lat("net.mpi.lat", "b", "c", 8, 0.0), bw("net.mpi.bw", "a", "b", 4096, 0.0)};
  const auto latency = latency_matrices(r);
  ASSERT_EQ(latency.size(), 1u);
  EXPECT_EQ(latency[0].best, 2.0);
  EXPECT_EQ(bandwidth_matrices(r).at(0).best, std::nullopt);
  const std::string html = render_html(r);
  const auto at = html.find("data-quantity=\"latency\"");
  ASSERT_NE(at, std::string::npos);
  const std::string section = html.substr(at, html.find("</svg>\n</svg>", at) - at);
  EXPECT_NE(section.find("fill=\"" + ramp_colour(1) + "\" data-value=\"2\""), std::string::npos) << section;
  EXPECT_NE(section.find("fill=\"" + ramp_colour(0) + "\" data-value=\"4\""), std::string::npos) << section;
  EXPECT_NE(section.find("fill=\"" + ramp_colour(0) + "\" data-value=\"0\""), std::string::npos) << section;
  EXPECT_NE(html.find("no value above 0 on this rail"), std::string::npos);  // the bandwidth rail
}

TEST(PairMatrix, WithoutLatencyResultsThereIsNoLatencySection) {
  const std::string html = render_html(degraded_link_report());  // its one latency result has no value
  EXPECT_NE(html.find("<section id=\"latency\">"), std::string::npos);
  Report r = degraded_link_report();
  std::erase_if(r.probes, [](const ProbeResult& p) { return p.id == "net.mpi.lat"; });
  EXPECT_EQ(render_html(r).find("<section id=\"latency\">"), std::string::npos);
}

TEST(PairMatrix, HostsGoLeafByLeafWhenATopologyPlacesThem) {
  Report r;
  // Report order mixes the leaves; node10 sorts after node9 within its leaf.
  for (const auto& [name, leaf] : std::vector<std::pair<std::string, std::string>>{
           {"node10", "leaf2"}, {"node1", "leaf1"}, {"spare", ""}, {"node9", "leaf2"}, {"node2", "leaf1"}}) {
    r.hosts.push_back(host(name));
    r.hosts.back().leaf = leaf;
  }
  for (std::size_t i = 0; i < r.hosts.size(); ++i)
    for (std::size_t j = i + 1; j < r.hosts.size(); ++j)
      r.probes.push_back(bw("net.mpi.bw", r.hosts[i].name, r.hosts[j].name, 4096, 10.0 + static_cast<double>(i + j)));
  const auto m = bandwidth_matrices(r).at(0);
  EXPECT_EQ(m.hosts, (std::vector<std::string>{"node1", "node2", "node9", "node10", "spare"}));
  EXPECT_EQ(m.leaves, (std::vector<std::string>{"leaf1", "leaf1", "leaf2", "leaf2", ""}));
  ASSERT_EQ(m.cells.size(), 10u);
  for (const auto& c : m.cells) EXPECT_LT(c.row, c.col);
  // node1 (report index 1) with node10 (report index 0): 10 + 0 + 1.
  EXPECT_EQ(m.cells[2].row, 0u);
  EXPECT_EQ(m.cells[2].col, 3u);
  EXPECT_EQ(m.cells[2].value, 11.0);

  std::ostringstream out;
  write_heatmap_svg(m, out);
  const std::string svg = out.str();
  EXPECT_NE(svg.find("data-leaves=\"3\""), std::string::npos);
  EXPECT_EQ(count(svg, "<path class=\"leaf-boundary\""), 2u);
  EXPECT_NE(svg.find("d=\"M2 0V5M0 2H5\""), std::string::npos) << svg;  // between leaf1 and leaf2
  EXPECT_NE(svg.find("data-first=\"2\" data-hosts=\"2\"><title>leaf2: 2 hosts</title>leaf2</text>"), std::string::npos);
  EXPECT_NE(svg.find("<title>no leaf: 1 hosts</title>"), std::string::npos);

  // 520 hosts on 130 leaves of 4: every leaf has its bracket, the names do not overlap.
  Report big;
  for (int i = 0; i < 520; ++i) {
    big.hosts.push_back(host("n" + std::to_string(i)));
    big.hosts.back().leaf = "leaf" + std::to_string(i / 4);
  }
  big.probes = {bw("net.mpi.bw", "n0", "n1", 4096, 10.0)};
  std::ostringstream big_out;
  write_heatmap_svg(bandwidth_matrices(big).at(0), big_out);
  const std::string big_svg = big_out.str();
  EXPECT_EQ(count(big_svg, "<path class=\"leaf-bracket\""), 130u);
  EXPECT_EQ(count(big_svg, "<path class=\"leaf-boundary\""), 129u);
  const std::size_t labels = count(big_svg, "<text class=\"leaf-label\"");
  EXPECT_GT(labels, 20u);
  EXPECT_LE(labels, 720u / 13 + 1);  // at least a line of text apart

  for (auto& h : r.hosts) h.leaf.clear();  // no topology: report order, no boundaries
  const auto plain = bandwidth_matrices(r).at(0);
  EXPECT_EQ(plain.hosts, (std::vector<std::string>{"node10", "node1", "spare", "node9", "node2"}));
  std::ostringstream plain_out;
  write_heatmap_svg(plain, plain_out);
  EXPECT_EQ(plain_out.str().find("leaf"), std::string::npos);
}

ProbeResult allreduce(const std::string& group, std::size_t size_B, double busbw, bool in_place = false) {
  ProbeResult p;
  p.id = "collective.nccl.all_reduce";
  p.scope = Scope{{"a"}, {0, 1}, {}};
  p.params = {{"placement", "node"}, {"group", group},   {"nranks", 8},
              {"size_B", size_B},    {"dtype", "float"}, {"in_place", in_place}};
  p.metrics = {{"time_us_avg", Metric::of(100.0)},
               {"algbw_GBps", Metric::of(busbw / 1.75)},
               {"busbw_GBps", Metric::of(busbw)},
               {"wrong_elements_total", Metric::of(0)}};
  return p;
}

TEST(HtmlReporter, AllReduceHasATableAndAChartOfBusBandwidthOverSize) {
  EXPECT_EQ(render_html(degraded_link_report()).find("id=\"allreduce"), std::string::npos);  // none run
  Report r = degraded_link_report();
  for (const std::size_t size : {std::size_t{1} << 20, std::size_t{1} << 26, std::size_t{1} << 30}) {
    r.probes.push_back(allreduce("a", size, 400.0));
    r.probes.push_back(allreduce("b", size, 200.0));
    r.probes.push_back(allreduce("b", size, 999.0, true));  // in place: in the table, not the chart
  }
  const std::string html = render_html(r);
  const auto section = html.find("<section id=\"allreduce-section\">");
  ASSERT_NE(section, std::string::npos);
  EXPECT_EQ(count(html, "<tr class=\"allreduce\">"), 9u);
  EXPECT_LT(html.find("<td>a</td>", section), html.find("<td>b</td>", section));  // by group
  const auto chart = html.find("<svg class=\"chart allreduce\"");
  ASSERT_NE(chart, std::string::npos);
  EXPECT_NE(html.find("data-series=\"1\"", chart), std::string::npos);
  EXPECT_NE(html.find("<g class=\"series\" data-name=\"collective.nccl.all_reduce (node)\" data-points=\"3\">", chart),
            std::string::npos);
  // The median of the two groups (lower median: 200) and their range (200 to 400).
  EXPECT_NE(html.find("at 1G: busbw 200.0 GB/s (median of 2 groups, 200.0 to 400.0)", chart), std::string::npos)
      << html.substr(chart, 3000);
  EXPECT_GT(html.find("999", chart), html.find("<table id=\"allreduce\">"));  // in place: only in the table
  EXPECT_NE(html.find(">1M</text>", chart), std::string::npos);
  EXPECT_NE(html.find(">1G</text>", chart), std::string::npos);
}

// A burn-in of 6 rounds: link b<->c failed in rounds 3 and 5 (flaky), node a healthy throughout.
Report html_burn_in_report() {
  Report r = degraded_link_report();
  BurnInStats b;
  b.rounds = 6;
  BurnInEntity link;
  link.entity = Entity::link("b", "c");
  link.rounds_judged = 6;
  link.healthy = 4;
  link.failed = 2;
  link.pass_ratio = 4.0 / 6;
  link.not_passed_rounds = {3, 5};
  link.reasons = {{ReasonCode::IB_LINK_BW_LOW, 2}};
  link.reason_rounds = {{ReasonCode::IB_LINK_BW_LOW, {3, 5}}};
  BurnInFigure f;
  f.figure = "net.verbs.write_bw@1048576:bw_avg_GBps";
  f.metric = "bw_avg_GBps";
  f.worst = 20;
  f.median = 48;
  f.count = 6;
  f.series = {{1, 48}, {2, 48.5}, {3, 20}, {4, 47.9}, {5, 21}, {6, 48.1}};
  link.figures = {f};
  BurnInEntity node;
  node.entity = Entity::node("a");
  node.rounds_judged = 6;
  node.healthy = 6;
  node.pass_ratio = 1;
  node.figures = {f};
  b.entities = {node, link};
  r.burn_in = b;
  r.verdicts[0].reasons.push_back(Reason{ReasonCode::BURN_IN_FLAKY, "", "", std::nullopt, std::nullopt});
  r.verdicts[0].state = HealthState::failed;
  return r;
}

TEST(HtmlReporter, BurnInDrawsEachFlaggedEntitysFiguresOverTheRounds) {
  EXPECT_EQ(render_html(degraded_link_report()).find("<section id=\"burn-in\""), std::string::npos);
  const std::string html = render_html(html_burn_in_report());
  const auto section = html.find("<section id=\"burn-in\" data-rounds=\"6\">");
  ASSERT_NE(section, std::string::npos);
  EXPECT_EQ(count(html, "<div class=\"entity\""), 1u);  // the healthy node is counted, not drawn
  EXPECT_NE(html.find("<div class=\"entity\" data-entity=\"link b&lt;-&gt;c\" data-state=\"failed\">"),
            std::string::npos);
  EXPECT_NE(html.find("2 entities judged; 1 not healthy"), std::string::npos);
  const auto chart = html.find("<svg class=\"chart burn-in\"", section);
  ASSERT_NE(chart, std::string::npos);
  const std::string svg = html.substr(chart, html.find("</svg>", chart) - chart);
  EXPECT_NE(svg.find("data-bad-rounds=\"3,5\" data-flagged-points=\"2\""), std::string::npos) << svg.substr(0, 600);
  EXPECT_EQ(count(svg, "<rect class=\"band\""), 2u);
  EXPECT_EQ(count(svg, "class=\"point flagged\""), 2u);
  EXPECT_EQ(count(svg, "class=\"point\""), 4u);
  EXPECT_NE(svg.find("<title>round 3: 20.00 (not healthy)</title>"), std::string::npos);
  EXPECT_NE(svg.find("data-points=\"6\""), std::string::npos);
  EXPECT_NE(html.find("<code>IB_LINK_BW_LOW</code> in rounds 3, 5"), std::string::npos);
}

TEST(HtmlReporter, StateLabelsCarryAGlyphAndTheWord) {
  EXPECT_EQ(state_badge("failed"),
            "<span class=\"state state-failed\"><span class=\"glyph\" aria-hidden=\"true\">\u2716</span>failed</span>");
  EXPECT_NE(state_badge("degraded").find("\u25B2</span>degraded"), std::string::npos);
  EXPECT_NE(state_badge("healthy").find("\u2713</span>healthy"), std::string::npos);
  EXPECT_NE(state_badge("none").find("not judged"), std::string::npos);
  EXPECT_EQ(state_badge("<x>").find("<x>"), std::string::npos);
}

// Every section at once, leaves included: still one file that fetches nothing and runs nothing.
TEST(HtmlReporter, EveryNewSectionStaysSelfContained) {
  Report r = html_burn_in_report();
  for (auto& h : r.hosts) h.leaf = h.name < "c" ? "leaf1" : "leaf2";
  r.probes.push_back(lat("net.mpi.lat", "a", "c", 8, 2.0));
  r.probes.push_back(allreduce("a", 1 << 20, 300.0));
  const std::string html = render_html(r);
  for (const char* section :
       {"<section id=\"bandwidth\">", "<section id=\"latency\">", "<section id=\"allreduce-section\">",
        "<section id=\"admission\">", "<section id=\"problems\">", "<section id=\"burn-in\""})
    EXPECT_EQ(count(html, section), 1u) << section;
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  // The only address on the page is SVG's namespace, which is never fetched.
  std::size_t addresses = 0;
  for (auto at = html.find("http"); at != std::string::npos; at = html.find("http", at + 4)) {
    EXPECT_EQ(html.compare(at, 26, "http://www.w3.org/2000/svg"), 0) << html.substr(at, 60);
    ++addresses;
  }
  EXPECT_GT(addresses, 0u);
  for (auto at = html.find("href=\""); at != std::string::npos; at = html.find("href=\"", at + 6))
    EXPECT_EQ(html.compare(at + 6, 5, "data:"), 0) << html.substr(at, 60);
}

}  // namespace
}  // namespace ibgpu
