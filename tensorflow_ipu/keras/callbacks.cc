#include "tensorflow_ipu/keras/callbacks.h"

namespace tensorflow_ipu {
namespace keras {

void Logs::Set(const std::string& name, double value) {
  for (auto& [k, v] : items_) {
    if (k == name) {
      v = value;
      return;
    }
  }
  items_.emplace_back(name, value);
}

std::optional<double> Logs::Get(const std::string& name) const {
  for (const auto& [k, v] : items_) {
    if (k == name) return v;
  }
  return std::nullopt;
}

namespace callbacks {

void History::on_epoch_end(int e, const Logs& logs) {
  epoch.push_back(e);
  for (const auto& [k, v] : logs.items()) history[k].push_back(v);
}

}  // namespace callbacks
}  // namespace keras
}  // namespace tensorflow_ipu
