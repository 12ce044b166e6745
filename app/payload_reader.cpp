#include "app/payload_reader.h"

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "reports/json.h"

namespace ibgpu {
namespace {

using nlohmann::json;

// The container the next value goes into: the payload, its results and their parts.
enum class In { start, payload, results, result, scope, hosts, ranks, devices, metrics, stats };

// A member the reader knows, of the payload, a result, a scope or a metric's summary; any other
// is passed over.
enum class Member {
  other,
  rank,
  host,
  inventory,
  probes,
  id,
  status,
  scope,
  params,
  metrics,
  reason,
  error,
  skipped_by,
  time,
  cuda_visible_devices,
  hosts,
  ranks,
  devices,
  stat
};

struct Known {
  const char* name;
  Member member;
};
// The payload's members, the first kRequiredPayload of them required.
constexpr std::array<Known, 5> kPayloadMembers{{{"rank", Member::rank},
                                                {"host", Member::host},
                                                {"inventory", Member::inventory},
                                                {"probes", Member::probes},
                                                {"cuda_visible_devices", Member::cuda_visible_devices}}};
constexpr std::size_t kRequiredPayload = 4;
constexpr std::array<Known, 9> kResultMembers{{{"id", Member::id},
                                               {"status", Member::status},
                                               {"scope", Member::scope},
                                               {"params", Member::params},
                                               {"metrics", Member::metrics},
                                               {"reason", Member::reason},
                                               {"error", Member::error},
                                               {"skipped_by", Member::skipped_by},
                                               {"time", Member::time}}};
constexpr std::array<Known, 3> kScopeMembers{
    {{"hosts", Member::hosts}, {"ranks", Member::ranks}, {"devices", Member::devices}}};
// A summary's members (reports/json.cpp, Stats), each required: the count, then the numbers.
constexpr std::array<const char*, 9> kStatNames{"n", "min", "p50", "p90", "p99", "p999", "max", "mean", "stddev"};
constexpr std::array<double Stats::*, 8> kStatNumbers{&Stats::min,  &Stats::p50, &Stats::p90,  &Stats::p99,
                                                      &Stats::p999, &Stats::max, &Stats::mean, &Stats::stddev};

const char* name_of(Member member) {
  for (const auto& known : kPayloadMembers)
    if (known.member == member) return known.name;
  for (const auto& known : kResultMembers)
    if (known.member == member) return known.name;
  for (const auto& known : kScopeMembers)
    if (known.member == member) return known.name;
  return "?";
}

// One scalar as the parser hands it over.
struct Scalar {
  json::value_t type = json::value_t::null;
  bool boolean = false;
  std::int64_t integer = 0;           // number_integer
  std::uint64_t unsigned_number = 0;  // number_unsigned
  double number = 0;                  // any number, as a double (json::get<double>)
  const std::string* text = nullptr;  // string

  bool is_number() const {
    return type == json::value_t::number_integer || type == json::value_t::number_unsigned ||
           type == json::value_t::number_float;
  }
  json value() const {
    switch (type) {
      case json::value_t::boolean:
        return boolean;
      case json::value_t::number_integer:
        return integer;
      case json::value_t::number_unsigned:
        return unsigned_number;
      case json::value_t::number_float:
        return number;
      case json::value_t::string:
        return *text;
      default:
        return nullptr;
    }
  }
};

const char* type_name(json::value_t type) {
  switch (type) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::string:
      return "a string";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    default:
      return "a number";
  }
}

// The events of nlohmann::json::sax_parse, each put where it belongs in a RankResult.
class PayloadEvents {
 public:
  explicit PayloadEvents(RankResult& out) : out_(out) {}

  bool null() { return scalar(Scalar{}); }
  bool boolean(bool b) {
    Scalar s{json::value_t::boolean};
    s.boolean = b;
    return scalar(s);
  }
  bool number_integer(json::number_integer_t v) {
    Scalar s{json::value_t::number_integer};
    s.integer = v;
    s.number = static_cast<double>(v);
    return scalar(s);
  }
  bool number_unsigned(json::number_unsigned_t v) {
    Scalar s{json::value_t::number_unsigned};
    s.unsigned_number = v;
    s.number = static_cast<double>(v);
    return scalar(s);
  }
  bool number_float(json::number_float_t v, const json::string_t&) {
    Scalar s{json::value_t::number_float};
    s.number = v;
    return scalar(s);
  }
  bool string(json::string_t& v) {
    Scalar s{json::value_t::string};
    s.text = &v;
    return scalar(s);
  }
  bool binary(json::binary_t&) { return scalar(Scalar{}); }  // never from JSON text

