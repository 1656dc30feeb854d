#include "tensorflow_ipu/core/tensor.h"
#include "unsupported/Eigen/CXX11/Tensor"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace {

using ::testing::HasSubstr;

TEST(TensorTest, AllocatesAlignedTypedStorage) {
  Tensor t(DT_FLOAT, TensorShape({3, 5}));
  EXPECT_EQ(t.NumElements(), 15);
  EXPECT_EQ(t.TotalBytes(), 60u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u);
  auto m = t.matrix<float>();
  m(2, 4) = 7.f;
  EXPECT_EQ(t.flat<float>()(14), 7.f);
}

// Buffers of every size start on a 64-byte boundary (Eigen's aligned maps
// and the vector kernels rely on it) and hold their whole size: under
// --config=asan a write past the end would be reported.
TEST(TensorTest, EveryBufferIsAlignedAndWholeWhateverItsSize) {
  std::vector<Tensor> live;  // kept, so that each comes from a fresh block
  for (int64_t n : {0, 1, 3, 15, 16, 17, 63, 64, 65, 1000, 8192, 200704}) {
    for (DataType dtype : {DT_UINT8, DT_HALF, DT_FLOAT, DT_DOUBLE}) {
      Tensor t(dtype, TensorShape({n}));
      ASSERT_NE(t.raw_data(), nullptr) << DataTypeString(dtype) << "[" << n << "]";
      EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % 64, 0u)
          << DataTypeString(dtype) << "[" << n << "]";
      std::memset(t.raw_data(), 0xab, t.TotalBytes());
      live.push_back(t);
    }
  }
  Tensor strings(DT_STRING, TensorShape({5}));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(strings.raw_data()) % 64, 0u);
  EXPECT_EQ(strings.data<std::string>()[4], "");
}

// A buffer of 2 MB or more is a huge-page mapping of its own (large_buffer.h):
// aligned to 2 MB, holding what is written to it, and kept alive by a slice
// after the tensor it came from is gone (the sanitizers' build checks that
// it is unmapped once, with the last of them). Strings too.
TEST(TensorTest, LargeBuffersAreHugePageAlignedAndOutliveThroughSlices) {
  Tensor slice;
  {
    Tensor big(DT_FLOAT, TensorShape({1000, 1000}));  // 4,000,000 bytes
    ASSERT_NE(big.raw_data(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(big.raw_data()) % (2 << 20), 0u);
    float* f = big.data<float>();
    for (int64_t i = 0; i < big.NumElements(); ++i) f[i] = static_cast<float>(i);
    absl::StatusOr<Tensor> rows = big.Slice(998, 1000);
    ASSERT_TRUE(rows.ok()) << rows.status();
    slice = *rows;
  }
  ASSERT_EQ(slice.NumElements(), 2000);
  EXPECT_EQ(slice.data<float>()[0], 998000.f);
  EXPECT_EQ(slice.data<float>()[1999], 999999.f);
  Tensor strings(DT_STRING, TensorShape({(2 << 20) / 8}));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(strings.raw_data()) % (2 << 20), 0u);
  strings.data<std::string>()[1000] = std::string(100, 'x');  // not a short string
  EXPECT_EQ(strings.data<std::string>()[1000].size(), 100u);
  EXPECT_EQ(strings.data<std::string>()[0], "");
}

TEST(TensorTest, CopiesShareBufferDeepCopyDoesNot) {
  Tensor a = Tensor::Vector<int32_t>({1, 2, 3});
  Tensor b = a;
  EXPECT_TRUE(a.SharesBufferWith(b));
  Tensor c = a.DeepCopy();
  EXPECT_FALSE(a.SharesBufferWith(c));
  c.flat<int32_t>()(0) = 9;
  EXPECT_EQ(a.flat<int32_t>()(0), 1);
  EXPECT_TRUE(a.BitwiseEquals(b));
  EXPECT_FALSE(a.BitwiseEquals(c));
}

TEST(TensorTest, Reshaped) {
  Tensor a = Tensor::Vector<float>({1, 2, 3, 4, 5, 6});
  Tensor m = a.Reshaped(TensorShape({2, 3})).value();
  EXPECT_EQ(m.matrix<float>()(1, 0), 4.f);
  auto bad = a.Reshaped(TensorShape({4}));
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("[6]"), std::string::npos);
}

