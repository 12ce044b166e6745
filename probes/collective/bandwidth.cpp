#include "probes/collective/bandwidth.h"

#include <stdexcept>
#include <string>

#include "core/units.h"

namespace ibgpu {

double busbw_factor(Collective collective, int nranks) {
  if (nranks < 1) throw std::invalid_argument("busbw_factor: nranks must be at least 1, got " + std::to_string(nranks));
  const double n = nranks;
  switch (collective) {
    case Collective::all_reduce:
      return 2 * (n - 1) / n;
    case Collective::reduce_scatter:
    case Collective::all_gather:
    case Collective::all_to_all:
      return (n - 1) / n;
    case Collective::broadcast:
    case Collective::reduce:
    case Collective::send_recv:
      return 1;
  }
  return 1;
}

double algbw_GBps(double bytes, double seconds) { return gbytes_per_s(bytes, seconds); }

double busbw_GBps(Collective collective, double bytes, double seconds, int nranks) {
  return algbw_GBps(bytes, seconds) * busbw_factor(collective, nranks);
}

RankTimes aggregate_rank_times(const std::vector<double>& seconds_by_rank) {
  if (seconds_by_rank.empty()) throw std::invalid_argument("aggregate_rank_times: no ranks");
  RankTimes t;
  t.min_s = t.max_s = seconds_by_rank.front();
  double sum = 0;
  for (std::size_t r = 0; r < seconds_by_rank.size(); ++r) {
    const double s = seconds_by_rank[r];
    sum += s;
    if (s < t.min_s) t.min_s = s;
    if (s > t.max_s) {
      t.max_s = s;
      t.slowest_rank = static_cast<int>(r);
    }
  }
  t.avg_s = sum / static_cast<double>(seconds_by_rank.size());
  return t;
}

}  // namespace ibgpu
