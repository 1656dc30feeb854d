// TensorFlow's sliding-window arithmetic and the attr checks of the
// convolution and pooling ops.
#include "tensorflow_ipu/core/kernels/window_util.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/attr_value_util.h"

namespace tensorflow_ipu {
namespace window {
namespace {

void ExpectError(const absl::Status& s, absl::StatusCode code,
                 const std::vector<std::string>& parts) {
  EXPECT_EQ(s.code(), code) << s;
  for (const std::string& p : parts) {
    EXPECT_NE(std::string(s.message()).find(p), std::string::npos)
        << "message lacks \"" << p << "\": " << s.message();
  }
}

WindowDim Out(int64_t input, int64_t size, int64_t stride, Padding p, int64_t dilation = 1) {
  absl::StatusOr<WindowDim> d = WindowedOutputSize(input, size, dilation, stride, p);
  EXPECT_TRUE(d.ok()) << d.status();
  return d.value_or(WindowDim{-99, -99, -99});
}

TEST(WindowedOutputSizeTest, ValidHasNoPadding) {
  EXPECT_EQ(Out(3, 2, 1, Padding::kValid).output, 2);
  EXPECT_EQ(Out(3, 2, 2, Padding::kValid).output, 1);
  EXPECT_EQ(Out(28, 3, 1, Padding::kValid).output, 26);
  EXPECT_EQ(Out(26, 2, 2, Padding::kValid).output, 13);
  EXPECT_EQ(Out(5, 2, 1, Padding::kValid, 2).output, 3);  // spans 3
  // Shorter than the window by less than a stride: empty, as TensorFlow.
  EXPECT_EQ(Out(2, 3, 2, Padding::kValid).output, 0);
  const WindowDim d = Out(7, 3, 2, Padding::kValid);
  EXPECT_EQ(d.pad_before, 0);
  EXPECT_EQ(d.pad_after, 0);
}

TEST(WindowedOutputSizeTest, SamePadsMoreAtTheEnd) {
  WindowDim d = Out(3, 2, 1, Padding::kSame);
  EXPECT_EQ(d.output, 3);
  EXPECT_EQ(d.pad_before, 0);
  EXPECT_EQ(d.pad_after, 1);
  d = Out(3, 2, 2, Padding::kSame);  // (2-1)*2 + 2 - 3 = 1
  EXPECT_EQ(d.output, 2);
  EXPECT_EQ(d.pad_before, 0);
  EXPECT_EQ(d.pad_after, 1);
  d = Out(5, 4, 1, Padding::kSame);  // 3 in all
  EXPECT_EQ(d.output, 5);
  EXPECT_EQ(d.pad_before, 1);
  EXPECT_EQ(d.pad_after, 2);
  d = Out(4, 2, 2, Padding::kSame);  // fits exactly: no padding
  EXPECT_EQ(d.output, 2);
  EXPECT_EQ(d.pad_before + d.pad_after, 0);
  d = Out(5, 1, 3, Padding::kSame);  // (2-1)*3 + 1 - 5 < 0: none
  EXPECT_EQ(d.output, 2);
  EXPECT_EQ(d.pad_before + d.pad_after, 0);
  EXPECT_EQ(Out(0, 3, 1, Padding::kSame).output, 0);
}

TEST(WindowedOutputSizeTest, UnknownInputGivesUnknownOutput) {
  EXPECT_EQ(Out(TensorShape::kUnknownDim, 3, 1, Padding::kValid).output,
            TensorShape::kUnknownDim);
}

TEST(WindowedOutputSizeTest, BadArgumentsAreErrors) {
  ExpectError(WindowedOutputSize(1, 3, 1, 1, Padding::kValid).status(),
              absl::StatusCode::kInvalidArgument,
              {"Computed output size would be negative: -1", "input_size: 1",
               "effective_filter_size: 3", "stride: 1"});
  ExpectError(WindowedOutputSize(3, 2, 1, 0, Padding::kSame).status(),
              absl::StatusCode::kInvalidArgument, {"Stride must be > 0, but got 0"});
  ExpectError(WindowedOutputSize(3, 2, 0, 1, Padding::kSame).status(),
              absl::StatusCode::kInvalidArgument, {"Dilation rate must be > 0"});
  ExpectError(WindowedOutputSize(3, 0, 1, 1, Padding::kValid).status(),
              absl::StatusCode::kInvalidArgument, {"at least 1 wide, but is 0"});
  // Huge attrs do not overflow.
  ExpectError(WindowedOutputSize(3, int64_t{1} << 37, int64_t{1} << 40, 1, Padding::kSame)
                  .status(),
              absl::StatusCode::kInvalidArgument, {"spans more than 2^40"});
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(Out(7, 3, big, Padding::kValid).output, 1);
  EXPECT_EQ(Out(7, 3, big, Padding::kSame).output, 1);
}

NodeDef ConvNode(std::vector<int64_t> strides, std::string padding,
                 std::string format = "NHWC",
                 std::vector<int64_t> dilations = {1, 1, 1, 1}) {
  NodeDef n;
  n.set_name("conv");
  n.set_op("Conv2D");
  (*n.mutable_attr())["strides"] = MakeAttrValue(strides);
  (*n.mutable_attr())["padding"] = MakeAttrValue(padding);
  (*n.mutable_attr())["data_format"] = MakeAttrValue(format);
  (*n.mutable_attr())["dilations"] = MakeAttrValue(dilations);
  return n;
}

NodeDef PoolNode(std::vector<int64_t> ksize, std::vector<int64_t> strides,
                 std::string format = "NHWC") {
  NodeDef n;
  n.set_name("pool");
  n.set_op("MaxPool");
  (*n.mutable_attr())["ksize"] = MakeAttrValue(ksize);
  (*n.mutable_attr())["strides"] = MakeAttrValue(strides);
  (*n.mutable_attr())["padding"] = MakeAttrValue("VALID");
  (*n.mutable_attr())["data_format"] = MakeAttrValue(format);
  return n;
}

TEST(ReadAttrsTest, ConvAttrsInBothLayouts) {
  absl::StatusOr<WindowAttrs> a = ReadConvAttrs(ConvNode({1, 2, 3, 1}, "SAME"));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->stride_rows, 2);
  EXPECT_EQ(a->stride_cols, 3);
  EXPECT_EQ(a->padding, Padding::kSame);
  EXPECT_TRUE(CheckCpuSupported(*a).ok());
  a = ReadConvAttrs(ConvNode({1, 1, 2, 3}, "VALID", "NCHW", {1, 1, 2, 2}));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->stride_rows, 2);
  EXPECT_EQ(a->stride_cols, 3);
  EXPECT_EQ(a->dilation_rows, 2);
  ExpectError(CheckCpuSupported(*a), absl::StatusCode::kUnimplemented,
              {"Conv2D", "data_format \"NCHW\"", "NHWC"});
  a->data_format = "NHWC";
  ExpectError(CheckCpuSupported(*a), absl::StatusCode::kUnimplemented,
              {"dilations [1,1,2,2]"});
}

TEST(ReadAttrsTest, BadConvAttrsAreNamed) {
  ExpectError(ReadConvAttrs(ConvNode({1, 1, 1}, "SAME")).status(),
              absl::StatusCode::kInvalidArgument,
              {"Conv2D requires the stride attribute to contain 4 values, but got: 3"});
  ExpectError(ReadConvAttrs(ConvNode({2, 1, 1, 1}, "SAME")).status(),
              absl::StatusCode::kInvalidArgument, {"strides in the batch and depth", "[2,1,1,1]"});
  ExpectError(ReadConvAttrs(ConvNode({1, 0, 1, 1}, "SAME")).status(),
              absl::StatusCode::kInvalidArgument, {"stride must be > 0, but got 0"});
  ExpectError(ReadConvAttrs(ConvNode({1, 1, 1, 1}, "FULL")).status(),
              absl::StatusCode::kInvalidArgument,
              {"attr 'padding' of \"FULL\" is not in the list of allowed values"});
  ExpectError(ReadConvAttrs(ConvNode({1, 1, 1, 1}, "EXPLICIT")).status(),
              absl::StatusCode::kUnimplemented, {"EXPLICIT"});
  ExpectError(ReadConvAttrs(ConvNode({1, 1, 1, 1}, "SAME", "HWCN")).status(),
              absl::StatusCode::kInvalidArgument, {"data_format", "HWCN"});
  ExpectError(ReadConvAttrs(ConvNode({1, 1, 1, 1}, "SAME", "NHWC", {1, 1})).status(),
              absl::StatusCode::kInvalidArgument, {"dilations attribute to contain 4 values"});
  ExpectError(ReadConvAttrs(ConvNode({1, 1, 1, 1}, "SAME", "NHWC", {1, 0, 1, 1})).status(),
              absl::StatusCode::kInvalidArgument, {"dilated rates should be larger than 0"});
  ExpectError(ReadConvAttrs(ConvNode({1, 1, 1, 1}, "SAME", "NHWC", {1, 1, 1, 2})).status(),
              absl::StatusCode::kInvalidArgument, {"dilations in the batch and depth"});
}

TEST(ReadAttrsTest, BadPoolAttrsAreNamed) {
  absl::StatusOr<WindowAttrs> a = ReadPoolAttrs(PoolNode({1, 2, 3, 1}, {1, 2, 2, 1}));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->window_rows, 2);
  EXPECT_EQ(a->window_cols, 3);
  ExpectError(ReadPoolAttrs(PoolNode({1, 2, 2}, {1, 2, 2, 1})).status(),
              absl::StatusCode::kInvalidArgument,
              {"MaxPool requires the ksize attribute to contain 4 values, but got: 3"});
  ExpectError(ReadPoolAttrs(PoolNode({1, 0, 2, 1}, {1, 2, 2, 1})).status(),
              absl::StatusCode::kInvalidArgument, {"ksize for dimension 1 must be > 0"});
  ExpectError(ReadPoolAttrs(PoolNode({2, 2, 2, 1}, {1, 2, 2, 1})).status(),
              absl::StatusCode::kInvalidArgument, {"batch dimension"});
  ExpectError(ReadPoolAttrs(PoolNode({1, 1, 1, 2}, {1, 1, 1, 1})).status(),
              absl::StatusCode::kUnimplemented, {"depth dimension", "[1,1,1,2]"});
}

