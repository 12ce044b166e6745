#include "cluster/line.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>

#include "cluster/kept_memory.h"
#include "cluster/world.h"
#include "core/errors.h"

namespace ibgpu {

namespace {

// The header every connection starts with: magic, token, rank, payload length (network order).
constexpr std::array<char, 8> kMagic{'I', 'B', 'G', 'P', 'U', 'L', 'N', '1'};
constexpr std::size_t kTokenLength = 32;
constexpr std::size_t kHeaderLength = kMagic.size() + kTokenLength + 4 + 8;
// How long one address may take to accept a connection before the next is tried.
constexpr Seconds kConnectTry{3};

std::string errno_text() { return std::strerror(errno); }

void put_u32(std::string& out, std::uint32_t value) {
  const std::uint32_t net = htonl(value);
  out.append(reinterpret_cast<const char*>(&net), sizeof net);
}

std::uint32_t get_u32(const char* in) {
  std::uint32_t net = 0;
  std::memcpy(&net, in, sizeof net);
  return ntohl(net);
}

// The payload length a whole header announces (its last 8 bytes).
std::uint64_t announced_length(const std::string& header) {
  return (static_cast<std::uint64_t>(get_u32(header.data() + kHeaderLength - 8)) << 32) |
         get_u32(header.data() + kHeaderLength - 4);
}

std::string header(const std::string& token, int rank, std::size_t length) {
  std::string out(kMagic.data(), kMagic.size());
  out += token;
  put_u32(out, static_cast<std::uint32_t>(rank));
  put_u32(out, static_cast<std::uint32_t>(static_cast<std::uint64_t>(length) >> 32));
  put_u32(out, static_cast<std::uint32_t>(length & 0xffffffffu));
  return out;
}

std::string random_token() {
  std::random_device random;
  std::string token;
  while (token.size() < kTokenLength) {
    char hex[9];
    std::snprintf(hex, sizeof hex, "%08x", random());
    token += hex;
  }
  return token.substr(0, kTokenLength);
}

// The host's IPv4 addresses that are up: the others first, loopback last (ranks on this host).
std::vector<std::string> own_addresses() {
  std::vector<std::string> out, loopback;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) == 0) {
    for (const ifaddrs* a = list; a; a = a->ifa_next) {
      if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || !(a->ifa_flags & IFF_UP)) continue;
      char text[INET_ADDRSTRLEN] = {};
      const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
      if (!inet_ntop(AF_INET, &in->sin_addr, text, sizeof text)) continue;
      ((a->ifa_flags & IFF_LOOPBACK) ? loopback : out).emplace_back(text);
    }
    freeifaddrs(list);
  }
  if (loopback.empty()) loopback.emplace_back("127.0.0.1");
  out.insert(out.end(), loopback.begin(), loopback.end());
  return out;
}

// Waits until `fd` is ready for `events`, at most `limit`; false on timeout or error.
bool ready(int fd, short events, Seconds limit) {
  pollfd p{fd, events, 0};
  const int ms = static_cast<int>(std::clamp(limit.count() * 1000, 0.0, 1e9));
  return ::poll(&p, 1, ms) > 0 && (p.revents & events);
}

std::optional<Fd> connect_to(const std::string& host, int port, const Deadline& deadline) {
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<std::uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &to.sin_addr) != 1) return std::nullopt;
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd) return std::nullopt;
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
    if (errno != EINPROGRESS || !ready(fd.get(), POLLOUT, std::min(deadline.remaining(), kConnectTry)))
      return std::nullopt;
    int error = 0;
    socklen_t length = sizeof error;
    if (::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &error, &length) != 0 || error != 0) return std::nullopt;
  }
  return fd;
}

bool send_all(int fd, const std::string& bytes, const Deadline& deadline) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
    if (deadline.expired()) return false;
    ready(fd, POLLOUT, std::min(deadline.remaining(), Seconds(0.1)));
  }
  return true;
}

struct LineState {
  bool attempted = false, open = false;
  LineAddress address;
  std::unique_ptr<LineListener> listener;
  std::optional<Fd> to_root;  // a rank's connection, open for the release
};

