#include "reports/json_writer.h"

#include <array>
#include <charconv>
#include <cmath>

namespace ibgpu {

using nlohmann::json;

namespace {

// Text dump() writes as it is: no quote, backslash, control character or byte of a multi-byte
// UTF-8 sequence (which dump() checks, and refuses when invalid).
bool needs_no_escape(std::string_view text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte >= 0x80 || c == '"' || c == '\\') return false;
  }
  return true;
}

template <class Integer>
void append_integer(std::string& out, Integer v) {
  std::array<char, 24> text{};
  const char* end = std::to_chars(text.data(), text.data() + text.size(), v).ptr;
  out.append(text.data(), static_cast<std::size_t>(end - text.data()));
}

}  // namespace

void JsonWriter::newline_indent(std::size_t level) {
  out_ += '\n';
  out_.append(2 * level, ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (open_.empty()) return;  // the document's own value
  if (!open_.back().empty) out_ += ',';
  open_.back().empty = false;
  if (indented_) newline_indent(depth_ + open_.size());
}

void JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  open_.push_back({'}', true});
}

void JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  open_.push_back({']', true});
}

void JsonWriter::end() {
  const Open closed = open_.back();
  open_.pop_back();
  if (indented_ && !closed.empty) newline_indent(depth_ + open_.size());
  out_ += closed.closing;
}

void JsonWriter::key(std::string_view name) {
  before_value();
  escaped(name);
  out_ += indented_ ? ": " : ":";
  after_key_ = true;
}

void JsonWriter::escaped(std::string_view text) {
  if (needs_no_escape(text)) {
    out_ += '"';
    out_ += text;
    out_ += '"';
  } else {
    out_ += json(std::string(text)).dump();  // dump()'s own escapes and UTF-8 check
  }
}

void JsonWriter::string(std::string_view text) {
  before_value();
  escaped(text);
}

void JsonWriter::number(double v) {
  before_value();
  if (!std::isfinite(v)) {
    out_ += "null";
    return;
  }
  // The formatting dump() itself calls (grisu2, then "%g"-like with ".0" on whole numbers).
  std::array<char, 64> text{};
  const char* end = nlohmann::detail::to_chars(text.data(), text.data() + text.size(), v);
  out_.append(text.data(), static_cast<std::size_t>(end - text.data()));
}

void JsonWriter::number(std::int64_t v) {
  before_value();
  append_integer(out_, v);
}

void JsonWriter::number(std::uint64_t v) {
  before_value();
  append_integer(out_, v);
}

void JsonWriter::boolean(bool v) {
  before_value();
  out_ += v ? "true" : "false";
}

void JsonWriter::null() {
  before_value();
  out_ += "null";
}

void JsonWriter::string_or_null(const std::optional<std::string>& text) {
  if (text)
    string(*text);
  else
    null();
}

void JsonWriter::number_or_null(const std::optional<double>& v) {
  if (v)
    number(*v);
  else
    null();
}

void JsonWriter::strings(const std::vector<std::string>& items) {
  begin_array();
  for (const auto& item : items) string(item);
  end();
}

void JsonWriter::value(const json& j) {
  switch (j.type()) {
    case json::value_t::object:
      begin_object();
      for (auto it = j.begin(); it != j.end(); ++it) {
        key(it.key());
        value(it.value());
      }
      end();
      return;
    case json::value_t::array:
      begin_array();
      for (const json& item : j) value(item);
      end();
      return;
    case json::value_t::string:
      return string(j.get_ref<const std::string&>());
    case json::value_t::boolean:
      return boolean(j.get<bool>());
    case json::value_t::number_integer:
      return number(j.get<std::int64_t>());
    case json::value_t::number_unsigned:
      return number(j.get<std::uint64_t>());
    case json::value_t::number_float:
      return number(j.get<double>());
    case json::value_t::null:
      return null();
    default: {  // binary and discarded values: never in a report; dump() knows their text
      before_value();
      const std::string text = j.dump(indented_ ? 2 : -1);
      for (const char c : text) {
        out_ += c;
        if (c == '\n') out_.append(2 * (depth_ + open_.size()), ' ');
      }
    }
  }
}

