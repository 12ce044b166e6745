#pragma once
// What one judged number is, the same for every entity of the fleet: the probe kind, the
// message size, the shape of an all-reduce or a direction, and the metric. Its text keys the
// fleet's medians, a baseline's figures and burn-in's: "net.verbs.write_bw@8388608:bw_avg_GBps",
// "allreduce.nccl@1073741824/out_of_place/2hosts/16ranks:busbw_GBps". The text is built only
// here and never read back: code reads the parts.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ibgpu {

class FigureKey {
 public:
  FigureKey() = default;
  // `shape`: what else groups the figure, as its text says it ("/out_of_place/2hosts/16ranks",
  // "/bidirectional"); empty for most.
  FigureKey(std::string_view probe, std::optional<std::uint64_t> size, std::string_view shape, std::string_view metric);

  const std::string& text() const { return text_; }
  std::string_view probe() const { return std::string_view(text_).substr(0, probe_end_); }
  std::optional<std::uint64_t> size() const { return size_; }
  std::string_view metric() const { return std::string_view(text_).substr(metric_at_); }

  bool operator==(const FigureKey& o) const { return text_ == o.text_; }
  bool operator<(const FigureKey& o) const { return text_ < o.text_; }

 private:
  std::string text_;
  std::uint32_t probe_end_ = 0, metric_at_ = 0;
  std::optional<std::uint64_t> size_;
};

}  // namespace ibgpu
