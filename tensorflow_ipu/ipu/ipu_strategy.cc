#include "tensorflow_ipu/ipu/ipu_strategy.h"

namespace tensorflow_ipu {
namespace ipu {
namespace ipu_strategy {
namespace {
thread_local const IPUStrategy* current_strategy = nullptr;
}  // namespace

StrategyScope::StrategyScope(const IPUStrategy* strategy) : previous_(current_strategy) {
  current_strategy = strategy;
}

StrategyScope::~StrategyScope() { current_strategy = previous_; }

const IPUStrategy* get_strategy() { return current_strategy; }

}  // namespace ipu_strategy
}  // namespace ipu
}  // namespace tensorflow_ipu