  bool key(json::string_t& name) {
    if (capturing()) {
      capture_key_ = name;
    } else if (in() == In::metrics) {
      metric_ = name;
    } else {
      member_ = member_of(name);
    }
    return true;
  }

  bool start_object(std::size_t) {
    if (capturing()) return open_captured(json::object());
    switch (in()) {
      case In::start:
        payload_seen_ = 0;
        return enter(In::payload);
      case In::results:
        out_.probes.emplace_back();
        result_seen_ = 0;
        return enter(In::result);
      case In::metrics:
        stats_ = Stats{};
        stats_seen_ = 0;
        return enter(In::stats);
      case In::hosts:
      case In::ranks:
      case In::devices:
        throw wrong(json::value_t::object);
      default:
        break;
    }
    switch (member_) {
      case Member::inventory:
        return start_capture(Target::inventory, json::object());
      case Member::params:
        return start_capture(Target::params, json::object());
      case Member::other:
        return start_capture(Target::nothing, json::object());
      case Member::scope:
        result().scope = Scope{};
        return enter(In::scope);
      case Member::metrics:
        result().metrics.clear();
        return enter(In::metrics);
      default:
        throw wrong(json::value_t::object);
    }
  }

  bool start_array(std::size_t) {
    if (capturing()) return open_captured(json::array());
    switch (in()) {
      case In::start:
      case In::results:
      case In::hosts:
      case In::ranks:
      case In::devices:
        throw wrong(json::value_t::array);
      case In::metrics:  // neither a number nor a summary: missing
        result().metrics[metric_] = Metric::missing();
        return start_capture(Target::nothing, json::array());
      default:
        break;
    }
    switch (member_) {
      case Member::probes:
        out_.probes.clear();
        return enter(In::results);
      case Member::hosts:
        result().scope.hosts.clear();
        return enter(In::hosts);
      case Member::ranks:
        result().scope.ranks.clear();
        return enter(In::ranks);
      case Member::devices:
        result().scope.devices.clear();
        return enter(In::devices);
      case Member::inventory:
        return start_capture(Target::inventory, json::array());
      case Member::params:
        return start_capture(Target::params, json::array());
      case Member::other:
        return start_capture(Target::nothing, json::array());
      default:
        throw wrong(json::value_t::array);
    }
  }

  bool end_object() {
    if (capturing()) return close_captured();
    switch (in()) {
      case In::payload:
        require(payload_seen_, kRequiredPayload, [](std::size_t i) { return kPayloadMembers[i].name; });
        break;
      case In::result:
        require(result_seen_, 2, [](std::size_t i) { return kResultMembers[i].name; });  // id, status
        break;
      case In::stats:
        require(stats_seen_, kStatNames.size(), [](std::size_t i) { return kStatNames[i]; });
        result().metrics[metric_] = Metric::of(stats_);
        break;
      default:
        break;
    }
    stack_.pop_back();
    return true;
  }

  bool end_array() {
    if (capturing()) return close_captured();
    stack_.pop_back();
    return true;
  }

  // As json::parse: the parser's own exception.
  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& e) {
    throw e;
  }

 private:
  // What a value built as JSON becomes once whole.
  enum class Target { none, inventory, params, nothing };

  In in() const { return stack_.empty() ? In::start : stack_.back(); }
  bool enter(In level) {
    stack_.push_back(level);
    return true;
  }
  ProbeResult& result() { return out_.probes.back(); }

  // The member `name` of the object the reader is in, marked as seen.
  Member member_of(const std::string& name) {
    auto find = [&](const auto& known, unsigned& seen) {
      for (std::size_t i = 0; i < known.size(); ++i)
        if (name == known[i].name) {
          seen |= 1u << i;
          return known[i].member;
        }
      return Member::other;
    };
    switch (in()) {
      case In::payload:
        return find(kPayloadMembers, payload_seen_);
      case In::result:
        return find(kResultMembers, result_seen_);
      case In::scope:
        return find(kScopeMembers, scope_seen_);
      case In::stats:
        for (std::size_t i = 0; i < kStatNames.size(); ++i)
          if (name == kStatNames[i]) {
            stats_seen_ |= 1u << i;
            stat_ = i;
            return Member::stat;
          }
        return Member::other;
      default:
        return Member::other;
    }
  }