LineState& line_state() {
  static LineState state;
  return state;
}

}  // namespace

std::string LineAddress::to_text() const {
  std::string text = "ibgpu-line " + token + " " + std::to_string(port);
  for (const auto& h : hosts) text += " " + h;
  return text;
}

std::optional<LineAddress> LineAddress::from_text(const std::string& text) {
  std::istringstream in(text);
  std::string word;
  LineAddress a;
  if (!(in >> word) || word != "ibgpu-line" || !(in >> a.token >> a.port)) return std::nullopt;
  if (a.token.size() != kTokenLength || a.port <= 0 || a.port > 65535) return std::nullopt;
  while (in >> word) a.hosts.push_back(word);
  if (a.hosts.empty()) return std::nullopt;
  return a;
}

LineListener::LineListener(int world_size, std::string token) : world_size_(world_size) {
  listener_ = Fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!listener_) throw CallError("socket", errno_text());
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  if (::bind(listener_.get(), reinterpret_cast<const sockaddr*>(&any), sizeof any) != 0)
    throw CallError("bind", errno_text());
  if (::listen(listener_.get(), std::min(world_size, 4096)) != 0) throw CallError("listen", errno_text());
  sockaddr_in bound{};
  socklen_t length = sizeof bound;
  if (::getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&bound), &length) != 0)
    throw CallError("getsockname", errno_text());
  address_.port = ntohs(bound.sin_port);
  address_.token = std::move(token);
  address_.hosts = own_addresses();
}

