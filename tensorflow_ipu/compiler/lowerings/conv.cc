// Lowerings of Conv2D and its gradients as im2col views (window_views.h)
// and poplin::matMul, so that the planner splits a convolution over tiles
// as it splits any matrix product. With col [rows, patch] the input's
// patches and F the filter as [patch, out_depth]:
//   Conv2D:               col * F
//   Conv2DBackpropFilter: col^T * out_backprop
//   Conv2DBackpropInput:  out_backprop * F^T, whose columns (one per tap)
//                         poplin::col2im adds into the input positions
//                         each tap read, in one compute set.
// NHWC and dilations of 1 only (Unimplemented otherwise), as on the CPU.
#include <atomic>
#include <functional>
#include <utility>
#include <vector>

#include "poplar_sim/execution_context.h"
#include "poplar_sim/host_threads.h"
#include "poplar_sim/poplin/col2im.h"
#include "poplar_sim/poplin/matmul.h"
#include "tensorflow_ipu/compiler/emission_state.h"
#include "tensorflow_ipu/compiler/lowering_registry.h"
#include "tensorflow_ipu/compiler/lowerings/window_views.h"
#include "tensorflow_ipu/core/kernels/conv_filter_grad.h"
#include "tensorflow_ipu/core/kernels/dnnl_conv_shape.h"
#include "tensorflow_ipu/core/status_macros.h"
#include "third_party/dnnl/one_thread_conv.h"

