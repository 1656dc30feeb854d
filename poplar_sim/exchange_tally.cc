#include "poplar_sim/exchange_tally.h"

#include <algorithm>

#include "poplar_sim/ipu_link_topology.h"

namespace poplar_sim {
namespace internal {

ExchangeTally::ExchangeTally(const Target& t)
    : target_(t),
      send_(t.getNumTiles(), 0),
      recv_(t.getNumTiles(), 0),
      touchedFlag_(t.getNumTiles(), 0) {}

void ExchangeTally::reset(bool multicast) {
  for (const unsigned tile : touched_) {
    send_[tile] = recv_[tile] = 0;
    touchedFlag_[tile] = 0;
  }
  touched_.clear();
  multicast_ = multicast;
  multicastBytes_.clear();
  pairBytes_.clear();
  onChipBytes_ = interIpuBytes_ = 0;
}

void ExchangeTally::move(unsigned from, unsigned to, uint64_t bytes) {
  if (from == to || bytes == 0) return;
  touch(from);
  touch(to);
  if (multicast_) {
    uint64_t& toOne = multicastBytes_[{from, to}];
    toOne += bytes;
    send_[from] = std::max(send_[from], toOne);
  } else {
    send_[from] += bytes;
  }
  recv_[to] += bytes;
  const unsigned a = target_.tileToIPU(from), b = target_.tileToIPU(to);
  if (a != b) {
    pairBytes_[{a, b}] += bytes;
    interIpuBytes_ += bytes;
  } else {
    onChipBytes_ += bytes;
  }
}

void ExchangeTally::addTo(StepCost& c) const {
  uint64_t busiest = 0;
  for (const unsigned tile : touched_) busiest = std::max({busiest, send_[tile], recv_[tile]});
  c.exchangeCycles += (busiest + target_.getExchangeBytesPerCycle() - 1) /
                      target_.getExchangeBytesPerCycle();
  uint64_t link = 0;
  for (const auto& [pair, bytes] : pairBytes_) {
    link = std::max(link, target_.ipuLinkTransferCycles(
                              bytes, ipuLinkHops(pair.first, pair.second)));
  }
  c.interIpuCycles += link;
  c.exchangeBytes += onChipBytes_;
  c.interIpuBytes += interIpuBytes_;
}

}  // namespace internal
}  // namespace poplar_sim
