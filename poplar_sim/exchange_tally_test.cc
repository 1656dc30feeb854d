#include "poplar_sim/exchange_tally.h"

#include "gtest/gtest.h"

namespace poplar_sim {
namespace internal {
namespace {

Target TwoIpus() {
  absl::StatusOr<Target> t = Target::createIPUTarget(2, "ipu2");
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

TEST(ExchangeTallyTest, BusiestTileBoundsTheCycles) {
  const Target t = TwoIpus();
  ExchangeTally x(t);
  EXPECT_FALSE(x.any());
  x.move(0, 1, 100);
  x.move(0, 2, 100);
  x.move(3, 3, 1000);  // local: no exchange
  x.move(4, 5, 0);     // nothing
  EXPECT_TRUE(x.any());
  EXPECT_EQ(x.sent(0), 200u);
  EXPECT_EQ(x.received(1), 100u);
  EXPECT_EQ(x.sent(3), 0u);
  StepCost c;
  x.addTo(c);
  const uint64_t bpc = t.getExchangeBytesPerCycle();
  EXPECT_EQ(c.exchangeCycles, (200 + bpc - 1) / bpc);
  EXPECT_EQ(c.exchangeBytes, 200u);
  EXPECT_EQ(c.interIpuBytes, 0u);
  EXPECT_EQ(c.interIpuCycles, 0u);
}

TEST(ExchangeTallyTest, MulticastSenderIsBusyForItsLargestDestination) {
  const Target t = TwoIpus();
  ExchangeTally x(t);
  x.reset(/*multicast=*/true);
  x.move(0, 1, 64);
  x.move(0, 2, 64);
  x.move(0, 2, 32);
  EXPECT_EQ(x.sent(0), 96u);
  EXPECT_EQ(x.received(2), 96u);
}

TEST(ExchangeTallyTest, BytesBetweenIpusCrossTheLink) {
  const Target t = TwoIpus();
  ExchangeTally x(t);
  const unsigned other = t.getTilesPerIPU();  // tile 0 of IPU 1
  x.move(0, other, 4096);
  StepCost c;
  x.addTo(c);
  EXPECT_EQ(c.interIpuBytes, 4096u);
  EXPECT_EQ(c.exchangeBytes, 0u);
  EXPECT_EQ(c.interIpuCycles, t.ipuLinkTransferCycles(4096, 1));
}

TEST(ExchangeTallyTest, ResetForgetsThePreviousPhase) {
  const Target t = TwoIpus();
  ExchangeTally x(t);
  x.move(7, 9, 500);
  x.move(0, t.getTilesPerIPU(), 10);
  x.reset();
  EXPECT_FALSE(x.any());
  EXPECT_EQ(x.sent(7), 0u);
  EXPECT_EQ(x.received(9), 0u);
  x.move(1, 2, 8);
  StepCost c;
  x.addTo(c);
  const uint64_t bpc = t.getExchangeBytesPerCycle();
  EXPECT_EQ(c.exchangeCycles, (8 + bpc - 1) / bpc);
  EXPECT_EQ(c.exchangeBytes, 8u);
  EXPECT_EQ(c.interIpuBytes, 0u);
  EXPECT_EQ(c.interIpuCycles, 0u);
}

}  // namespace
}  // namespace internal
}  // namespace poplar_sim
