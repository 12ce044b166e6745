#include "cluster/line.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace ibgpu {
namespace {

// Real sockets on this host: rank 0's listener in the test's thread, the ranks in threads of their own.

// Polls the listener as the gather does until `rank`'s results arrive (or 10 s pass).
std::optional<std::string> receive(LineListener& line, int rank) {
  const Deadline limit(Seconds(10));
  while (!limit.expired()) {
    line.heard_from();
    if (auto text = line.try_receive(rank)) return text;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return std::nullopt;
}

// The wire format, spelled out here on its own: magic, token, rank, length (network order).
std::string raw_header(const std::string& token, std::uint32_t rank, std::uint64_t length) {
  std::string out = "IBGPULN1" + token;
  for (std::uint32_t word : {rank, static_cast<std::uint32_t>(length >> 32), static_cast<std::uint32_t>(length)}) {
    const std::uint32_t net = htonl(word);
    out.append(reinterpret_cast<const char*>(&net), sizeof net);
  }
  return out;
}

// A raw connection to the listener's loopback address that sends `bytes` and stays open.
Fd raw_send(const LineAddress& to, const std::string& bytes) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(to.port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  EXPECT_EQ(::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_EQ(::send(fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL), static_cast<ssize_t>(bytes.size()));
  return fd;
}

const std::string kToken = "0123456789abcdef0123456789abcdef";

TEST(LineAddress, ReadsBackWhatItWritesAndRefusesAnythingElse) {
  LineAddress a{{"10.0.0.1", "127.0.0.1"}, 40123, kToken};
  const auto back = LineAddress::from_text(a.to_text());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->hosts, a.hosts);
  EXPECT_EQ(back->port, 40123);
  EXPECT_EQ(back->token, kToken);
  for (const char* bad :
       {"", "ibgpu-line", "ibgpu-line short 40123 10.0.0.1", "ibgpu-line 0123456789abcdef0123456789abcdef 0 10.0.0.1",
        "ibgpu-line 0123456789abcdef0123456789abcdef 40123", "other 1 2 3"})
    EXPECT_FALSE(LineAddress::from_text(bad)) << bad;
}

TEST(Line, ARanksResultsArriveWholeAndItIsReleasedWithTheExitCode) {
  LineListener line(4, kToken);
  ASSERT_FALSE(line.address().hosts.empty());
  EXPECT_EQ(line.address().hosts.back(), "127.0.0.1");  // the host's own addresses first
  std::string payload(3 << 20, 'x');                    // larger than a socket buffer: sent in many pieces
  payload.front() = '{';
  payload.back() = '}';
  std::optional<int> released;
  std::thread rank2([&] {
    auto fd = send_over_line(line.address(), 2, payload, Deadline(Seconds(10)));
    ASSERT_TRUE(fd);
    released = wait_for_release(*fd, Deadline(Seconds(10)));
  });
  const auto got = receive(line, 2);
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, payload);
  EXPECT_EQ(line.arrivals(), std::vector<int>{2});
  // The gather goes on polling for the other ranks: a connection whose results are in is not read
  // again (its header went with them; reading the length from it again read past the string).
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(line.heard_from().empty());
  line.release(2);
  rank2.join();
  EXPECT_EQ(released, 2);
}

TEST(Line, AStrangersConnectionIsClosedUnreadAndTheRankStillGetsThrough) {
  LineListener line(4, kToken);
  // The wrong token, a rank outside the job, a length past the cap: each closed after its header.
  std::vector<Fd> strangers;
  strangers.push_back(raw_send(line.address(), raw_header("ffffffffffffffffffffffffffffffff", 1, 2) + "{}"));
  strangers.push_back(raw_send(line.address(), raw_header(kToken, 4, 2) + "{}"));
  strangers.push_back(raw_send(line.address(), raw_header(kToken, 1, kLineMaxPayload + 1)));
  for (int i = 0; i < 200; ++i) {
    line.heard_from();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_FALSE(line.try_receive(1));
  EXPECT_TRUE(line.arrivals().empty());
  for (const Fd& fd : strangers) {  // closed by the listener: end of file, or a reset where bytes were left unread
    char byte = 0;
    EXPECT_LE(::recv(fd.get(), &byte, 1, 0), 0);
  }
  std::thread rank1([&] { EXPECT_TRUE(send_over_line(line.address(), 1, "{}", Deadline(Seconds(10)))); });
  EXPECT_EQ(receive(line, 1), "{}");
  rank1.join();
}

TEST(Line, RankZeroHoldsAtMostAConnectionPerRankAndSixteenMore) {
  // What the line may cost rank 0 in descriptors is bounded: a connection past the world's size
  // and 16 more is closed as it is accepted (LineListener::accept_new), whoever opened it.
  LineListener line(2, kToken);
  std::vector<Fd> silent;
  for (int i = 0; i < 30; ++i) {
    silent.push_back(raw_send(line.address(), ""));
    for (int poll = 0; poll < 5; ++poll) line.heard_from();
  }
  int closed = 0;
  for (const Fd& fd : silent) {
    char byte = 0;
    if (::recv(fd.get(), &byte, 1, MSG_DONTWAIT) == 0) ++closed;
  }
  EXPECT_EQ(closed, 30 - (2 + 16));
}

TEST(Line, TheGatherOverTheLineNamesTheRankThatNeverCame) {
  LineListener line(3, kToken);
  std::thread rank1([&] {
    auto fd = send_over_line(line.address(), 1, "one", Deadline(Seconds(10)));
    EXPECT_TRUE(fd);
    if (fd) wait_for_release(*fd, Deadline(Seconds(10)));
  });
  GatherLimits limits;
  limits.silence = Seconds(0.5);
  limits.overall = Seconds(30);
  const Gathered got = gather_at_root(line, 3, "zero", limits);
  line.release(3);
  rank1.join();
  EXPECT_EQ(got.payloads[1], "one");
  EXPECT_EQ(got.missing(), std::vector<int>{2});
}

TEST(Line, NoListenerNoSend) {
  // Nobody listens on the address: nullopt by the deadline, no hang.
  LineAddress nowhere;
  {
    LineListener closed(2, kToken);
    nowhere = closed.address();
  }
  nowhere.hosts = {"127.0.0.1"};
  EXPECT_FALSE(send_over_line(nowhere, 1, "{}", Deadline(Seconds(5))));
}

}  // namespace
}  // namespace ibgpu
