// keras::utils::Progbar: the progress bar fit, evaluate and predict print,
// byte for byte as Keras 2.6's (counting steps).
//
//   auto bar = keras::utils::MakeStdoutProgbar(/*target=*/937, /*verbose=*/1);
//   for (int64_t step = 1; step <= 937; ++step) {
//     ...
//     bar->update(step, {{"loss", loss}, {"accuracy", accuracy}});
//   }
//   // 937/937 [==============================] - 2s 3ms/step - loss: 0.3412 - accuracy: 0.8968
//
// Every value is shown as given, not averaged: the engine hands the bar the
// running epoch metrics, which are averages already (in Keras every model
// metric, the loss included, is a "stateful metric" of the bar).
//
// verbose=1 draws the bar on each update. On a terminal (dynamic display)
// the new bar overwrites the old one: as many backspaces as the previous
// bar's width, then a carriage return, then the bar, padded with spaces when
// shorter than the previous one. Elsewhere each drawn bar is a line of its
// own (Keras 2.6 began each with a newline instead, which leaves a blank
// line before the first; fit draws only the final bar there). A bar that is not final ends with the estimated
// time left (" - ETA: 4s"); the final one ends with the elapsed time and the
// time per step (" - 2s 3ms/step") and a newline. Updates closer than
// `interval` seconds to the last drawn one are not drawn, unless final.
//
// verbose=2 prints one line when finalized: "937/937 - 2s - loss: 0.3412".
// verbose=0 prints nothing.
//
// The time per step leaves out the first step (compilation, warm-up) when
// the bar was drawn at step 1: (now - time of step 1) / (current - 1).
// Otherwise it is (now - start) / current.
#ifndef TENSORFLOW_IPU_KERAS_UTILS_PROGBAR_H_
#define TENSORFLOW_IPU_KERAS_UTILS_PROGBAR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace tensorflow_ipu {
namespace keras {
namespace utils {

class Progbar {
 public:
  // Seconds since any fixed origin; injected so tests are deterministic.
  using Clock = std::function<double()>;
  // A target of kUnknownTarget draws "      5/Unknown" instead of a bar.
  static constexpr int64_t kUnknownTarget = -1;

  // The steady clock, in seconds.
  static double SteadyClockSeconds();

  // `out` (std::cout when null) must outlive the bar. The start time is
  // read from `clock` here.
  Progbar(int64_t target, int width = 30, int verbose = 1,
          double interval = 0.05, std::ostream* out = nullptr,
          bool dynamic_display = false, Clock clock = &SteadyClockSeconds);

  // Records `values` (name, value), shown in order of first appearance,
  // and draws the bar at step `current`. `finalize` defaults to
  // "current >= target" (false while the target is unknown).
  void update(int64_t current,
              const std::vector<std::pair<std::string, double>>& values = {},
              std::optional<bool> finalize = std::nullopt);
  // update(seen_so_far() + n, values).
  void add(int64_t n,
           const std::vector<std::pair<std::string, double>>& values = {});

  // Text drawn right after the time per step of the final bar, e.g.
  // " (IPU 224us/step)": the simulated device time beside the host's.
  void set_step_time_note(std::string note) { step_time_note_ = std::move(note); }
  int64_t target() const { return target_; }
  // The engine learns an unknown target at the end of the first epoch and
  // sets it before the final update, as Keras's ProgbarLogger does.
  void set_target(int64_t target) { target_ = target; }
  int64_t seen_so_far() const { return seen_so_far_; }

 private:
  double EstimateStepDuration(int64_t current, double now);
  void DrawVerbose1(int64_t current, bool finalize, double now);
  void PrintSummaryLine(int64_t current, double now);

  int64_t target_;
  int width_;
  int verbose_;
  double interval_;
  std::ostream* out_;
  bool dynamic_display_;
  Clock clock_;

  double start_;
  // Unset until the first update: Keras's "last update at the epoch" is
  // always more than `interval` ago, so the first update is always drawn.
  std::optional<double> last_update_;
  std::optional<double> time_after_first_step_;
  size_t total_width_ = 0;
  std::string step_time_note_;
  int64_t seen_so_far_ = 0;
  std::vector<std::pair<std::string, double>> values_;
};

// The bar of fit, evaluate and predict: on std::cout, redrawn in place when
// standard output is a terminal, timed by the steady clock.
// A time per step as the bar prints it: "3ms/step", "224us/step", "2s/step".
std::string FormatStepTime(double seconds);

std::unique_ptr<Progbar> MakeStdoutProgbar(int64_t target, int verbose);

}  // namespace utils
}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_UTILS_PROGBAR_H_
