// CPU kernels of RandomUniform, RandomStandardNormal and TruncatedNormal.
//
// Seeds follow TensorFlow: with seed and seed2 both 0 the op draws fresh
// seeds (from a process-wide counter, so runs differ); otherwise the stream
// is fixed by the seeds. Each run continues the stream where the previous
// one stopped, as TensorFlow's stateful random ops do, and every value
// depends only on the seeds and its position, never on the thread count.
#include <atomic>
#include <cmath>

#include "Eigen/Core"
#include "absl/synchronization/mutex.h"
#include "tensorflow_ipu/core/device_name.h"
#include "tensorflow_ipu/core/lib/random.h"
#include "tensorflow_ipu/core/op_kernel.h"
#include "tensorflow_ipu/core/status_macros.h"

namespace tensorflow_ipu {
namespace {

enum class Distribution { kUniform, kNormal, kTruncatedNormal };

uint64_t FreshSeed() {
  static std::atomic<uint64_t> next{0x5DEECE66DULL};
  return next.fetch_add(0x9E3779B97F4A7C15ULL);
}

template <Distribution kDist>
class RandomKernel : public OpKernel {
 public:
  absl::Status Init(OpKernelConstruction* ctx) override {
    ASSIGN_OR_RETURN(int64_t seed, ctx->GetAttr<int64_t>("seed"));
    ASSIGN_OR_RETURN(int64_t seed2, ctx->GetAttr<int64_t>("seed2"));
    ASSIGN_OR_RETURN(dtype_, ctx->GetAttr<DataType>("dtype"));
    if (seed == 0 && seed2 == 0) {
      seed = static_cast<int64_t>(FreshSeed());
      seed2 = static_cast<int64_t>(FreshSeed());
    }
    random_ = CounterRandom(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    if (shape_t.dims() != 1) {
      return ctx->InvalidArgument("shape must be a vector");
    }
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < shape_t.NumElements(); ++i) {
      dims.push_back(shape_t.dtype() == DT_INT64 ? shape_t.data<int64_t>()[i]
                                                 : shape_t.data<int32_t>()[i]);
      if (dims.back() < 0) return ctx->InvalidArgument("negative dimension in shape");
    }
    ASSIGN_OR_RETURN(Tensor * out, ctx->allocate_output(0, TensorShape(dims)));
    const int64_t n = out->NumElements();
    // Truncated normals redraw, so each value owns a block of counters.
    constexpr uint64_t kDrawsPerValue =
        kDist == Distribution::kTruncatedNormal ? 64 : 1;
    uint64_t base;
    {
      absl::MutexLock lock(&mu_);
      base = position_;
      position_ += static_cast<uint64_t>(n) * kDrawsPerValue;
    }
    return SwitchOnType(dtype_, [&](auto t) -> absl::Status {
      using T = decltype(t);
      if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, half>) {
        T* data = out->data<T>();
        for (int64_t i = 0; i < n; ++i) {
          const uint64_t c = base + static_cast<uint64_t>(i) * kDrawsPerValue;
          double v;
          if constexpr (kDist == Distribution::kUniform) {
            v = std::is_same_v<T, double> ? random_.UniformDouble(c)
                                          : random_.Uniform(c);
          } else if constexpr (kDist == Distribution::kNormal) {
            v = random_.Normal(c);
          } else {
            v = random_.Normal(c);
            for (uint64_t k = 1; std::abs(v) > 2.0 && k < kDrawsPerValue; ++k) {
              v = random_.Normal(c + k);
            }
            if (std::abs(v) > 2.0) v = 0.0;  // 64 misses: p < 1e-80
          }
          data[i] = static_cast<T>(v);
        }
        return absl::OkStatus();
      } else {
        return absl::InvalidArgumentError("random ops make floating-point values");
      }
    });
  }

 private:
  DataType dtype_ = DT_FLOAT;
  CounterRandom random_{0, 0};
  absl::Mutex mu_;
  uint64_t position_ ABSL_GUARDED_BY(mu_) = 0;
};

REGISTER_KERNEL("RandomUniform", kDeviceTypeCpu, RandomKernel<Distribution::kUniform>);
REGISTER_KERNEL("RandomStandardNormal", kDeviceTypeCpu,
                RandomKernel<Distribution::kNormal>);
REGISTER_KERNEL("TruncatedNormal", kDeviceTypeCpu,
                RandomKernel<Distribution::kTruncatedNormal>);

}  // namespace
}  // namespace tensorflow_ipu