TEST(TensorTest, FlatInnerDims) {
  Tensor t(DT_FLOAT, TensorShape({2, 3, 4}));
  auto m = t.flat_inner_dims<float, 2>();
  EXPECT_EQ(m.dimension(0), 6);
  EXPECT_EQ(m.dimension(1), 4);
  Tensor v = Tensor::Vector<float>({1, 2});
  auto m2 = v.flat_inner_dims<float, 2>();
  EXPECT_EQ(m2.dimension(0), 1);
  EXPECT_EQ(m2.dimension(1), 2);
}

TEST(TensorTest, SliceOfAlignedRowsSharesTheBuffer) {
  std::vector<float> values(4 * 16);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  absl::StatusOr<Tensor> rows;
  {
    Tensor base = Tensor::FromVector(values, TensorShape({4, 16}));  // 64-byte rows
    rows = base.Slice(1, 3);
    ASSERT_TRUE(rows.ok()) << rows.status();
    EXPECT_EQ(rows->shape(), TensorShape({2, 16}));
    EXPECT_TRUE(rows->SharesBufferWith(base));
    EXPECT_EQ(rows->data<float>(), base.data<float>() + 16);
    // A shared slice is never "the only reference": an in-place update
    // (of a variable assigned from it) must not write into the base.
    EXPECT_FALSE(rows->RefCountIsOne());
    rows->data<float>()[0] = -1;
    EXPECT_EQ(base.data<float>()[16], -1);
  }
  // The slice keeps the base's memory alive.
  EXPECT_EQ(rows->data<float>()[0], -1);
  EXPECT_EQ(rows->data<float>()[31], 47);
  EXPECT_FALSE(rows->RefCountIsOne());
  absl::StatusOr<Tensor> none = rows->Slice(2, 2);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->NumElements(), 0);
}

TEST(TensorTest, SliceOfUnalignedRowsOrStringsIsACopy) {
  Tensor base = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  absl::StatusOr<Tensor> rows = base.Slice(1, 3);  // starts 8 bytes in
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_FALSE(rows->SharesBufferWith(base));
  EXPECT_EQ(rows->DebugString(), "[[3 4]\n [5 6]]");
  EXPECT_TRUE(rows->RefCountIsOne());
  Tensor words = Tensor::Strings({"a", "b", "c"});
  absl::StatusOr<Tensor> first = words.Slice(0, 2);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE(first->SharesBufferWith(words));
  EXPECT_EQ(first->data<std::string>()[1], "b");
}

TEST(TensorTest, SliceOutsideTheRowsIsAnError) {
  Tensor base = Tensor::FromVector<float>({1, 2, 3}, TensorShape({3}));
  for (auto [start, limit] : {std::pair<int64_t, int64_t>{-1, 2}, {2, 1}, {0, 4}}) {
    absl::StatusOr<Tensor> t = base.Slice(start, limit);
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << start << ", " << limit;
    EXPECT_THAT(std::string(t.status().message()), HasSubstr("are not within the 3 rows"));
  }
  absl::StatusOr<Tensor> scalar = Tensor::Scalar<float>(1).Slice(0, 0);
  EXPECT_EQ(scalar.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(scalar.status().message()), HasSubstr("rank 1 or more"));
}

