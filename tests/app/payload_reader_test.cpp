// Rank 0's reader of the ranks' payloads (app/payload_reader.h) against the document reader it
// replaced on that path (rank_result_from_json of json::parse, app/pipeline.h): the same
// RankResult from every payload a rank can send, and an error wherever the other has one.
#include "app/payload_reader.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "reports/json.h"

namespace ibgpu {
namespace {

using nlohmann::json;

RankResult by_document(const std::string& text) { return rank_result_from_json(json::parse(text)); }

// Both readers' results, as the JSON a rank would send of them.
void expect_same_reading(const std::string& text) {
  EXPECT_EQ(to_json(read_rank_payload(text)).dump(), to_json(by_document(text)).dump()) << text;
}

HostInventory full_inventory() {
  HostInventory h;
  h.name = "node017";
  h.ranks = {16, 17};
  h.cuda_visible_devices = {{16, "0"}, {17, "1"}};
  h.gpus = {GpuInfo{0, "NVIDIA H100 80GB HBM3", "GPU-1234", "00000000:17:00.0", 79.6, ""},
            GpuInfo{1, "NVIDIA H100 80GB HBM3", "", "", std::nullopt, ""}};
  PciGpu pci;
  pci.pci_address = "0000:17:00.0";
  pci.device_id = "0x2330";
  pci.numa_node = 0;
  pci.link = PciLink{32.0, 32.0, 8, 16};
  h.pci_gpus = {pci, PciGpu{"0000:18:00.0", "", std::nullopt, PciLink{}}};
  Hca hca;
  hca.name = "mlx5_0";
  hca.node_guid = "b8ce:f603:00a1:b2c3";
  hca.fw_ver = "28.39.1002";
  hca.board_id = "MT_0000000838";
  hca.hca_type = "MT4129";
  hca.pci_address = "0000:17:00.1";
  hca.numa_node = 1;
  hca.link = PciLink{16.0, 32.0, 16, 16};
  hca.rail = false;
  IbPort port;
  port.port = 1;
  port.state = CodedState{4, "ACTIVE"};
  port.phys_state = CodedState{5, "LinkUp"};
  port.rate_text = "400 Gb/sec (4X NDR)";
  port.rate = LinkRate{400, 4, "NDR"};
  port.link_layer = "InfiniBand";
  port.lid = "0x12";
  port.counters = {{"port_rcv_errors", 3}, {"symbol_error", 18446744073709551615u}};
  hca.ports = {port, IbPort{}};
  h.hcas = {hca};
  h.topology = {GpuHcaAffinity{0, "0000:17:00.0", 0, "mlx5_0", "0000:17:00.1", PciProximity::same_switch},
                GpuHcaAffinity{1, "", std::nullopt, "", "", std::nullopt}};
  h.rails = {RailAssignment{0, "0000:17:00.0", "mlx5_0:1", PciProximity::same_numa, ""},
             RailAssignment{1, "0000:18:00.0", "", std::nullopt, "no HCA near the GPU"}};
  h.cpu = CpuInfo{"AMD EPYC 9454", 96, 2};
  h.versions = {{"rdma_core", "50.0"}, {"kernel", "6.8.0"}};
  h.env = {{"NCCL_IB_HCA", "mlx5_0"}};
  h.leaf = "leaf03";
  return h;
}

Stats latency() {
  Stats s;
  s.n = 1000;
  s.min = 1.5;
  s.p50 = 2;
  s.p90 = 2.25;
  s.p99 = 3.125;
  s.p999 = 4;
  s.max = 9.75;
  s.mean = 2.1;
  s.stddev = 0.3;
  return s;
}

// A rank's results with every field the payload carries, of every status.
RankResult full_rank() {
  RankResult r;
  r.rank = 17;
  r.host = "node017";
  r.inventory = full_inventory();
  r.cuda_visible_devices = "3,GPU-5";

  ProbeResult bw;
  bw.id = "net.verbs.write_bw";
  bw.scope = Scope{{"node017", "node042"}, {17, 42}, {"mlx5_0", "mlx5_3"}};
  bw.params = {{"size_B", std::size_t{1} << 20},
               {"round", 0},
               {"offset", -3},
               {"ratio", 0.25},
               {"dtype", "f32"},
               {"in_place", false},
               {"none", nullptr},
               {"list", {1, "a", json{{"b", json::array()}}}},
               {"nested", {{"k", {{"deep", {json::array()}}}}}}};
  bw.metrics["bw_avg_GBps"] = Metric::of(47.25);
  bw.metrics["lat_us"] = Metric::of(latency());
  bw.metrics["gone"] = Metric::missing();
  bw.metrics["wrong_elements"] = Metric::of(0);
  bw.metrics["huge"] = Metric::of(1e300);
  bw.time = "2026-12-05T10:00:00Z";
  r.probes.push_back(bw);

  ProbeResult failed = bw;
  failed.status = ProbeStatus::failed;
  failed.error = "bandwidth 12.5 GB/s below the floor";
  r.probes.push_back(failed);

  r.probes.push_back(skipped("gpu.nvml.health", Scope{{"node017"}, {17}, {"gpu0"}}, "no NVML on this host"));
  r.probes.push_back(
      skipped("net.verbs.write_lat", Scope{}, "the time cap of 600 s was reached first", SkippedBy::ibgpu));

  ProbeResult timeout;
  timeout.id = "net.verbs.write_lat";
  timeout.status = ProbeStatus::timeout;
  timeout.scope = Scope{{"node017", "node003"}, {17, 3}, {}};
  timeout.params = {{"retest", 1}};
  timeout.error = "no answer to the meeting from host node003";
  r.probes.push_back(timeout);

  ProbeResult error;
  error.id = "cluster.rank";
  error.status = ProbeStatus::error;
  error.params = nullptr;  // params need not be an object
  error.error = "ibv_open_device: No such device \"mlx5_9\" \xc3\xa9 \\ \n";
  r.probes.push_back(error);

  ProbeResult listed;
  listed.id = "collective.nccl.all_reduce";
  listed.params = {1, 2, 3};
  listed.reason = "";
  r.probes.push_back(listed);
  return r;
}

TEST(PayloadReader, ReadsBackEveryFieldOfARanksResults) {
  const std::string text = to_json(full_rank()).dump();
  const RankResult read = read_rank_payload(text);
  EXPECT_EQ(to_json(read).dump(), text);  // every field, through to_json
  expect_same_reading(text);

  EXPECT_EQ(read.rank, 17);
  EXPECT_EQ(read.host, "node017");
  ASSERT_TRUE(read.inventory);
  EXPECT_EQ(json(*read.inventory), json(full_inventory()));
  ASSERT_EQ(read.probes.size(), 7u);
  const ProbeResult& bw = read.probes[0];
  EXPECT_EQ(bw.status, ProbeStatus::ok);
  EXPECT_EQ(bw.scope.ranks, (std::vector<int>{17, 42}));
  EXPECT_EQ(bw.params, full_rank().probes[0].params);
  EXPECT_TRUE(bw.params.at("size_B").is_number_unsigned());  // as json::parse reads it
  EXPECT_TRUE(bw.params.at("offset").is_number_integer());
  EXPECT_EQ(bw.metrics.at("bw_avg_GBps").value, 47.25);
  ASSERT_TRUE(bw.metrics.at("lat_us").summary);
  EXPECT_EQ(bw.metrics.at("lat_us").summary->n, 1000u);
  EXPECT_EQ(bw.metrics.at("lat_us").summary->p999, 4);
  EXPECT_FALSE(bw.metrics.at("gone").value || bw.metrics.at("gone").summary);
  EXPECT_EQ(bw.metrics.at("wrong_elements").value, 0.0);
  EXPECT_EQ(read.probes[1].status, ProbeStatus::failed);
  EXPECT_EQ(read.probes[1].error, "bandwidth 12.5 GB/s below the floor");
  EXPECT_EQ(read.probes[2].skipped_by, SkippedBy::node);
  EXPECT_EQ(read.probes[2].reason, "no NVML on this host");
  EXPECT_EQ(read.probes[3].skipped_by, SkippedBy::ibgpu);
  EXPECT_EQ(read.probes[4].status, ProbeStatus::timeout);
  EXPECT_EQ(read.probes[5].status, ProbeStatus::error);
  EXPECT_EQ(read.probes[5].error, full_rank().probes[5].error);
  EXPECT_TRUE(read.probes[5].params.is_null());
  EXPECT_EQ(read.probes[6].reason, "");
  EXPECT_FALSE(read.probes[6].error);
  EXPECT_EQ(bw.time, "2026-12-05T10:00:00Z");
  EXPECT_EQ(read.probes[2].time, "");
  EXPECT_EQ(read.cuda_visible_devices, "3,GPU-5");
}

TEST(PayloadReader, ARankWithoutInventoryOrResults) {
  RankResult r;
  r.rank = 3;
  r.host = "n3";
  const std::string text = to_json(r).dump();
  const RankResult read = read_rank_payload(text);
  EXPECT_FALSE(read.inventory);
  EXPECT_TRUE(read.probes.empty());
  EXPECT_FALSE(read.cuda_visible_devices);
  EXPECT_EQ(to_json(read).dump(), text);
}

TEST(PayloadReader, ReadsAsTheDocumentReaderDoes) {
  // Members in any order, unknown ones (of any type) passed over, optional ones absent, a
  // repeated member's last value kept, a metric neither number nor summary missing.
  const std::vector<std::string> payloads{
      R"({"probes":[{"status":"skipped","later":{"a":[1,{"b":2}]},"skipped_by":"ibgpu","reason":"cap",)"
      R"("id":"x.y","extra":[[]],"more":null}],"inventory":null,"future":{"x":[1]},"host":"h","rank":3})",
      R"({"rank":1,"rank":2,"host":"a","host":"b","inventory":{"name":"x"},"inventory":null,)"
      R"("probes":[{"id":"a","status":"ok"}],"probes":[{"id":"a","id":"b","status":"failed","status":"ok",)"
      R"("metrics":{"m":1,"m":2.5,"t":true,"s":"x","a":[1],"o":{"n":1,"min":1,"p50":2,"p90":3,)"
      R"("p99":4,"p999":5,"max":6,"mean":2,"stddev":1,"extra":{}}},"metrics":{"z":-1},)"
      R"("scope":{"hosts":["x"],"hosts":["y","z"],"other":[{}]},"scope":{"ranks":[1,-2],"devices":[]},)"
      R"("params":{"a":1,"a":{"b":[true]}},"reason":"r","reason":null,"error":"e"}]})",
      R"({"rank":0,"host":"h","inventory":{"name":"h","gpus":[{"index":0}],"future":[1,2]},"probes":[]})",
      R"({"rank":0,"host":"h","inventory":null,"probes":[{"id":"a","status":"ok","params":7},)"
      R"({"id":"b","status":"error","params":[],"scope":{}},{"id":"c","status":"ok","metrics":{}}]})",
      "  {\"rank\" : 5 ,\n\"host\":\"h\",\t\"inventory\":null,\"probes\":[ ] }  ",
  };
  for (const std::string& text : payloads) expect_same_reading(text);
}

TEST(PayloadReader, WhatTheDocumentReaderRefusesIsAnError) {
  const std::string good_result = R"({"id":"a","status":"ok"})";
  auto with_result = [](const std::string& result) {
    return R"({"rank":1,"host":"h","inventory":null,"probes":[)" + result + "]}";
  };
  const std::vector<std::string> bad{
      "",
      "[]",
      "7",
      "null",
      R"({"host":"h","inventory":null,"probes":[]})",
      R"({"rank":1,"inventory":null,"probes":[]})",
      R"({"rank":1,"host":"h","probes":[]})",
      R"({"rank":1,"host":"h","inventory":null})",
      R"({"rank":"1","host":"h","inventory":null,"probes":[]})",
      R"({"rank":1,"host":7,"inventory":null,"probes":[]})",
      R"({"rank":1,"host":"h","inventory":5,"probes":[]})",
      R"({"rank":1,"host":"h","inventory":[],"probes":[]})",
      R"({"rank":1,"host":"h","inventory":{"gpus":[]},"probes":[]})",
      R"({"rank":1,"host":"h","inventory":null,"probes":{}})",
      R"({"rank":1,"host":"h","inventory":null,"probes":null})",
      with_result("3"),
      with_result("[]"),
      with_result(R"({"status":"ok"})"),
      with_result(R"({"id":"a"})"),
      with_result(R"({"id":1,"status":"ok"})"),
      with_result(R"({"id":"a","status":"fine"})"),
      with_result(R"({"id":"a","status":null})"),
      with_result(R"({"id":"a","status":"ok","scope":null})"),
      with_result(R"({"id":"a","status":"ok","scope":[]})"),
      with_result(R"({"id":"a","status":"ok","scope":{"hosts":"h"}})"),
      with_result(R"({"id":"a","status":"ok","scope":{"hosts":[1]}})"),
      with_result(R"({"id":"a","status":"ok","scope":{"ranks":[1.5]}})"),
      with_result(R"({"id":"a","status":"ok","scope":{"ranks":["1"]}})"),
      with_result(R"({"id":"a","status":"ok","scope":{"ranks":[2147483648]}})"),
      with_result(R"({"id":"a","status":"ok","scope":{"devices":[{}]}})"),
      with_result(R"({"id":"a","status":"ok","metrics":null})"),
      with_result(R"({"id":"a","status":"ok","metrics":[]})"),
      with_result(R"({"id":"a","status":"ok","metrics":{"m":{"n":1}}})"),
      with_result(R"({"id":"a","status":"ok","metrics":{"m":{"n":-1,"min":1,"p50":2,"p90":3,"p99":4,)"
                  R"("p999":5,"max":6,"mean":2,"stddev":1}}})"),
      with_result(R"({"id":"a","status":"ok","metrics":{"m":{"n":1,"min":"1","p50":2,"p90":3,"p99":4,)"
                  R"("p999":5,"max":6,"mean":2,"stddev":1}}})"),
      with_result(R"({"id":"a","status":"ok","reason":3})"),
      with_result(R"({"id":"a","status":"ok","error":{}})"),
      with_result(R"({"id":"a","status":"ok","skipped_by":null})"),
      with_result(good_result) + " x",
      with_result(good_result) + "{}",
      with_result(R"({"id":"a","status":"ok","params":{"x":1e400}})"),
      with_result(R"({"id":"a\ud800","status":"ok"})"),
  };
  for (const std::string& text : bad) {
    EXPECT_ANY_THROW(by_document(text)) << text;  // the test's own premise
    EXPECT_ANY_THROW(read_rank_payload(text)) << text;
  }
  EXPECT_NO_THROW(read_rank_payload(with_result(good_result)));
  // Stricter than the document reader, which reads 2^32 as rank 0.
  EXPECT_ANY_THROW(read_rank_payload(R"({"rank":4294967296,"host":"h","inventory":null,"probes":[]})"));
}

std::string error_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(PayloadReader, ATruncatedPayloadGivesTheParsersOwnError) {
  const std::string text = to_json(full_rank()).dump();
  for (std::size_t n = 0; n < text.size(); ++n) {
    const std::string cut = text.substr(0, n);
    const std::string expected = error_of([&] { return json::parse(cut).size(); });
    ASSERT_EQ(error_of([&] { (void)read_rank_payload(cut); }), expected) << "cut at " << n;
  }
}

TEST(PayloadReader, AnErrorNamesThePlace) {
  const std::string head = R"({"rank":1,"host":"h","inventory":null,"probes":[{"id":"a","status":"ok"},)";
  EXPECT_EQ(error_of([&] { (void)read_rank_payload(head + R"({"id":"b","status":7}]})"); }),
            "at /probes/1/status: expected a string, found a number");
  EXPECT_EQ(
      error_of([&] { (void)read_rank_payload(head + R"({"id":"b","status":"ok","scope":{"ranks":[1,"2"]}}]})"); }),
      "at /probes/1/scope/ranks/1: expected an integer, found a string");
  EXPECT_EQ(
      error_of([&] { (void)read_rank_payload(head + R"({"id":"b","status":"ok","scope":{"ranks":[1,-1e3]}}]})"); }),
      "at /probes/1/scope/ranks/1: expected an integer, found a number");
  EXPECT_EQ(error_of([&] { (void)read_rank_payload(head + R"({"status":"ok"}]})"); }),
            "at /probes/1: missing member 'id'");
  EXPECT_EQ(error_of([&] {
              (void)read_rank_payload(head +
                                      R"({"id":"b","status":"ok","metrics":{"lat":{"n":1,"min":1,"p50":2,"p90":3,)"
                                      R"("p99":4,"max":6,"mean":2,"stddev":1}}}]})");
            }),
            "at /probes/1/metrics/lat: missing member 'p999'");
  EXPECT_EQ(
      error_of([&] { (void)read_rank_payload(R"({"rank":-2147483649,"host":"h","inventory":null,"probes":[]})"); }),
      "at /rank: -2147483649 is out of range");
  EXPECT_EQ(error_of([&] { (void)read_rank_payload(R"({"rank":1,"host":"h","probes":[]})"); }),
            "at /: missing member 'inventory'");
  EXPECT_EQ(error_of([&] { (void)read_rank_payload(head + R"({"id":"b","status":"late"}]})"); }),
            "unknown probe status 'late'");
}

// A rank whose payload cannot be read is an error result naming it, with what the parser said.
TEST(PayloadReader, AssembleReportsAnUnreadablePayloadByRank) {
  World world;
  world.size = 3;
  world.places = places_from_hosts({"a", "a", "b"});
  RankResult r0;
  r0.host = "a";
  const std::string cut = to_json(full_rank()).dump().substr(0, 200);
  const Report report = assemble(world, {to_json(r0).dump(), cut, std::string(R"({"rank":2})")}, "within 1 s");
  ASSERT_EQ(report.probes.size(), 2u);
  const ProbeResult& garbled = report.probes[0];
  EXPECT_EQ(garbled.id, "cluster.gather");
  EXPECT_EQ(garbled.status, ProbeStatus::error);
  EXPECT_EQ(garbled.scope.hosts, std::vector<std::string>{"a"});
  EXPECT_EQ(garbled.scope.ranks, std::vector<int>{1});
  EXPECT_EQ(garbled.error, "unreadable results from rank 1: " + error_of([&] { return json::parse(cut).size(); }));
  EXPECT_EQ(report.probes[1].scope.ranks, std::vector<int>{2});
  EXPECT_EQ(report.probes[1].error, "unreadable results from rank 2: at /: missing member 'host'");
}

}  // namespace
}  // namespace ibgpu