  bool scalar(const Scalar& s) {
    if (capturing()) {
      add_captured(s.value());  // inside the array or object being built
      return true;
    }
    switch (in()) {
      case In::start:
      case In::results:
        throw wrong(s.type);
      case In::hosts:
        result().scope.hosts.push_back(text(s));
        return true;
      case In::devices:
        result().scope.devices.push_back(text(s));
        return true;
      case In::ranks:
        result().scope.ranks.push_back(integer<int>(s));
        return true;
      case In::metrics:  // a number is its value; a metric neither a number nor a summary is missing
        result().metrics[metric_] = s.is_number() ? Metric::of(s.number) : Metric::missing();
        return true;
      default:
        break;
    }
    switch (member_) {
      case Member::rank:
        out_.rank = integer<int>(s);
        break;
      case Member::host:
        out_.host = text(s);
        break;
      case Member::inventory:
        if (s.type == json::value_t::null) {
          out_.inventory.reset();
        } else {
          out_.inventory = s.value().get<HostInventory>();  // not an object: from_json says so
        }
        break;
      case Member::id:
        result().id = text(s);
        break;
      case Member::status:
        result().status = status(text(s));
        break;
      case Member::params:
        result().params = s.value();
        break;
      case Member::reason:
        result().reason = nullable_text(s);
        break;
      case Member::error:
        result().error = nullable_text(s);
        break;
      case Member::skipped_by:
        result().skipped_by = text(s) == "ibgpu" ? SkippedBy::ibgpu : SkippedBy::node;
        break;
      case Member::time:
        result().time = text(s);
        break;
      case Member::cuda_visible_devices:
        if (s.type == json::value_t::null)
          out_.cuda_visible_devices.reset();
        else
          out_.cuda_visible_devices = text(s);
        break;
      case Member::stat:
        if (stat_ == 0) {
          stats_.n = integer<std::size_t>(s);
        } else {
          if (!s.is_number()) throw wrong(s.type);
          stats_.*kStatNumbers[stat_ - 1] = s.number;
        }
        break;
      case Member::other:
        break;
      default:  // a member that holds an object or an array
        throw wrong(s.type);
    }
    return true;
  }