TEST(Conv2DDimsTest, ShapesAndDepthErrors) {
  WindowAttrs a = ReadConvAttrs(ConvNode({1, 2, 2, 1}, "SAME")).value();
  absl::StatusOr<Window2DDims> d =
      ComputeConv2DDims(TensorShape({2, 28, 28, 1}), TensorShape({3, 3, 1, 32}), a);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->output_shape, TensorShape({2, 14, 14, 32}));
  d = ComputeConv2DDims(TensorShape({-1, 28, -1, 1}), TensorShape::Unknown(), a);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->output_shape, TensorShape({-1, -1, -1, -1}));
  ExpectError(ComputeConv2DDims(TensorShape({1, 3, 3, 3}), TensorShape({2, 2, 2, 1}), a)
                  .status(),
              absl::StatusCode::kInvalidArgument,
              {"Depth of input (3) is not a multiple of input depth of filter (2)",
               "[1,3,3,3]", "[2,2,2,1]"});
  ExpectError(ComputeConv2DDims(TensorShape({1, 3, 3, 4}), TensorShape({2, 2, 2, 3}), a)
                  .status(),
              absl::StatusCode::kInvalidArgument,
              {"Depth of output (3) is not a multiple of the number of groups (2)"});
  ExpectError(ComputeConv2DDims(TensorShape({1, 3, 3, 0}), TensorShape({2, 2, 0, 3}), a)
                  .status(),
              absl::StatusCode::kInvalidArgument, {"depth of filter must not be 0"});
  ExpectError(ComputeConv2DDims(TensorShape({3, 3, 1}), TensorShape({2, 2, 1, 1}), a)
                  .status(),
              absl::StatusCode::kInvalidArgument,
              {"Conv2D: input must be 4-dimensional", "[3,3,1]", "[2,2,1,1]"});
  a.padding = Padding::kValid;
  ExpectError(ComputeConv2DDims(TensorShape({1, 2, 2, 1}), TensorShape({6, 6, 1, 1}), a)
                  .status(),
              absl::StatusCode::kInvalidArgument,
              {"Computed output size would be negative", "[1,2,2,1]", "[6,6,1,1]"});
}

