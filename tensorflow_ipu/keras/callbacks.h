// Keras's callbacks: hooks the fit/evaluate/predict loops call, History
// (what fit returns) and the logs they pass.
//
// On the IPU a callback's batch hooks fire once per execution of the
// on-device program (batch index = first step + steps_per_execution - 1,
// logs = the last step's running values), as the vendor's; with
// Model::set_asynchronous_callbacks(true) they fire once per step.
#ifndef TENSORFLOW_IPU_KERAS_CALLBACKS_H_
#define TENSORFLOW_IPU_KERAS_CALLBACKS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tensorflow_ipu {
namespace keras {

class Model;

// Metric values in Keras's order ("loss", "accuracy", "val_loss", ...).
class Logs {
 public:
  void Set(const std::string& name, double value);
  std::optional<double> Get(const std::string& name) const;
  const std::vector<std::pair<std::string, double>>& items() const { return items_; }

 private:
  std::vector<std::pair<std::string, double>> items_;
};

namespace callbacks {

class Callback {
 public:
  virtual ~Callback() = default;
  void set_model(Model* model) { model_ = model; }
  Model* model() const { return model_; }
  // Params Keras gives its callbacks: verbose, epochs, steps.
  struct Params {
    int verbose = 1;
    int epochs = 1;
    int64_t steps = 0;  // per epoch (per replica), as the progress bar counts
  };
  void set_params(const Params& params) { params_ = params; }
  const Params& params() const { return params_; }

  virtual void on_train_begin(const Logs&) {}
  virtual void on_train_end(const Logs&) {}
  virtual void on_epoch_begin(int /*epoch*/, const Logs&) {}
  virtual void on_epoch_end(int /*epoch*/, const Logs&) {}
  virtual void on_train_batch_begin(int64_t /*batch*/, const Logs&) {}
  virtual void on_train_batch_end(int64_t /*batch*/, const Logs&) {}
  virtual void on_test_begin(const Logs&) {}
  virtual void on_test_end(const Logs&) {}
  virtual void on_test_batch_begin(int64_t /*batch*/, const Logs&) {}
  virtual void on_test_batch_end(int64_t /*batch*/, const Logs&) {}
  virtual void on_predict_begin(const Logs&) {}
  virtual void on_predict_end(const Logs&) {}
  virtual void on_predict_batch_begin(int64_t /*batch*/, const Logs&) {}
  virtual void on_predict_batch_end(int64_t /*batch*/, const Logs&) {}

 private:
  Model* model_ = nullptr;
  Params params_;
};

// What fit returns: each metric's value at the end of each epoch.
class History : public Callback {
 public:
  std::vector<int> epoch;
  std::map<std::string, std::vector<double>> history;
  void on_train_begin(const Logs&) override { epoch.clear(); }
  void on_epoch_end(int e, const Logs& logs) override;
};

}  // namespace callbacks
}  // namespace keras
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_KERAS_CALLBACKS_H_
