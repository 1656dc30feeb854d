#include "tensorflow_ipu/keras/utils/progbar.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tensorflow_ipu {
namespace keras {
namespace utils {
namespace {

// Digits of the target, the width of the step counter ("  5/937").
int NumDigits(int64_t target) {
  int digits = 1;
  for (int64_t t = target; t >= 10; t /= 10) ++digits;
  return digits;
}

// A metric value. The bar switches to scientific notation at or below 1e-3,
// on the magnitude when drawing (verbose=1) but on the signed value in the
// one-line summary (verbose=2), so a negative value is always scientific
// there: Keras's two branches differ and users' logs show both.
std::string FormatValue(double value, bool on_magnitude) {
  // Python prints every NaN as "nan"; printf would print "-nan" for some.
  if (std::isnan(value)) return "nan";
  const double tested = on_magnitude ? std::fabs(value) : value;
  return tested > 1e-3 ? absl::StrFormat("%.4f", value)
                       : absl::StrFormat("%.4e", value);
}

std::string FormatTimePerStep(double seconds) { return " " + FormatStepTime(seconds); }

// Python's float floor division and modulo for x >= 0, y > 0, which the
// ETA's hours and minutes use; a plain floor(x / y) can round differently.
double FloorDiv(double x, double y) {
  const double mod = std::fmod(x, y);
  const double div = (x - mod) / y;
  double floor_div = std::floor(div);
  if (div - floor_div > 0.5) floor_div += 1.0;
  return floor_div;
}

// Python's "%d" of a float truncates toward zero.
int64_t Trunc(double x) { return static_cast<int64_t>(x); }

std::string FormatEta(double eta) {
  if (eta > 3600) {
    return absl::StrFormat("%d:%02d:%02d", Trunc(FloorDiv(eta, 3600)),
                           Trunc(FloorDiv(std::fmod(eta, 3600), 60)),
                           Trunc(std::fmod(eta, 60)));
  }
  if (eta > 60) {
    return absl::StrFormat("%d:%02d", Trunc(FloorDiv(eta, 60)),
                           Trunc(std::fmod(eta, 60)));
  }
  return absl::StrFormat("%ds", Trunc(eta));
}

}  // namespace

double Progbar::SteadyClockSeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Progbar::Progbar(int64_t target, int width, int verbose, double interval,
                 std::ostream* out, bool dynamic_display, Clock clock)
    : target_(target),
      width_(width),
      verbose_(verbose),
      interval_(interval),
      out_(out != nullptr ? out : &std::cout),
      dynamic_display_(dynamic_display),
      clock_(std::move(clock)),
      start_(clock_()) {}

void Progbar::update(int64_t current,
                     const std::vector<std::pair<std::string, double>>& values,
                     std::optional<bool> finalize) {
  const bool known = target_ != kUnknownTarget;
  const bool final_update =
      finalize.has_value() ? *finalize : (known && current >= target_);
  for (const auto& [name, value] : values) {
    auto it = values_.begin();
    while (it != values_.end() && it->first != name) ++it;
    if (it == values_.end()) {
      values_.emplace_back(name, value);
    } else {
      it->second = value;
    }
  }
  seen_so_far_ = current;

  const double now = clock_();
  if (verbose_ == 1) {
    if (last_update_.has_value() && now - *last_update_ < interval_ &&
        !final_update) {
      return;  // Too soon to redraw; the values are kept for the next one.
    }
    DrawVerbose1(current, final_update, now);
  } else if (verbose_ == 2 && final_update) {
    PrintSummaryLine(current, now);
  }
  last_update_ = now;
}

void Progbar::add(int64_t n,
                  const std::vector<std::pair<std::string, double>>& values) {
  update(seen_so_far_ + n, values);
}

double Progbar::EstimateStepDuration(int64_t current, double now) {
  if (current == 0) return 0;
  // Only a bar drawn at step 1 knows when the first step ended; a bar first
  // drawn later (several steps per execution) averages over every step.
  double per_step;
  if (time_after_first_step_.has_value() && current > 1) {
    per_step = (now - *time_after_first_step_) / (current - 1);
  } else {
    per_step = (now - start_) / current;
  }
  if (current == 1) time_after_first_step_ = now;
  return per_step;
}

void Progbar::DrawVerbose1(int64_t current, bool finalize, double now) {
  const size_t prev_total_width = total_width_;
  std::string message;
  if (dynamic_display_) {
    message.append(prev_total_width, '\b');
    message += '\r';
  }

  std::string bar;
  if (target_ != kUnknownTarget) {
    bar = absl::StrFormat("%*d/%d [", NumDigits(target_), current, target_);
    // A zero target is full from the start rather than a division by zero.
    const double progress =
        target_ > 0 ? static_cast<double>(current) / target_ : 1.0;
    const int64_t prog_width = static_cast<int64_t>(width_ * progress);
    if (prog_width > 0) {
      bar.append(prog_width - 1, '=');
      bar += current < target_ ? '>' : '=';
    }
    if (width_ > prog_width) bar.append(width_ - prog_width, '.');
    bar += ']';
  } else {
    bar = absl::StrFormat("%7d/Unknown", current);
  }
  total_width_ = bar.size();
  message += bar;

  const double per_step = EstimateStepDuration(current, now);
  std::string info;
  if (target_ == kUnknownTarget || finalize) {
    info = absl::StrFormat(" - %.0fs", now - start_) +
           FormatTimePerStep(per_step) + step_time_note_;
  } else {
    info = " - ETA: " + FormatEta(per_step * (target_ - current));
  }
  for (const auto& [name, value] : values_) {
    absl::StrAppend(&info, " - ", name, ": ",
                    FormatValue(value, /*on_magnitude=*/true));
  }
  total_width_ += info.size();
  // Blank out what is left of a longer previous bar.
  if (dynamic_display_ && prev_total_width > total_width_) {
    info.append(prev_total_width - total_width_, ' ');
  }
  // Off a terminal every bar is a line of its own (Keras 2.6 started each
  // with a newline instead, leaving a blank line before the first).
  if (finalize || !dynamic_display_) info += '\n';

  message += info;
  *out_ << message;
  out_->flush();
}

void Progbar::PrintSummaryLine(int64_t current, double now) {
  std::string line =
      target_ != kUnknownTarget
          ? absl::StrFormat("%*d/%d", NumDigits(target_), current, target_)
          : absl::StrFormat("%7d/Unknown", current);
  absl::StrAppend(&line, absl::StrFormat(" - %.0fs", now - start_));
  for (const auto& [name, value] : values_) {
    absl::StrAppend(&line, " - ", name, ": ",
                    FormatValue(value, /*on_magnitude=*/false));
  }
  line += '\n';
  *out_ << line;
  out_->flush();
}

std::string FormatStepTime(double seconds) {
  if (seconds >= 1 || seconds == 0) return absl::StrFormat("%.0fs/step", seconds);
  if (seconds >= 1e-3) return absl::StrFormat("%.0fms/step", seconds * 1e3);
  return absl::StrFormat("%.0fus/step", seconds * 1e6);
}

std::unique_ptr<Progbar> MakeStdoutProgbar(int64_t target, int verbose) {
  return std::make_unique<Progbar>(target, /*width=*/30, verbose,
                                   /*interval=*/0.05, &std::cout,
                                   /*dynamic_display=*/isatty(STDOUT_FILENO) != 0,
                                   &Progbar::SteadyClockSeconds);
}

}  // namespace utils
}  // namespace keras
}  // namespace tensorflow_ipu
