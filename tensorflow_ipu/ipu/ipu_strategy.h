// ipu::ipu_strategy::IPUStrategy: the vendor's distribution strategy for
// IPUs. Models created while its scope is open train, evaluate and predict
// on the simulated IPU; the same program without the strategy runs on the
// CPU.
//
//   ipu::ipu_strategy::IPUStrategy strategy;
//   {
//     auto scope = strategy.scope();
//     ASSIGN_OR_RETURN(auto model, keras::Model::Create(input, output));
//     ...
//   }
//
// The scope is per thread and may nest (the innermost strategy wins), as
// Python's `with strategy.scope():`.
#ifndef TENSORFLOW_IPU_IPU_IPU_STRATEGY_H_
#define TENSORFLOW_IPU_IPU_IPU_STRATEGY_H_

#include <string>

namespace tensorflow_ipu {
namespace ipu {
namespace ipu_strategy {

class IPUStrategy;

// Closes the strategy's scope when it goes out of scope.
class StrategyScope {
 public:
  explicit StrategyScope(const IPUStrategy* strategy);
  ~StrategyScope();
  StrategyScope(const StrategyScope&) = delete;
  StrategyScope& operator=(const StrategyScope&) = delete;

 private:
  const IPUStrategy* previous_;
};

class IPUStrategy {
 public:
  explicit IPUStrategy(std::string ipu_device = "/device:IPU:0",
                       std::string cpu_device = "/device:CPU:0")
      : ipu_device_(std::move(ipu_device)), cpu_device_(std::move(cpu_device)) {}

  [[nodiscard]] StrategyScope scope() const { return StrategyScope(this); }
  const std::string& ipu_device() const { return ipu_device_; }
  const std::string& cpu_device() const { return cpu_device_; }
  // Poplar replicates the graph; TensorFlow sees one replica (as the
  // vendor's strategy reports).
  int num_replicas_in_sync() const { return 1; }

 private:
  std::string ipu_device_;
  std::string cpu_device_;
};

// The strategy whose scope is open on this thread, or nullptr.
const IPUStrategy* get_strategy();

}  // namespace ipu_strategy
}  // namespace ipu
}  // namespace tensorflow_ipu

#endif  // TENSORFLOW_IPU_IPU_IPU_STRATEGY_H_
