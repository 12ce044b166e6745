#pragma once
// Rank 0 reads every rank's results (the text run_round sends: to_json(RankResult), dumped)
// straight into a RankResult from the JSON parser's events, with no JSON document per payload.
// At 4,096 hosts x 8 ranks a document per payload, converted afterwards by the from_json
// functions (reports/json.h), took most of rank 0's assemble: millions of small allocations
// built and freed again (issue 39). Only the parts kept as JSON are built as JSON: a result's
// params and the host inventory (then converted by from_json, one per host).
//
// It reads what rank_result_from_json reads, in any member order, unknown members passed over;
// text that is not JSON throws the JSON parser's own error (as json::parse does), and JSON that
// is not a rank's results throws std::runtime_error naming the place ("at /probes/3/status:
// expected a string, found number").
#include <string_view>

#include "app/pipeline.h"

namespace ibgpu {

// Reads into `out`, setting all of it: rank 0 reads the payloads in turn into one RankResult, and
// its list of results keeps its room from one to the next.
void read_rank_payload(std::string_view text, RankResult& out);
inline RankResult read_rank_payload(std::string_view text) {
  RankResult out;
  read_rank_payload(text, out);
  return out;
}

}  // namespace ibgpu
