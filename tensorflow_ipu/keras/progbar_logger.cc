#include "tensorflow_ipu/keras/progbar_logger.h"

#include <iostream>

namespace tensorflow_ipu {
namespace keras {
namespace callbacks {

void ProgbarLogger::Update(int64_t batch, const Logs& logs) {
  if (!bar_) bar_ = utils::MakeStdoutProgbar(params().steps, params().verbose);
  if (params().verbose == 1) bar_->update(batch + 1, logs.items(), false);
}

void ProgbarLogger::Finalize(const Logs& logs) {
  if (!bar_) bar_ = utils::MakeStdoutProgbar(params().steps, params().verbose);
  bar_->update(params().steps, logs.items(), true);
  bar_.reset();
}

void ProgbarLogger::on_epoch_begin(int epoch, const Logs&) {
  bar_.reset();
  if (params().verbose != 0 && params().epochs > 1) {
    std::cout << "Epoch " << epoch + 1 << "/" << params().epochs << std::endl;
  }
}

void ProgbarLogger::on_epoch_end(int, const Logs& logs) { Finalize(logs); }
void ProgbarLogger::on_train_batch_end(int64_t batch, const Logs& logs) { Update(batch, logs); }

void ProgbarLogger::on_test_begin(const Logs&) {
  if (!in_fit_) bar_.reset();
}
void ProgbarLogger::on_test_batch_end(int64_t batch, const Logs& logs) {
  if (!in_fit_) Update(batch, logs);
}
void ProgbarLogger::on_test_end(const Logs& logs) {
  if (!in_fit_) Finalize(logs);
}

void ProgbarLogger::on_predict_begin(const Logs&) { bar_.reset(); }
void ProgbarLogger::on_predict_batch_end(int64_t batch, const Logs& logs) { Update(batch, logs); }
void ProgbarLogger::on_predict_end(const Logs& logs) { Finalize(logs); }

}  // namespace callbacks
}  // namespace keras
}  // namespace tensorflow_ipu