TEST(TensorTest, CreateRejectsPartialAndHugeShapes) {
  EXPECT_EQ(Tensor::Create(DT_FLOAT, TensorShape({-1, 2})).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto huge = Tensor::Create(DT_FLOAT, TensorShape({int64_t{1} << 40}));
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Tensor::Create(DT_RESOURCE, TensorShape()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(TensorTest, FromValuesChecksTheCountAgainstTheShape) {
  absl::StatusOr<Tensor> ok = Tensor::FromValues<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->DebugString(), "[[1. 2. 3.]\n [4. 5. 6.]]");

  absl::StatusOr<Tensor> more = Tensor::FromValues<float>({1, 2, 3, 4, 5}, TensorShape({2, 2}));
  EXPECT_EQ(more.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(more.status().message(),
            "5 value(s) given for a tensor of type float and shape [2,2], which holds 4; "
            "give exactly one value per element");
  absl::StatusOr<Tensor> fewer = Tensor::FromValues<int32_t>({1}, TensorShape({3}));
  EXPECT_EQ(fewer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(fewer.status().message(),
            "1 value(s) given for a tensor of type int32 and shape [3], which holds 3; "
            "give exactly one value per element");
  // The shape is checked before anything is allocated or written.
  absl::StatusOr<Tensor> partial = Tensor::FromValues<float>({1, 2}, TensorShape({-1, 2}));
  EXPECT_EQ(partial.status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<Tensor> huge =
      Tensor::FromValues<float>({1}, TensorShape({int64_t{1} << 32, int64_t{1} << 32, 2}));
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(huge.status().message().find("more than 2^38 elements"), std::string::npos)
      << huge.status();
  absl::StatusOr<Tensor> empty = Tensor::FromValues<float>({}, TensorShape({0, 3}));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->NumElements(), 0);
}

// FromVector is for literals in code: a count that does not fit stops the
// program with the reason, instead of writing past the buffer.
TEST(TensorDeathTest, FromVectorWithTooManyValuesStopsWithTheReason) {
  EXPECT_DEATH(Tensor::FromVector<float>({1, 2, 3, 4, 5}, TensorShape({2, 2})),
               "Tensor::FromVector: 5 value\\(s\\) given for a tensor of type float "
               "and shape \\[2,2\\], which holds 4");
}

TEST(TensorTest, ProtoRoundTripAllTypes) {
  std::vector<Tensor> values = {
      Tensor::Vector<float>({1.5f, -2.f}),
      Tensor::Vector<double>({3.25}),
      Tensor::Vector<int32_t>({7, -8, 9}),
      Tensor::Vector<int64_t>({int64_t{1} << 40}),
      Tensor::Vector<bool>({true, false}),
      Tensor::Vector<half>({half(0.5f), half(-4.f)}),
      Tensor::Scalar<uint8_t>(200),
  };
  for (const Tensor& t : values) {
    TensorProto proto;
    t.AsProto(&proto);
    Tensor back = Tensor::FromProto(proto).value();
    EXPECT_TRUE(back.BitwiseEquals(t)) << t.SummaryString();
  }
}

TEST(TensorTest, ProtoTypedFieldsAndFill) {
  TensorProto proto;
  proto.set_dtype(DT_FLOAT);
  proto.mutable_tensor_shape()->add_dim()->set_size(3);
  proto.add_float_val(2.5f);
  Tensor filled = Tensor::FromProto(proto).value();
  EXPECT_EQ(filled.DebugString(), "[2.5 2.5 2.5]");
  proto.add_float_val(1.f);
  auto bad = Tensor::FromProto(proto);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("holds 2 values; expected 3"),
            std::string::npos);
}

TEST(TensorTest, ProtoWithWrongContentSizeIsAnError) {
  TensorProto proto;
  proto.set_dtype(DT_INT32);
  proto.mutable_tensor_shape()->add_dim()->set_size(2);
  proto.set_tensor_content(std::string(7, '\0'));
  auto bad = Tensor::FromProto(proto);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("has 7 bytes"), std::string::npos);
}

TEST(TensorTest, StringTensorsHoldStringsAndRoundTripThroughProtos) {
  Tensor t = Tensor::Strings({"a", "", std::string("x\0y", 3)});
  EXPECT_EQ(t.dtype(), DT_STRING);
  EXPECT_EQ(t.NumElements(), 3);
  EXPECT_EQ(t.data<std::string>()[2], std::string("x\0y", 3));
  EXPECT_EQ(t.DebugString(), "[b'a' b'' b'x\\x00y']");
  EXPECT_EQ(Tensor::StringScalar("model").DebugString(), "b'model'");

  TensorProto proto;
  t.AsProto(&proto);
  ASSERT_EQ(proto.string_val_size(), 3);
  EXPECT_TRUE(proto.tensor_content().empty());
  absl::StatusOr<Tensor> back = Tensor::FromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->BitwiseEquals(t));
  EXPECT_FALSE(back->BitwiseEquals(Tensor::Strings({"a", "", "xy"})));
}

TEST(TensorTest, StringTensorCopiesAreDeepOnlyWhenAsked) {
  Tensor t = Tensor::Strings({"one", "two"});
  Tensor shared = t;
  Tensor copy = t.DeepCopy();
  t.data<std::string>()[0] = "changed";
  EXPECT_EQ(shared.data<std::string>()[0], "changed");
  EXPECT_EQ(copy.data<std::string>()[0], "one");
  EXPECT_EQ(copy.data<std::string>()[1], "two");
}

TEST(TensorTest, StringProtoFillsItsShapeFromOneValue) {
  TensorProto proto;
  proto.set_dtype(DT_STRING);
  proto.mutable_tensor_shape()->add_dim()->set_size(2);
  proto.add_string_val("");
  absl::StatusOr<Tensor> t = Tensor::FromProto(proto);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->DebugString(), "[b'' b'']");
  proto.add_string_val("a");
  proto.add_string_val("b");
  EXPECT_EQ(Tensor::FromProto(proto).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tensorflow_ipu
