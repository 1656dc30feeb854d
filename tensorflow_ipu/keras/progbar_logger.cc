#include "tensorflow_ipu/keras/progbar_logger.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace tensorflow_ipu {
namespace keras {
namespace callbacks {

void ProgbarLogger::Start() {
  // At the start of the epoch, so the bar's clock counts the whole epoch
  // (on the IPU the first batch end comes after a whole execution).
  bar_ = utils::MakeStdoutProgbar(params().steps, params().verbose);
}

void ProgbarLogger::Update(int64_t batch, const Logs& logs) {
  if (!bar_) Start();
  // Not on a terminal: one line per epoch, the final one.
  if (params().verbose == 1 && isatty(fileno(stdout))) {
    bar_->update(batch + 1, logs.items(), false);
  }
}

void ProgbarLogger::Finalize(const Logs& logs) {
  if (!bar_) Start();
  if (ipu_seconds_per_step_ > 0) {
    bar_->set_step_time_note(" (IPU " + utils::FormatStepTime(ipu_seconds_per_step_) + ")");
    ipu_seconds_per_step_ = 0;
  }
  bar_->update(params().steps, logs.items(), true);
  bar_.reset();
}

void ProgbarLogger::on_epoch_begin(int epoch, const Logs&) {
  if (params().verbose != 0 && params().epochs > 1) {
    std::cout << "Epoch " << epoch + 1 << "/" << params().epochs << std::endl;
  }
  Start();
}

void ProgbarLogger::on_epoch_end(int, const Logs& logs) { Finalize(logs); }
void ProgbarLogger::on_train_batch_end(int64_t batch, const Logs& logs) { Update(batch, logs); }

void ProgbarLogger::on_test_begin(const Logs&) {
  if (!in_fit_) Start();
}
void ProgbarLogger::on_test_batch_end(int64_t batch, const Logs& logs) {
  if (!in_fit_) Update(batch, logs);
}
void ProgbarLogger::on_test_end(const Logs& logs) {
  if (!in_fit_) Finalize(logs);
}

void ProgbarLogger::on_predict_begin(const Logs&) { Start(); }
void ProgbarLogger::on_predict_batch_end(int64_t batch, const Logs& logs) { Update(batch, logs); }
void ProgbarLogger::on_predict_end(const Logs& logs) { Finalize(logs); }

}  // namespace callbacks
}  // namespace keras
}  // namespace tensorflow_ipu
