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
      Verdict{{"link", "b<->c"},
              HealthState::degraded,
              {Reason{"IB_LINK_BW_LOW", "slow", "bw_avg_GBps", 22.5, 40.0}},
              std::nullopt},
      Verdict{{"link", "d<->a"},
              HealthState::failed,
              {Reason{"PROBE_TIMEOUT", "timeout", "net.verbs.write_bw", std::nullopt, std::nullopt}},
              std::nullopt},
      Verdict{{"link", "a<->b"}, HealthState::healthy, {}, std::nullopt},
      Verdict{{"node", "a"}, HealthState::healthy, {}, Action::admit, {"gpu0", "mlx5_0:1"}, {}},
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
  r.verdicts.push_back(
      Verdict{{"node", evil}, HealthState::failed, {Reason{"X", evil, "", std::nullopt, std::nullopt}}, Action::drain});
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
  const BandwidthMatrix& verbs = matrices[0];
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
  EXPECT_FALSE(ad.bw_GBps.has_value());
  EXPECT_EQ(ad.status, ProbeStatus::timeout);
  EXPECT_EQ(ad.link, HealthState::failed);  // verdict named d<->a: either order matches
  const PairCell& bc = verbs.cells[3];
  EXPECT_EQ(bc.row, 1u);
  EXPECT_EQ(bc.col, 2u);
  EXPECT_EQ(bc.bw_GBps, 22.5);  // the better re-test
  EXPECT_EQ(bc.link, HealthState::degraded);
  EXPECT_FALSE(verbs.cells[0].link.has_value());  // a<->b healthy: no flag
  EXPECT_EQ(verbs.min_GBps, 22.5);
  EXPECT_EQ(verbs.max_GBps, 48.0);

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
  ASSERT_EQ(matrices[1].cells.size(), 1u);  // two ranks on one host: the diagonal
  EXPECT_EQ(matrices[1].cells[0].row, matrices[1].cells[0].col);
  EXPECT_EQ(matrices[0].hosts, (std::vector<std::string>{"x", "y"}));  // hosts named only by probes
}

TEST(HtmlReporter, DegradedAndFailedLinksAreFlaggedInTheHeatmap) {
  const std::string html = render_html(degraded_link_report());
  const std::string verbs = heatmap_of(html, "mlx5_0:1");
  ASSERT_FALSE(verbs.empty()) << html;
  EXPECT_NE(verbs.find("data-detail=\"cells\""), std::string::npos);
  EXPECT_EQ(count(verbs, "<rect class=\"cell"), 16u);           // 4 x 4
  EXPECT_EQ(count(verbs, "<rect class=\"cell none\""), 4u);     // the diagonal: not measured
  EXPECT_EQ(count(verbs, "<rect class=\"cell novalue\""), 2u);  // a<->d both halves
  EXPECT_EQ(count(verbs, "<rect class=\"flag degraded\""), 2u);
  EXPECT_EQ(count(verbs, "<rect class=\"flag failed\""), 2u);
  EXPECT_NE(verbs.find("b &lt;-&gt; c (mlx5_0:1): 22.50 GB/s at 1M; link degraded"), std::string::npos) << verbs;
  EXPECT_NE(verbs.find("a &lt;-&gt; d (mlx5_0:1): no value at 1M, timeout"), std::string::npos) << verbs;
  // Extremes of the ramp: the slowest pair darkest, the fastest brightest; values as text at 4 hosts.
  EXPECT_NE(verbs.find("fill=\"" + ramp_colour(0) + "\" data-gbps=\"22.5\""), std::string::npos);
  EXPECT_NE(verbs.find("fill=\"" + ramp_colour(1) + "\" data-gbps=\"48\""), std::string::npos);
  EXPECT_EQ(count(verbs, "<text class=\"value\""), 10u);

  const std::string mpi = heatmap_of(html, "mpi");
  EXPECT_EQ(count(mpi, "<rect class=\"flag"), 4u);  // link verdicts hold whatever the rail
  EXPECT_EQ(count(html, "<svg class=\"heatmap\""), 2u);

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
  r.verdicts.push_back(Verdict{{"link", "gpu-node-3<->gpu-node-9"}, HealthState::failed, {}, std::nullopt});
  const std::string html = render_html(r);
  const std::string map = heatmap_of(html, "mlx5_0:1");
  ASSERT_FALSE(map.empty());
  EXPECT_NE(map.find("data-detail=\"raster\""), std::string::npos);
  EXPECT_NE(map.find("width=\"732\" height=\"732\""), std::string::npos) << map.substr(0, 400);
  EXPECT_EQ(count(map, "<text"), 0u);                    // no labels at this scale
  EXPECT_EQ(count(map, "<rect class=\"row\""), kHosts);  // a tooltip per host row
  EXPECT_EQ(count(map, "<image class=\"matrix\""), 1u);
  EXPECT_EQ(count(map, "<rect class=\"cell\""), 2u);  // only the flagged pair, both halves
  EXPECT_EQ(count(map, "<rect class=\"flag failed\""), 2u);
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

}  // namespace
}  // namespace ibgpu
