#include "tensorflow_ipu/data/dataset.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/data/batch_memory_limit.h"

namespace tensorflow_ipu {
namespace data {
namespace {

using ::testing::HasSubstr;

// Ten examples: x[i] = [i, 10 i], y[i] = i.
Dataset Ten() {
  std::vector<float> x;
  std::vector<int32_t> y;
  for (int i = 0; i < 10; ++i) {
    x.push_back(i);
    x.push_back(10 * i);
    y.push_back(i);
  }
  return Dataset::FromTensorSlices({Tensor::FromVector<float>(x, TensorShape({10, 2})),
                                    Tensor::Vector<int32_t>(y)})
      .value();
}

std::vector<Element> All(const Dataset& ds, int limit = 1000) {
  auto it = ds.MakeIterator().value();
  std::vector<Element> out;
  for (int i = 0; i < limit; ++i) {
    Element e;
    bool end = false;
    {
      absl::Status status = it->GetNext(&e, &end);
      EXPECT_TRUE(status.ok()) << status;
    }
    if (end) break;
    out.push_back(e);
  }
  return out;
}

std::vector<int32_t> Labels(const std::vector<Element>& elements) {
  std::vector<int32_t> labels;
  for (const Element& e : elements) {
    for (int32_t v : e[1].values<int32_t>()) labels.push_back(v);
  }
  return labels;
}

TEST(DatasetTest, SlicesInOrder) {
  std::vector<Element> all = All(Ten());
  ASSERT_EQ(all.size(), 10u);
  EXPECT_EQ(all[3][0].DebugString(), "[ 3. 30.]");
  EXPECT_EQ(all[3][1].DebugString(), "3");
  EXPECT_EQ(Ten().Cardinality(), 10);
  EXPECT_EQ(Ten().output_shapes()[0], TensorShape({2}));
}

TEST(DatasetTest, BatchWithAndWithoutRemainder) {
  std::vector<Element> kept = All(Ten().Batch(4, false));
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[2][0].shape(), TensorShape({2, 2}));
  EXPECT_EQ(kept[0][1].DebugString(), "[0 1 2 3]");
  std::vector<Element> dropped = All(Ten().Batch(4, true));
  EXPECT_EQ(dropped.size(), 2u);
  EXPECT_EQ(Ten().Batch(4, true).Cardinality(), 2);
  EXPECT_EQ(Ten().Batch(4, false).Cardinality(), 3);
  EXPECT_EQ(Ten().Batch(4, true).output_shapes()[0], TensorShape({4, 2}));
  EXPECT_EQ(Ten().Batch(4, false).output_shapes()[1], TensorShape({-1}));
}

// A batch of slices is copied as one block of the sliced tensors; it must be
// what stacking the slices one by one gives (an identity Map hides the
// slices from Batch, so that path is the element by element one), also
// for the last, partial batch and after the data ends.
TEST(DatasetTest, BatchOfSlicesIsTheStackOfTheSlices) {
  const Dataset identity = Ten().Map([](const Element& e) -> absl::StatusOr<Element> {
    return e;
  });
  for (const bool drop : {false, true}) {
    std::vector<Element> block = All(Ten().Batch(3, drop));
    std::vector<Element> stacked = All(identity.Batch(3, drop));
    ASSERT_EQ(block.size(), drop ? 3u : 4u);
    ASSERT_EQ(block.size(), stacked.size());
    for (size_t b = 0; b < block.size(); ++b) {
      for (size_t c = 0; c < 2; ++c) {
        EXPECT_EQ(block[b][c].shape(), stacked[b][c].shape()) << "batch " << b;
        EXPECT_EQ(block[b][c].DebugString(), stacked[b][c].DebugString()) << "batch " << b;
      }
    }
  }
  std::vector<Element> batches = All(Ten().Batch(4, false));
  EXPECT_EQ(batches[1][0].DebugString(), "[[ 4. 40.]\n [ 5. 50.]\n [ 6. 60.]\n [ 7. 70.]]");
  EXPECT_EQ(batches[2][1].DebugString(), "[8 9]");

  // Rows asked of an iterator directly: what is left, then nothing.
  auto it = Ten().MakeIterator().value();
  Element rows;
  int64_t n = -1;
  absl::Status status = it->GetNextRows(7, &rows, &n);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(n, 7);
  EXPECT_EQ(rows[1].DebugString(), "[0 1 2 3 4 5 6]");
  status = it->GetNextRows(7, &rows, &n);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(n, 3);
  EXPECT_EQ(rows[1].DebugString(), "[7 8 9]");
  status = it->GetNextRows(7, &rows, &n);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(n, 0);
  EXPECT_EQ(rows[1].DebugString(), "[7 8 9]") << "untouched at the end";
}

// A batch of slices in order is the component's rows without a copy where
// they start 64-byte aligned (Tensor::Slice); otherwise, and after a
// shuffle, a copy. The values are the same either way.
TEST(DatasetTest, InOrderBatchesOfAlignedRowsShareTheComponent) {
  Tensor images(DT_FLOAT, TensorShape({6, 16}));  // 64-byte rows
  for (int i = 0; i < 96; ++i) images.data<float>()[i] = static_cast<float>(i);
  Tensor labels = Tensor::FromVector<int32_t>({0, 1, 2, 3, 4, 5}, TensorShape({6}));
  absl::StatusOr<Dataset> ds = Dataset::FromTensorSlices({images, labels});
  ASSERT_TRUE(ds.ok()) << ds.status();
  std::vector<Element> batches = All(ds->Batch(2, true));
  ASSERT_EQ(batches.size(), 3u);
  for (size_t b = 0; b < 3; ++b) {
    EXPECT_TRUE(batches[b][0].SharesBufferWith(images)) << b;
    EXPECT_EQ(batches[b][0].data<float>(), images.data<float>() + 32 * b) << b;
    EXPECT_FALSE(batches[b][0].RefCountIsOne()) << b;
    EXPECT_EQ(batches[b][0].shape(), TensorShape({2, 16}));
    // Labels rows are 4 bytes: only the first batch starts aligned.
    EXPECT_EQ(batches[b][1].SharesBufferWith(labels), b == 0) << b;
    EXPECT_EQ(batches[b][1].DebugString(), absl::StrCat("[", 2 * b, " ", 2 * b + 1, "]"));
  }
  std::vector<Element> shuffled = All(ds->Shuffle(6, /*seed=*/7).Batch(3, true));
  ASSERT_EQ(shuffled.size(), 2u);
  std::vector<int> seen;
  for (const Element& e : shuffled) {
    EXPECT_FALSE(e[0].SharesBufferWith(images));
    for (int r = 0; r < 3; ++r) {
      const int label = e[1].data<int32_t>()[r];
      seen.push_back(label);
      EXPECT_EQ(e[0].data<float>()[16 * r], 16.f * label) << "row " << r;
    }
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

// Strings are copied as strings when sliced and batched (long ones too,
// beyond any small-string buffer), not as bytes.
TEST(DatasetTest, StringsSliceAndBatchAsStrings) {
  const std::string long_name(100, 'x');
  auto ds = Dataset::FromTensorSlices({Tensor::Strings({"a", "bb", long_name})});
  ASSERT_TRUE(ds.ok()) << ds.status();
  std::vector<Element> slices = All(*ds);
  ASSERT_EQ(slices.size(), 3u);
  EXPECT_EQ(slices[1][0].data<std::string>()[0], "bb");
  EXPECT_EQ(slices[2][0].data<std::string>()[0], long_name);
  std::vector<Element> batches = All(ds->Batch(2, false));
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0][0].shape(), TensorShape({2}));
  EXPECT_EQ(batches[0][0].data<std::string>()[0], "a");
  EXPECT_EQ(batches[0][0].data<std::string>()[1], "bb");
  EXPECT_EQ(batches[1][0].data<std::string>()[0], long_name);
}

TEST(DatasetTest, ShuffleIsAPermutationAndSeeded) {
  std::vector<int32_t> a = Labels(All(Ten().Shuffle(10, 7)));
  std::vector<int32_t> b = Labels(All(Ten().Shuffle(10, 7)));
  std::vector<int32_t> c = Labels(All(Ten().Shuffle(10, 8)));
  EXPECT_EQ(a, b);  // same seed, same order
  EXPECT_NE(a, c);
  std::vector<int32_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, Labels(All(Ten())));
  EXPECT_NE(a, Labels(All(Ten())));
}

// Shuffled slices keep row numbers in the buffer and copy each row once,
// into its batch; the order and the values must be those of shuffling
// copies of the rows (an identity Map hides the slices from Shuffle), for
// a small buffer and a whole-dataset one, one by one and batched.
TEST(DatasetTest, ShuffledSlicesAreTheShuffledRows) {
  const Dataset rows = Ten().Map([](const Element& e) -> absl::StatusOr<Element> { return e; });
  for (const int64_t buffer : {int64_t{3}, int64_t{10}}) {
    const std::vector<Element> direct = All(Ten().Shuffle(buffer, 5));
    const std::vector<Element> copied = All(rows.Shuffle(buffer, 5));
    ASSERT_EQ(direct.size(), 10u);
    ASSERT_EQ(copied.size(), 10u);
    for (size_t i = 0; i < 10; ++i) {
      EXPECT_EQ(direct[i][0].DebugString(), copied[i][0].DebugString()) << "element " << i;
      EXPECT_EQ(direct[i][1].DebugString(), copied[i][1].DebugString()) << "element " << i;
    }
    const std::vector<Element> batches = All(Ten().Shuffle(buffer, 5).Batch(4, false));
    const std::vector<Element> stacked = All(rows.Shuffle(buffer, 5).Batch(4, false));
    ASSERT_EQ(batches.size(), 3u);
    ASSERT_EQ(stacked.size(), 3u);
    for (size_t b = 0; b < 3; ++b) {
      EXPECT_EQ(batches[b][0].DebugString(), stacked[b][0].DebugString()) << "batch " << b;
      EXPECT_EQ(batches[b][1].DebugString(), stacked[b][1].DebugString()) << "batch " << b;
    }
  }
  EXPECT_NE(Labels(All(Ten().Shuffle(10, 5))), Labels(All(Ten())));
}

TEST(DatasetTest, RepeatReshufflesEachEpoch) {
  std::vector<int32_t> two = Labels(All(Ten().Shuffle(10, 3).Repeat(2)));
  ASSERT_EQ(two.size(), 20u);
  std::vector<int32_t> first(two.begin(), two.begin() + 10);
  std::vector<int32_t> second(two.begin() + 10, two.end());
  EXPECT_NE(first, second);
  std::sort(second.begin(), second.end());
  EXPECT_EQ(second, Labels(All(Ten())));
  EXPECT_EQ(Ten().Repeat(3).Cardinality(), 30);
  EXPECT_EQ(Ten().Repeat().Cardinality(), Dataset::kInfinite);
  EXPECT_EQ(All(Ten().Repeat(), 55).size(), 55u);
}

TEST(DatasetTest, PrefetchKeepsOrderAndEnds) {
  std::vector<int32_t> direct = Labels(All(Ten().Shuffle(5, 1).Batch(3, true)));
  std::vector<int32_t> prefetched =
      Labels(All(Ten().Shuffle(5, 1).Batch(3, true).Prefetch(2)));
  EXPECT_EQ(direct.size(), 9u);
  // A new pipeline with the same seed: the shuffle node of each chain is
  // separate, so both see their first epoch.
  EXPECT_EQ(direct, prefetched);
  // Destroying an iterator whose producer is blocked on a full queue.
  auto it = Ten().Repeat().Prefetch(2).MakeIterator().value();
  Element e;
  bool end;
  {
    absl::Status status = it->GetNext(&e, &end);
    ASSERT_TRUE(status.ok()) << status;
  }
  it.reset();
}

TEST(DatasetTest, BadSlices) {
  auto mismatch = Dataset::FromTensorSlices(
      {Tensor::Vector<float>({1, 2, 3}), Tensor::Vector<int32_t>({1, 2})});
  EXPECT_EQ(mismatch.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(mismatch.status().message()),
              HasSubstr("component 1 has 2 rows but component 0 has 3"));
  auto scalar = Dataset::FromTensorSlices({Tensor::Scalar<float>(1)});
  EXPECT_EQ(scalar.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(Dataset::FromTensorSlices({}).ok());
}

TEST(DatasetTest, EmptyRepeatedForeverEnds) {
  Dataset empty = Dataset::FromTensorSlices({Tensor(DT_FLOAT, TensorShape({0, 2}))}).value();
  EXPECT_TRUE(All(empty.Repeat()).empty());
}

// A batch that could never fit in memory is an error before anything is
// collected (not a process killed while collecting it); a huge batch_size
// over a finite dataset still takes the whole dataset, and a reasonable
// batch of the same pipeline still works after the error.
TEST(DatasetTest, BatchLargerThanMemoryIsAnError) {
  const int64_t huge = int64_t{1} << 40;
  auto it = Ten().Repeat().Batch(huge, false).MakeIterator().value();
  Element e;
  bool end = false;
  absl::Status s = it->GetNext(&e, &end);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("Batch: a batch of 1099511627776 elements of 12 bytes each needs more "
                        "than the "));
  EXPECT_THAT(std::string(s.message()),
              HasSubstr(" bytes a batch may use (half of this machine's memory); use a smaller "
                        "batch_size"));

  std::vector<Element> whole = All(Ten().Batch(huge, false));
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_EQ(whole[0][0].shape(), TensorShape({10, 2}));

  std::vector<Element> fours = All(Ten().Repeat().Batch(4, false), 3);
  ASSERT_EQ(fours.size(), 3u);
  EXPECT_THAT(Labels(fours), ::testing::ElementsAre(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1));
}

// Elements whose shape is unknown until they come (batches of batches
// without drop_remainder) are counted while they are collected: the batch
// stops with an error at the limit (lowered here to 1,000 bytes, so the
// test does not need the memory), not when the host runs out.
TEST(DatasetTest, BatchOfUnknownShapesStopsAtTheMemoryLimit) {
  struct LowLimit {
    LowLimit() { internal::SetMaxBatchBytesForTest(1000); }
    ~LowLimit() { internal::SetMaxBatchBytesForTest(0); }  // also after a failed ASSERT
  } low_limit;
  Dataset fours = Ten().Repeat().Batch(4, false);
  ASSERT_EQ(fours.output_shapes()[0].dim_size(0), -1);
  auto it = fours.Batch(int64_t{1} << 40, false).MakeIterator().value();
  Element e;
  bool end = false;
  absl::Status s = it->GetNext(&e, &end);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted) << s;
  // Each element: [4, 2] floats and [4] ints (48 bytes) and two Tensor
  // objects; the limit passes on the element that brings the sum over it.
  const uint64_t row = 48 + 2 * sizeof(Tensor);
  const uint64_t n = 1000 / row + 1;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr(absl::StrCat("Batch: collecting a batch of 1099511627776 elements passed "
                                     "the 1000 bytes a batch may use (half of this machine's "
                                     "memory) after ", n, " elements of ", row, " bytes")));
  // Below the limit the same pipeline batches as before.
  std::vector<Element> two = All(fours.Batch(2, false), 1);
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(two[0][0].shape(), TensorShape({2, 4, 2}));
}

}  // namespace
}  // namespace data
}  // namespace tensorflow_ipu