TEST(Conv2DDimsTest, BackpropChecksOutBackprop) {
  WindowAttrs a = ReadConvAttrs(ConvNode({1, 1, 1, 1}, "VALID")).value();
  a.op = "Conv2DBackpropInput";
  ExpectError(ComputeConv2DBackpropDims(TensorShape({1, 5, 5, 1}), TensorShape({2, 2, 1, 1}),
                                        TensorShape({1, 3, 3, 1}), a)
                  .status(),
              absl::StatusCode::kInvalidArgument,
              {"Conv2DBackpropInput: Size of out_backprop doesn't match computed",
               "[1,3,3,1]", "[1,5,5,1]", "[2,2,1,1]", "[1,4,4,1]"});
  EXPECT_TRUE(ComputeConv2DBackpropDims(TensorShape({1, 5, 5, 1}), TensorShape({2, 2, 1, 1}),
                                        TensorShape({-1, 4, 4, 1}), a)
                  .ok());
}

TEST(ShapeFromSizesTest, ChecksTheVector) {
  absl::StatusOr<TensorShape> s =
      ShapeFromSizes(Tensor::Vector<int32_t>({1, 3, 3, 2}), "Conv2DBackpropInput", "input_sizes");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, TensorShape({1, 3, 3, 2}));
  ExpectError(ShapeFromSizes(Tensor::Vector<int32_t>({1, -3, 3, 2}), "Conv2DBackpropInput",
                             "input_sizes")
                  .status(),
              absl::StatusCode::kInvalidArgument,
              {"Conv2DBackpropInput: input_sizes must not be negative", "[1,-3,3,2]"});
  ExpectError(ShapeFromSizes(Tensor::Vector<int32_t>({3, 3}), "Conv2DBackpropFilter",
                             "filter_sizes")
                  .status(),
              absl::StatusCode::kInvalidArgument, {"int32 vector of 4 values", "[2]"});
}

}  // namespace
}  // namespace window
}  // namespace tensorflow_ipu
