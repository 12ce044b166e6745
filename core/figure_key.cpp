#include "core/figure_key.h"

namespace ibgpu {

FigureKey::FigureKey(std::string_view probe, std::optional<std::uint64_t> size, std::string_view shape,
                     std::string_view metric)
    : size_(size) {
  // Built in one string: a fleet has a million measurements.
  text_.reserve(probe.size() + 21 + shape.size() + 1 + metric.size());
  text_.append(probe);
  probe_end_ = static_cast<std::uint32_t>(text_.size());
  if (size) text_.append(1, '@').append(std::to_string(*size));
  text_.append(shape).append(1, ':');
  metric_at_ = static_cast<std::uint32_t>(text_.size());
  text_.append(metric);
}

}  // namespace ibgpu