void LineListener::accept_new() {
  while (true) {
    Fd fd(::accept4(listener_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!fd) return;
    // At most one connection per rank, and a few more that have not said who they are yet.
    if (connections_.size() >= static_cast<std::size_t>(world_size_) + 16) continue;
    connections_.push_back(Connection{std::move(fd), {}, -1, false});
  }
}

bool LineListener::read_from(Connection& c, std::vector<int>& heard) {
  std::array<char, 65536> chunk;
  while (true) {
    // Its results are in (and its header gone with them): anything more is not read.
    if (c.complete) return true;
    // Never more than the header and the length it announced.
    std::size_t want = chunk.size();
    if (c.rank >= 0) {
      want = std::min<std::size_t>(want, kHeaderLength + announced_length(c.in) - c.in.size());
      if (want == 0) {
        arrived_[c.rank] = c.in.substr(kHeaderLength);
        c.in.clear();
        c.in.shrink_to_fit();
        c.complete = true;
        return true;
      }
    } else {
      want = kHeaderLength - c.in.size();
    }
    const ssize_t n = ::recv(c.fd.get(), chunk.data(), want, 0);
    if (n == 0) return c.complete;
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    c.in.append(chunk.data(), static_cast<std::size_t>(n));
    if (c.rank < 0 && c.in.size() == kHeaderLength) {
      const bool magic = std::equal(kMagic.begin(), kMagic.end(), c.in.begin());
      const bool token = c.in.compare(kMagic.size(), kTokenLength, address_.token) == 0;
      const auto rank = static_cast<std::int64_t>(get_u32(c.in.data() + kMagic.size() + kTokenLength));
      if (!magic || !token || rank <= 0 || rank >= world_size_ || announced_length(c.in) > kLineMaxPayload ||
          taken_.contains(static_cast<int>(rank)))
        return false;
      c.rank = static_cast<int>(rank);
      taken_.insert(c.rank);
    }
    if (c.rank >= 0) heard.push_back(c.rank);
  }
}

std::vector<int> LineListener::heard_from() {
  accept_new();
  std::vector<int> heard;
  for (auto& c : connections_)
    if (c.fd && !read_from(c, heard)) {
      if (c.rank >= 0 && !c.complete) taken_.erase(c.rank);  // it may try again
      c.fd.reset();
    }
  std::erase_if(connections_, [](const Connection& c) { return !c.fd; });
  std::sort(heard.begin(), heard.end());
  heard.erase(std::unique(heard.begin(), heard.end()), heard.end());
  return heard;
}

std::optional<std::string> LineListener::try_receive(int source) {
  const auto it = arrived_.find(source);
  if (it == arrived_.end()) return std::nullopt;
  std::string text = std::move(it->second);
  arrived_.erase(it);
  received_.push_back(source);
  return text;
}

std::vector<int> LineListener::arrivals() const {
  std::vector<int> ranks = received_;
  for (const auto& [rank, text] : arrived_) ranks.push_back(rank);
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}

void LineListener::release(int exit_code) {
  std::string code;
  put_u32(code, static_cast<std::uint32_t>(exit_code));
  for (auto& c : connections_)
    if (c.fd && c.complete) send_all(c.fd.get(), code, Deadline(Seconds(1)));
  connections_.clear();
}

std::optional<Fd> send_over_line(const LineAddress& to, int rank, const std::string& payload,
                                 const Deadline& deadline) {
  if (payload.size() > kLineMaxPayload) return std::nullopt;
  for (const auto& host : to.hosts) {
    if (deadline.expired()) break;
    auto fd = connect_to(host, to.port, deadline);
    if (!fd) continue;
    if (send_all(fd->get(), header(to.token, rank, payload.size()), deadline) && send_all(fd->get(), payload, deadline))
      return fd;
  }
  return std::nullopt;
}

std::optional<int> wait_for_release(const Fd& line, const Deadline& deadline) {
  std::string in;
  while (in.size() < 4 && !deadline.expired()) {
    if (!ready(line.get(), POLLIN, std::min(deadline.remaining(), Seconds(0.1)))) continue;
    char byte[4];
    const ssize_t n = ::recv(line.get(), byte, 4 - in.size(), 0);
    if (n == 0) return std::nullopt;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return std::nullopt;
    if (n > 0) in.append(byte, static_cast<std::size_t>(n));
  }
  if (in.size() < 4) return std::nullopt;
  return static_cast<int>(get_u32(in.data()));
}

bool ends_over_line() {
  const LineState& s = line_state();
  return s.listener && (mpi_lost() || !s.listener->arrivals().empty());
}

void open_line(MPI_Comm comm, int rank, int size, Seconds timeout) {
  LineState& s = line_state();
  if (s.attempted) return;
  s.attempted = true;
  constexpr std::size_t kTextLength = 1024;
  TransferMemory<std::array<char, kTextLength>> text(std::array<char, kTextLength>{});
  if (rank == 0) {
    try {
      s.listener = std::make_unique<LineListener>(size, random_token());
      // Only as many addresses as fit: the host's own come first.
      LineAddress a = s.listener->address();
      while (a.to_text().size() >= kTextLength && a.hosts.size() > 1) a.hosts.erase(a.hosts.begin());
      const std::string t = a.to_text();
      if (t.size() < kTextLength) std::memcpy(text->data(), t.data(), t.size());
    } catch (const CallError&) {
      s.listener.reset();  // no line: nothing that needs one runs
    }
  }
  MPI_Request request = MPI_REQUEST_NULL;
  mpi_check(MPI_Ibcast(text->data(), static_cast<int>(kTextLength), MPI_CHAR, 0, comm, &request), "MPI_Ibcast");
  if (!wait_with_deadline(request, Deadline(timeout))) {
    text.abandon();
    return;
  }
  const auto address = LineAddress::from_text(std::string(text->data(), strnlen(text->data(), kTextLength)));
  s.open = address.has_value();
  if (address) s.address = *address;
}

bool line_open() { return line_state().open; }
LineListener* line_listener() { return line_state().listener.get(); }

bool send_results_over_line(int rank, const std::string& payload, const Deadline& deadline) {
  LineState& s = line_state();
  if (!s.open) return false;
  s.to_root = send_over_line(s.address, rank, payload, deadline);
  return s.to_root.has_value();
}

std::optional<int> wait_for_release_over_line(const Deadline& deadline) {
  const LineState& s = line_state();
  if (!s.to_root) return std::nullopt;
  return wait_for_release(*s.to_root, deadline);
}

}  // namespace ibgpu
