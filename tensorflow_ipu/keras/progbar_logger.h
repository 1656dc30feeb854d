// callbacks::ProgbarLogger: the callback that draws the progress bar of
// fit, evaluate and predict, as Keras's (fit adds it when verbose != 0):
// "Epoch i/N" before each epoch when there are several, the bar advanced
// at each batch end, finalised with the epoch's logs (validation
// included). When stdout is not a terminal only the final bar of each
// epoch is printed: one line per epoch.
#ifndef TENSORFLOW_IPU_KERAS_PROGBAR_LOGGER_H_
#define TENSORFLOW_IPU_KERAS_PROGBAR_LOGGER_H_

#include <memory>

#include "tensorflow_ipu/keras/callbacks.h"
#include "tensorflow_ipu/keras/utils/progbar.h"

namespace tensorflow_ipu {
namespace keras {
namespace callbacks {

class ProgbarLogger : public Callback {
 public:
  // `in_fit`: evaluation inside fit (validation) draws nothing.
  explicit ProgbarLogger(bool in_fit) : in_fit_(in_fit) {}

  // Shown beside the host's time per step at the end of this epoch:
  // " (IPU 302us/step)", the simulated device time (Model::set_show_ipu_time).
  void set_ipu_seconds_per_step(double seconds) { ipu_seconds_per_step_ = seconds; }

  void on_epoch_begin(int epoch, const Logs& logs) override;
  void on_epoch_end(int epoch, const Logs& logs) override;
  void on_train_batch_end(int64_t batch, const Logs& logs) override;
  void on_test_begin(const Logs& logs) override;
  void on_test_batch_end(int64_t batch, const Logs& logs) override;
  void on_test_end(const Logs& logs) override;
  void on_predict_begin(const Logs& logs) override;
  void on_predict_batch_end(int64_t batch, const Logs& logs) override;
  void on_predict_end(const Logs& logs) override;

 private:
  void Start();
  void Update(int64_t batch, const Logs& logs);
  void Finalize(const Logs& logs);
  bool in_fit_;
  double ipu_seconds_per_step_ = 0;
  std::unique_ptr<utils::Progbar> bar_;
};

}  // namespace callbacks
}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_PROGBAR_LOGGER_H_
