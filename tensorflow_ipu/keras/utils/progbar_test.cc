#include "tensorflow_ipu/keras/utils/progbar.h"

#include <cmath>
#include <sstream>
#include <string>

#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace keras {
namespace utils {
namespace {

// A bar on a string stream, timed by a clock the test moves.
struct Fixture {
  explicit Fixture(int64_t target, int verbose = 1, bool terminal = true)
      : bar(target, 30, verbose, 0.05, &out, terminal, [this] { return now; }) {}
  double now = 0;
  std::ostringstream out;
  Progbar bar;
};

// Erases a drawn bar of `width` characters on a terminal.
std::string Erase(size_t width) { return std::string(width, '\b') + "\r"; }

TEST(ProgbarTest, TerminalRedrawsInPlaceAndSkipsUpdatesWithinInterval) {
  Fixture f(10);
  f.now = 0.5;
  f.bar.update(1, {{"loss", 12.5}, {"accuracy", 0.5}});
  const std::string first =
      " 1/10 [==>...........................] - ETA: 4s - loss: 12.5000"
      " - accuracy: 0.5000";
  // 0.02 s after the last drawn bar: not drawn.
  f.now = 0.52;
  f.bar.update(2, {{"loss", 9.0}});
  f.now = 1.5;
  f.bar.update(5, {{"loss", 0.5}, {"accuracy", 0.75}});
  // One character shorter than the first: a space blanks the rest.
  const std::string second =
      " 5/10 [==============>...............] - ETA: 1s - loss: 0.5000"
      " - accuracy: 0.7500 ";
  f.now = 2.6;
  f.bar.update(10, {{"loss", 0.3}, {"accuracy", 0.9}});
  // Steps 2 to 10 took 2.1 s: 233 ms each.
  const std::string last =
      "10/10 [==============================] - 3s 233ms/step - loss: 0.3000"
      " - accuracy: 0.9000\n";
  EXPECT_EQ(f.out.str(), Erase(0) + first + Erase(first.size()) + second +
                             Erase(second.size() - 1) + last);
}

// The engine's sequence at the end of an epoch: the last batch (not final,
// so an ETA of 0s), then the epoch's final update at the same instant.
TEST(ProgbarTest, EpochEndAsFitPrintsIt) {
  Fixture f(937);
  f.now = 0.05;
  f.bar.update(1, {{"loss", 2.3026}, {"accuracy", 0.1}}, false);
  const std::string first =
      "  1/937 [..............................] - ETA: 46s - loss: 2.3026"
      " - accuracy: 0.1000";
  f.now = 2.45;
  f.bar.update(937, {{"loss", 0.3412}, {"accuracy", 0.8968}}, false);
  const std::string last_batch =
      "937/937 [==============================] - ETA: 0s - loss: 0.3412"
      " - accuracy: 0.8968 ";
  f.bar.update(937, {{"loss", 0.3412}, {"accuracy", 0.8968}}, true);
  // 2.4 s for the 936 steps after the first: 2.56 ms each.
  const std::string epoch_end =
      "937/937 [==============================] - 2s 3ms/step - loss: 0.3412"
      " - accuracy: 0.8968\n";
  EXPECT_EQ(f.out.str(), Erase(0) + first + Erase(first.size()) + last_batch +
                             Erase(last_batch.size() - 1) + epoch_end);
}

TEST(ProgbarTest, MicrosecondsPerStep) {
  Fixture f(936);
  f.now = 0.2;
  f.bar.update(1, {{"loss", 2.3}, {"accuracy", 0.1}});
  // ETA 187 s is over a minute: minutes and seconds.
  const std::string first =
      "  1/936 [..............................] - ETA: 3:07 - loss: 2.3000"
      " - accuracy: 0.1000";
  f.now = 0.3262;
  f.bar.update(936, {{"loss", 0.3155}, {"accuracy", 0.9054}});
  const std::string last =
      "936/936 [==============================] - 0s 135us/step - loss: 0.3155"
      " - accuracy: 0.9054\n";
  EXPECT_EQ(f.out.str(), Erase(0) + first + Erase(first.size()) + last);
}

TEST(ProgbarTest, EtaInHoursMinutesSeconds) {
  Fixture f(10000);
  f.now = 2;
  f.bar.update(1);
  // 2 s per step, 9999 steps to go: 19998 s.
  EXPECT_EQ(f.out.str(),
            "\r    1/10000 [..............................] - ETA: 5:33:18");
}

TEST(ProgbarTest, SecondsPerStepAndZero) {
  Fixture slow(1);
  slow.now = 1.7;
  slow.bar.update(1);
  EXPECT_EQ(slow.out.str(),
            "\r1/1 [==============================] - 2s 2s/step\n");
  Fixture instant(1);
  instant.bar.update(1);
  EXPECT_EQ(instant.out.str(),
            "\r1/1 [==============================] - 0s 0s/step\n");
}

TEST(ProgbarTest, SmallValuesInScientificNotation) {
  Fixture f(1);
  f.now = 0.4;
  f.bar.update(1, {{"a", 0.0005}, {"b", 0.001}, {"c", -0.5}, {"d", NAN},
                   {"e", -0.0002}});
  EXPECT_EQ(f.out.str(),
            "\r1/1 [==============================] - 0s 400ms/step"
            " - a: 5.0000e-04 - b: 1.0000e-03 - c: -0.5000 - d: nan"
            " - e: -2.0000e-04\n");
}

// Values given with an update that is not drawn still show on the next.
TEST(ProgbarTest, ValuesKeepFirstAppearanceOrder) {
  Fixture f(10);
  f.now = 1;
  f.bar.update(1, {{"a", 1}});
  f.now = 1.01;
  f.bar.update(2, {{"b", 2}});
  f.now = 2;
  f.bar.update(3, {{"a", 3}});
  const std::string out = f.out.str();
  const std::string tail = " - a: 3.0000 - b: 2.0000";
  ASSERT_GE(out.size(), tail.size());
  EXPECT_EQ(out.substr(out.size() - tail.size()), tail);
}

TEST(ProgbarTest, UnknownTarget) {
  Fixture f(Progbar::kUnknownTarget);
  f.now = 1;
  f.bar.update(5, {{"loss", 0.25}});
  // Not final by default: no newline.
  const std::string first = "      5/Unknown - 1s 200ms/step - loss: 0.2500";
  f.now = 2;
  f.bar.update(10, {}, true);
  const std::string last = "     10/Unknown - 2s 200ms/step - loss: 0.2500\n";
  EXPECT_EQ(f.out.str(), Erase(0) + first + Erase(first.size()) + last);
}

// Not a terminal: every drawn bar starts a new line instead of erasing.
TEST(ProgbarTest, NotATerminalPrintsEachBarAsALine) {
  Fixture f(2, /*verbose=*/1, /*terminal=*/false);
  f.now = 1;
  f.bar.update(1);
  f.now = 3;
  f.bar.update(2);
  EXPECT_EQ(f.out.str(),
            "1/2 [==============>...............] - ETA: 1s\n"
            "2/2 [==============================] - 3s 2s/step\n");
}

// verbose=2: one line when final, without the bar or the time per step;
// a negative value is printed in scientific notation.
TEST(ProgbarTest, Verbose2PrintsOneLineAtTheEnd) {
  Fixture f(937, /*verbose=*/2);
  f.now = 0.05;
  f.bar.update(1, {{"loss", 2.3}});
  f.now = 1.0;
  f.bar.update(500, {{"loss", 1.0}});
  EXPECT_EQ(f.out.str(), "");
  f.now = 2.45;
  f.bar.update(937, {{"loss", 0.3412}, {"accuracy", 0.8968}, {"delta", -0.5}});
  EXPECT_EQ(f.out.str(),
            "937/937 - 2s - loss: 0.3412 - accuracy: 0.8968"
            " - delta: -5.0000e-01\n");
}

TEST(ProgbarTest, Verbose0PrintsNothing) {
  Fixture f(3, /*verbose=*/0);
  f.bar.update(1, {{"loss", 1}});
  f.bar.update(3, {{"loss", 1}});
  EXPECT_EQ(f.out.str(), "");
}

TEST(ProgbarTest, AddCountsFromSeenSoFar) {
  Fixture f(4, /*verbose=*/2);
  f.bar.add(1);
  f.bar.add(2);
  EXPECT_EQ(f.bar.seen_so_far(), 3);
  EXPECT_EQ(f.out.str(), "");
  f.bar.add(1, {{"loss", 0.5}});
  EXPECT_EQ(f.out.str(), "4/4 - 0s - loss: 0.5000\n");
}

// The engine learns an unknown target at the end of the first epoch.
TEST(ProgbarTest, TargetSetBeforeTheFinalUpdate) {
  Fixture f(Progbar::kUnknownTarget, /*verbose=*/2);
  f.bar.update(7);
  f.bar.set_target(7);
  f.now = 1;
  f.bar.update(7, {{"loss", 0.5}}, true);
  EXPECT_EQ(f.out.str(), "7/7 - 1s - loss: 0.5000\n");
}

}  // namespace
}  // namespace utils
}  // namespace keras
}  // namespace tensorflow_ipu