// ---- The long arrays' elements (to_json in reports/json.cpp says the same) ----

void write_json(JsonWriter& w, const ProbeResult& p) {
  w.begin_object();
  w.key("error");
  w.string_or_null(p.error);
  w.key("id");
  w.string(p.id);
  w.key("metrics");
  w.begin_object();
  for (const auto& [name, m] : p.metrics) {
    w.key(name);
    if (m.value) {
      w.number(*m.value);
    } else if (m.summary) {
      const Stats& s = *m.summary;
      w.begin_object();
      for (const auto& [stat, v] : {std::pair{"max", s.max}, {"mean", s.mean}, {"min", s.min}}) {
        w.key(stat);
        w.number(v);
      }
      w.key("n");
      w.number(static_cast<std::uint64_t>(s.n));
      for (const auto& [stat, v] :
           {std::pair{"p50", s.p50}, {"p90", s.p90}, {"p99", s.p99}, {"p999", s.p999}, {"stddev", s.stddev}}) {
        w.key(stat);
        w.number(v);
      }
      w.end();
    } else {
      w.null();
    }
  }
  w.end();
  w.key("params");
  w.value(p.params);
  w.key("reason");
  w.string_or_null(p.reason);
  w.key("scope");
  w.begin_object();
  w.key("devices");
  w.strings(p.scope.devices);
  w.key("hosts");
  w.strings(p.scope.hosts);
  w.key("ranks");
  w.begin_array();
  for (const int rank : p.scope.ranks) w.number(rank);
  w.end();
  w.end();
  if (p.status == ProbeStatus::skipped) {
    w.key("skipped_by");
    w.string(to_string(p.skipped_by));
  }
  w.key("status");
  w.string(to_string(p.status));
  if (!p.time.empty()) {
    w.key("time");
    w.string(p.time);
  }
  w.end();
}

void write_json(JsonWriter& w, const Verdict& v) {
  w.begin_object();
  w.key("action");
  if (v.action)
    w.string(to_string(*v.action));
  else
    w.null();
  w.key("entity");
  w.begin_object();
  w.key("id");
  w.string(v.entity.id());
  w.key("kind");
  w.string(to_string(v.entity.kind()));
  w.end();
  const bool node = v.entity.kind() == EntityKind::node;  // nodes list their usable and excluded GPUs and rails
  if (node) {
    w.key("excluded");
    w.strings(v.excluded);
  }
  w.key("reasons");
  w.begin_array();
  for (const Reason& r : v.reasons) {
    w.begin_object();
    w.key("code");
    w.string(to_string(r.code));
    if (r.confidence) {
      const Confidence& c = *r.confidence;
      const bool own = c.method != ConfidenceMethod::combined;  // a combination has no sigmas of its own
      w.key("confidence");
      w.begin_object();
      w.key("count");
      w.number(c.count);
      w.key("level");
      w.string(to_string(c.level));
      w.key("method");
      w.string(to_string(c.method));
      if (own) {
        w.key("noise");
        w.number(c.noise);
      }
      w.key("p");
      w.number(c.p);
      if (own) {
        w.key("sigmas");
        w.number(c.sigmas);
      }
      w.end();
    }
    w.key("evidence");
    w.string(to_string(r.evidence));
    w.key("message");
    w.string(r.message);
    w.key("metric");
    if (r.metric.empty())
      w.null();
    else
      w.string(r.metric);
    for (const auto& [name, text] : {std::pair{"peer_port", &r.peer_port}, {"port", &r.port}, {"probe", &r.probe}})
      if (!text->empty()) {
        w.key(name);
        w.string(*text);
      }
    if (r.size_B) {
      w.key("size_B");
      w.number(*r.size_B);
    }
    w.key("threshold");
    w.number_or_null(r.threshold);
    w.key("value");
    w.number_or_null(r.value);
    w.end();
  }
  w.end();
  w.key("state");
  w.string(to_string(v.state));
  if (node) {
    w.key("usable");
    w.strings(v.usable);
  }
  w.end();
}

}  // namespace ibgpu
