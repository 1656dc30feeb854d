// ExchangeTally: the bytes each tile sends and receives in one exchange
// phase of the cost model, and what that phase costs. Internal to the
// engine (cost_model.cc).
//
// One tally is reused for every compute set of a graph: a graph of 100,000
// nodes has tens of thousands of compute sets of a few tiles each on a
// target of thousands of tiles, so the counters are kept for the whole
// target and reset() clears only the tiles the last phase touched.
//
//   ExchangeTally x(target);
//   x.move(/*from=*/3, /*to=*/7, 256);
//   StepCost c;
//   x.addTo(c);   // exchange cycles of the busiest tile, bytes moved
//   x.reset();
#ifndef POPLAR_SIM_EXCHANGE_TALLY_H_
#define POPLAR_SIM_EXCHANGE_TALLY_H_

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "poplar_sim/profile.h"
#include "poplar_sim/target.h"

namespace poplar_sim {
namespace internal {

class ExchangeTally {
 public:
  explicit ExchangeTally(const Target& t);

  // Starts a new phase. `multicast`: what one tile sends is the same data
  // to every tile it sends to (a broadcast source), which the exchange
  // delivers to all of them at once, so the sender is busy for the most it
  // sends to any one tile.
  void reset(bool multicast = false);
  // `bytes` from tile `from` to tile `to` (nothing when they are the same).
  void move(unsigned from, unsigned to, uint64_t bytes);

  uint64_t received(unsigned tile) const { return recv_[tile]; }
  uint64_t sent(unsigned tile) const { return send_[tile]; }
  bool any() const { return onChipBytes_ + interIpuBytes_ > 0; }
  // Adds this phase's exchange and IPU-Link cycles and bytes to `c`.
  void addTo(StepCost& c) const;

 private:
  void touch(unsigned tile) {
    if (!touchedFlag_[tile]) {
      touchedFlag_[tile] = 1;
      touched_.push_back(tile);
    }
  }

  const Target& target_;
  bool multicast_ = false;
  std::vector<uint64_t> send_, recv_;
  std::vector<uint8_t> touchedFlag_;
  std::vector<unsigned> touched_;  // tiles with a nonzero counter
  absl::flat_hash_map<std::pair<unsigned, unsigned>, uint64_t> multicastBytes_;
  // Bytes between each pair of IPUs (few: ordered for the reader's sake).
  std::map<std::pair<unsigned, unsigned>, uint64_t> pairBytes_;
  uint64_t onChipBytes_ = 0, interIpuBytes_ = 0;
};

}  // namespace internal
}  // namespace poplar_sim

#endif  // POPLAR_SIM_EXCHANGE_TALLY_H_