  const std::string& text(const Scalar& s) const {
    if (s.type != json::value_t::string) throw wrong(s.type);
    return *s.text;
  }
  std::optional<std::string> nullable_text(const Scalar& s) const {
    if (s.type == json::value_t::null) return std::nullopt;
    return text(s);
  }
  // An exact integer that fits T (as exact_integer in core/bounded_input.h).
  template <class T>
  T integer(const Scalar& s) const {
    if (s.type == json::value_t::number_unsigned) {
      if (s.unsigned_number <= static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
        return static_cast<T>(s.unsigned_number);
    } else if (s.type == json::value_t::number_integer) {
      if (std::is_signed_v<T> && s.integer >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
          s.integer <= static_cast<std::int64_t>(std::numeric_limits<T>::max()))
        return static_cast<T>(s.integer);
    } else {
      throw wrong(s.type);
    }
    throw std::runtime_error("at " + path(true) + ": " + s.value().dump() + " is out of range");
  }
  static ProbeStatus status(const std::string& name) {
    const auto status = probe_status_from_string(name);
    if (!status) throw std::runtime_error("unknown probe status '" + name + "'");
    return *status;
  }

  // Where the reader is, as a JSON pointer: "/probes/3/scope/ranks/1"; with the member or the
  // element the next value is, or without (the object or array itself).
  std::string path(bool with_next) const {
    std::string where;
    for (In level : stack_) {
      switch (level) {
        case In::results:
          where += "/probes";
          break;
        case In::result:
          where += "/" + std::to_string(out_.probes.size() - 1);
          break;
        case In::scope:
          where += "/scope";
          break;
        case In::hosts:
          where += "/hosts";
          break;
        case In::ranks:
          where += "/ranks";
          break;
        case In::devices:
          where += "/devices";
          break;
        case In::metrics:
          where += "/metrics";
          break;
        case In::stats:
          where += "/" + metric_;
          break;
        default:
          break;
      }
    }
    if (!with_next) return where.empty() ? "/" : where;
    switch (in()) {
      case In::results:
        return where + "/" + std::to_string(out_.probes.size());
      case In::hosts:
        return where + "/" + std::to_string(result().scope.hosts.size());
      case In::ranks:
        return where + "/" + std::to_string(result().scope.ranks.size());
      case In::devices:
        return where + "/" + std::to_string(result().scope.devices.size());
      case In::stats:
        return where + "/" + kStatNames[stat_];
      case In::payload:
      case In::result:
      case In::scope:
        return where + "/" + name_of(member_);
      default:
        return where.empty() ? "/" : where;
    }
  }
  const ProbeResult& result() const { return out_.probes.back(); }

  // What belongs where the reader is.
  const char* expected() const {
    switch (in()) {
      case In::start:
      case In::results:
        return "an object";
      case In::hosts:
      case In::devices:
        return "a string";
      case In::ranks:
        return "an integer";
      default:
        break;
    }
    switch (member_) {
      case Member::rank:
        return "an integer";
      case Member::stat:
        return stat_ == 0 ? "an integer" : "a number";
      case Member::reason:
      case Member::error:
        return "a string or null";
      case Member::scope:
      case Member::metrics:
        return "an object";
      case Member::probes:
      case Member::hosts:
      case Member::ranks:
      case Member::devices:
        return "an array";
      default:
        return "a string";
    }
  }
  // A value of the wrong type where the reader is.
  std::runtime_error wrong(json::value_t found) const {
    return std::runtime_error("at " + path(true) + ": expected " + expected() + ", found " + type_name(found));
  }
  // Every one of the first `count` members (by their bit in `seen`) was there.
  template <class NameOf>
  void require(unsigned seen, std::size_t count, NameOf member_name) const {
    for (std::size_t i = 0; i < count; ++i)
      if (!(seen & (1u << i)))
        throw std::runtime_error("at " + path(false) + ": missing member '" + member_name(i) + "'");
  }

  // A value built as JSON, as the parser's own document builder builds one.
  bool capturing() const { return capture_target_ != Target::none; }
  bool start_capture(Target target, json value) {
    capture_target_ = target;
    capture_open_.clear();
    return open_captured(std::move(value));
  }
  json& add_captured(json value) {
    if (capture_open_.empty()) return capture_ = std::move(value);
    json& parent = *capture_open_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return parent.back();
    }
    return parent[capture_key_] = std::move(value);  // a repeated member: the last one
  }
  bool open_captured(json empty) {
    json& container = add_captured(std::move(empty));
    capture_open_.push_back(&container);
    return true;
  }
  bool close_captured() {
    capture_open_.pop_back();
    if (capture_open_.empty()) finish_capture();
    return true;
  }
  void finish_capture() {
    const Target target = capture_target_;
    capture_target_ = Target::none;
    if (target == Target::params) result().params = std::move(capture_);
    if (target == Target::inventory) out_.inventory = capture_.get<HostInventory>();  // reports/json.cpp
    capture_ = nullptr;
  }

  RankResult& out_;
  std::vector<In> stack_;
  Member member_ = Member::other;  // of the object the reader is in, the one whose value comes next
  unsigned payload_seen_ = 0, result_seen_ = 0, scope_seen_ = 0, stats_seen_ = 0;  // members seen, by bit
  std::string metric_;                                                             // the metric being read
  Stats stats_;
  std::size_t stat_ = 0;  // the summary's member being read (kStatNames)

  Target capture_target_ = Target::none;
  json capture_;
  std::vector<json*> capture_open_;  // the arrays and objects being filled, innermost last
  std::string capture_key_;
};

}  // namespace

void read_rank_payload(std::string_view text, RankResult& out) {
  out.rank = 0;
  out.host.clear();
  out.inventory.reset();
  out.probes.clear();
  out.cuda_visible_devices.reset();
  PayloadEvents events(out);
  json::sax_parse(text.begin(), text.end(), &events);
}

}  // namespace ibgpu