namespace tensorflow_ipu {
namespace compiler {
namespace {

using window::Window2DDims;

size_t Patch(const Window2DDims& d) {
  return static_cast<size_t>(d.filter_rows * d.filter_cols * d.in_depth);
}
size_t Rows(const Window2DDims& d) {
  return static_cast<size_t>(d.batch * d.rows.output * d.cols.output);
}

poplar_sim::Tensor MatMul(LoweringContext& ctx, const poplar_sim::Tensor& a,
                          const poplar_sim::Tensor& b,
                          poplar_sim::poplin::HostProduct host_product = nullptr) {
  // IPUConfig.convolutions' options, as the vendor's convolutions take them.
  return poplar_sim::poplin::matMul(ctx.graph(), a, b, ctx.prog(), ctx.op().name(),
                                    ctx.cluster().convolution_options(), std::move(host_product));
}

// The host computes a float Conv2D's product with oneDNN's direct kernels,
// which read the input's windows in place: the generic product would first
// copy out the whole im2col view (9x the input for a 3x3 filter). The
// simulated program and its cost are the im2col product's. Split by images
// over the host threads (an image's output has the same bits however the
// batch is split: third_party/dnnl's test), as the CPU kernel computes a
// Conv2D (core/kernels/conv_ops.cc). oneDNN's own filter gradient,
// measured on the Keras tutorial's CNN, was slower than the generic product
// (4.8 against 4.2 ms per step for the second convolution, 2.9 against 0.5
// for the first, with its one input channel); FilterGradOnHost below is not.
poplar_sim::poplin::HostProduct ForwardOnHost(const LoweringContext& ctx, const Window2DDims& d) {
  if (ctx.input_type(0) != DT_FLOAT) return nullptr;
  const dnnl_one_thread::ConvShape shape = DnnlConvShape(d);
  const poplar_sim::Tensor input = ctx.input(0), filter = ctx.input(1);
  return [=](poplar_sim::ExecutionContext& ec, float* out) {
    poplar_sim::ReadView<float> x(ec, input), f(ec, filter);
    const size_t in_image = static_cast<size_t>(shape.in_rows * shape.in_cols * shape.in_depth);
    const size_t out_image = static_cast<size_t>(shape.out_rows * shape.out_cols * shape.out_depth);
    std::atomic<bool> ok{true};
    poplar_sim::parallelRanges(
        ec.hostThreads(), static_cast<size_t>(shape.batch), [&](size_t first, size_t end) {
          dnnl_one_thread::ConvShape part = shape;
          part.batch = static_cast<int64_t>(end - first);
          if (!dnnl_one_thread::ConvForward(part, x.data() + first * in_image, f.data(),
                                            out + first * out_image)) {
            ok = false;
          }
        });
    return ok.load();
  };
}

// The host computes a float Conv2D's filter gradient a cache-sized chunk
// of im2col rows at a time (core/kernels/conv_filter_grad.h), as the CPU
// kernel does, instead of gathering the whole im2col view first. The
// simulated program and its cost are the generic product's.
poplar_sim::poplin::HostProduct FilterGradOnHost(const LoweringContext& ctx,
                                                 const Window2DDims& d) {
  if (ctx.input_type(0) != DT_FLOAT) return nullptr;
  const poplar_sim::Tensor input = ctx.input(0), out_backprop = ctx.input(2);
  return [=](poplar_sim::ExecutionContext& ec, float* out) {
    poplar_sim::ReadView<float> x(ec, input), dy(ec, out_backprop);
    poplar_sim::HostThreads* threads = ec.hostThreads();
    auto run_two = [threads](const std::function<void(int)>& part) {
      if (threads != nullptr) {
        threads->parallelFor(2, [&part](unsigned i) { part(static_cast<int>(i)); });
      } else {
        part(0);
        part(1);
      }
    };
    return Conv2DFilterGradByChunks(d, x.data(), dy.data(), out, run_two);
  };
}

absl::Status LowerConv2D(LoweringContext& ctx) {
  ASSIGN_OR_RETURN(Window2DDims d, LoweredConvDims(ctx, ctx.input_shape(0), ctx.input_shape(1)));
  ASSIGN_OR_RETURN(bool empty, LowerEmptyWindows(ctx, d));
  if (empty) return absl::OkStatus();
  ASSIGN_OR_RETURN(poplar_sim::Tensor col, Im2ColView(ctx, ctx.input(0), d, ctx.input_type(0)));
  poplar_sim::Tensor f = ctx.input(1).reshape({Patch(d), static_cast<size_t>(d.out_depth)});
  ctx.SetOutput(0, MatMul(ctx, col, f, ForwardOnHost(ctx, d)).reshape(ctx.OutputDims(0)));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("Conv2D", LowerConv2D);

absl::Status LowerConv2DBackpropFilter(LoweringContext& ctx) {
  const TensorShape& filter = ctx.output_shape(0);
  ASSIGN_OR_RETURN(Window2DDims d, LoweredConvDims(ctx, ctx.input_shape(0), filter));
  ASSIGN_OR_RETURN(bool empty, LowerEmptyWindows(ctx, d));
  if (empty) return absl::OkStatus();
  ASSIGN_OR_RETURN(poplar_sim::Tensor col, Im2ColView(ctx, ctx.input(0), d, ctx.input_type(0)));
  poplar_sim::Tensor dy = ctx.input(2).reshape({Rows(d), static_cast<size_t>(d.out_depth)});
  ctx.SetOutput(0,
                MatMul(ctx, col.transpose(), dy, FilterGradOnHost(ctx, d)).reshape(ctx.OutputDims(0)));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("Conv2DBackpropFilter", LowerConv2DBackpropFilter);

absl::Status LowerConv2DBackpropInput(LoweringContext& ctx) {
  const TensorShape& input = ctx.output_shape(0);
  ASSIGN_OR_RETURN(Window2DDims d, LoweredConvDims(ctx, input, ctx.input_shape(1)));
  ASSIGN_OR_RETURN(bool empty, LowerEmptyWindows(ctx, d));
  if (empty) return absl::OkStatus();
  poplar_sim::Tensor f = ctx.input(1).reshape({Patch(d), static_cast<size_t>(d.out_depth)});
  poplar_sim::Tensor dy = ctx.input(2).reshape({Rows(d), static_cast<size_t>(d.out_depth)});
  poplar_sim::Tensor dcol = MatMul(ctx, dy, f.transpose());
  if (d.filter_rows == 1 && d.filter_cols == 1 && d.stride_rows == 1 && d.stride_cols == 1) {
    ctx.SetOutput(0, dcol.reshape(ctx.OutputDims(0)));
    return absl::OkStatus();
  }
  ctx.SetOutput(0, poplar_sim::poplin::col2im(ctx.graph(), dcol, SimWindow(d), ctx.prog(),
                                              ctx.op().name() + "/col2im"));
  return absl::OkStatus();
}
REGISTER_IPU_LOWERING("Conv2DBackpropInput", LowerConv2DBackpropInput);

}  // namespace
}  // namespace compiler
}  // namespace tensorflow_ipu
