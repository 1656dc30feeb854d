// Bad input data: missing or corrupt IDX files (raw and gzip-compressed),
// image and label files that disagree, bad batch and shuffle sizes, and a
// dataset whose size does not divide into batches, where drop_remainder
// decides between a static and a dynamic batch shape. Each is an error
// naming the file, the stage or the tensor; good data still loads and runs
// afterwards.
#include <zlib.h>

#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/data/dataset.h"
#include "tensorflow_ipu/io/idx.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

using ::testing::HasSubstr;

// Two 2x3 images of unsigned bytes, as an IDX file.
std::string ImagesIdx() {
  std::string b = {0, 0, 0x08, 3, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 3};
  for (int i = 0; i < 12; ++i) b.push_back(static_cast<char>(i));
  return b;
}

// `n` labels, as an IDX file.
std::string LabelsIdx(int n) {
  std::string b = {0, 0, 0x08, 1, 0, 0, 0, static_cast<char>(n)};
  for (int i = 0; i < n; ++i) b.push_back(static_cast<char>(i));
  return b;
}

std::string Gzip(const std::string& data) {
  const std::string path = ::testing::TempDir() + "/gzip_scratch.gz";
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, data.data(), static_cast<unsigned>(data.size()));
  gzclose(f);
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string WriteFile(const std::string& name, const std::string& data) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
  return path;
}

// A good file still reads, whatever failed before.
void ExpectGoodFilesStillRead() {
  absl::StatusOr<Tensor> raw =
      ReadIdxFile(WriteFile("good-idx3-ubyte", ImagesIdx()));
  ASSERT_TRUE(raw.ok()) << raw.status();
  EXPECT_EQ(raw->shape(), TensorShape({2, 2, 3}));
  absl::StatusOr<Tensor> gz =
      ReadIdxFile(WriteFile("good-idx3-ubyte.gz", Gzip(ImagesIdx())));
  ASSERT_TRUE(gz.ok()) << gz.status();
  EXPECT_TRUE(gz->BitwiseEquals(*raw));
}

void ExpectReadFails(const std::string& path, absl::StatusCode code,
                     const std::string& words) {
  absl::StatusOr<Tensor> r = ReadIdxFile(path);
  EXPECT_EQ(r.status().code(), code) << r.status();
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("'" + path + "'"));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr(words));
  ExpectGoodFilesStillRead();
}

TEST(BadIdxFileTest, MissingFiles) {
  const std::string dir = ::testing::TempDir();
  ExpectReadFails(dir + "/no-such-idx3-ubyte", absl::StatusCode::kNotFound,
                  "does not exist");
  ExpectReadFails(dir + "/no-such-idx3-ubyte.gz", absl::StatusCode::kNotFound,
                  "does not exist");
}

TEST(BadIdxFileTest, WrongMagicNumber) {
  std::string data = ImagesIdx();
  data[1] = 0x08;
  ExpectReadFails(WriteFile("magic-idx3-ubyte", data),
                  absl::StatusCode::kInvalidArgument,
                  "is not a valid IDX file: the magic number does not start "
                  "with two zero bytes");
  // A gzip file holding text (zlib reads non-gzip data as it is).
  ExpectReadFails(WriteFile("text-idx3-ubyte.gz", "<html>Not found</html>"),
                  absl::StatusCode::kInvalidArgument,
                  "the magic number does not start with two zero bytes");
}

TEST(BadIdxFileTest, UnsupportedElementType) {
  std::string data = ImagesIdx();
  data[2] = 0x0E;  // 0x0E is double in the IDX format
  ExpectReadFails(WriteFile("double-idx3-ubyte", data),
                  absl::StatusCode::kInvalidArgument,
                  "element type 0xe is not supported (ubyte 0x08, int 0x0C, "
                  "float 0x0D)");
}

TEST(BadIdxFileTest, TruncatedData) {
  std::string data = ImagesIdx();
  data.resize(data.size() - 5);
  ExpectReadFails(WriteFile("short-idx3-ubyte", data),
                  absl::StatusCode::kInvalidArgument,
                  "dimensions [2,2,3] need 12 bytes of data but it has 7");
  ExpectReadFails(WriteFile("header-idx3-ubyte", data.substr(0, 10)),
                  absl::StatusCode::kInvalidArgument,
                  "it ends inside its header");
  ExpectReadFails(WriteFile("empty-idx3-ubyte", ""),
                  absl::StatusCode::kInvalidArgument,
                  "shorter than its 4-byte magic number");
}

TEST(BadIdxFileTest, DimensionsTooLargeToAllocate) {
  // 0x7FFFFFFF^2 elements: refused from the header, not allocated.
  std::string data = {0, 0, 0x08, 2, 0x7F, -1, -1, -1, 0x7F, -1, -1, -1, 1};
  ExpectReadFails(WriteFile("huge-idx2-ubyte", data),
                  absl::StatusCode::kInvalidArgument,
                  "is not a valid IDX file: ");
}

TEST(BadIdxFileTest, CorruptGzipStream) {
  const std::string good = Gzip(ImagesIdx());
  // Cut in the middle of the compressed data.
  ExpectReadFails(WriteFile("cut-idx3-ubyte.gz", good.substr(0, good.size() / 2)),
                  absl::StatusCode::kDataLoss, "is not a valid gzip stream");
  // A flipped bit in the CRC-32 trailer.
  std::string bad_crc = good;
  bad_crc[bad_crc.size() - 6] ^= 0x10;
  ExpectReadFails(WriteFile("crc-idx3-ubyte.gz", bad_crc),
                  absl::StatusCode::kDataLoss,
                  "is not a valid gzip stream: incorrect data check");
  // Garbage after a valid gzip header.
  ExpectReadFails(WriteFile("junk-idx3-ubyte.gz",
                            good.substr(0, 10) + std::string(40, '\xff')),
                  absl::StatusCode::kDataLoss, "is not a valid gzip stream");
}

TEST(BadIdxFileTest, ImagesAndLabelsThatDisagree) {
  Tensor images = ParseIdx(ImagesIdx(), "images").value();
  Tensor labels = ParseIdx(LabelsIdx(3), "labels").value();
  auto ds = data::Dataset::FromTensorSlices({images, labels});
  EXPECT_EQ(ds.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(ds.status().message()),
              HasSubstr("component 1 has 3 rows but component 0 has 2"));
  EXPECT_TRUE(data::Dataset::FromTensorSlices(
                  {images, ParseIdx(LabelsIdx(2), "labels").value()})
                  .ok());
}

// Ten examples of two floats: x[i] = [i, 10 i].
data::Dataset Ten() {
  std::vector<float> x;
  for (int i = 0; i < 10; ++i) {
    x.push_back(i);
    x.push_back(10 * i);
  }
  return data::Dataset::FromTensorSlices(
             {Tensor::FromVector<float>(x, TensorShape({10, 2}))})
      .value();
}

TEST(BadDatasetTest, BatchAndShuffleSizesBelowOne) {
  for (int64_t size : {0, -4}) {
    absl::StatusOr<std::unique_ptr<data::Iterator>> batch =
        Ten().Batch(size, true).Repeat().MakeIterator();
    EXPECT_EQ(batch.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(batch.status().message()),
                HasSubstr(absl::StrCat("Batch: batch_size is ", size,
                                       "; it must be at least 1")));
    absl::StatusOr<std::unique_ptr<data::Iterator>> shuffle =
        Ten().Shuffle(size, 1).Batch(2, true).MakeIterator();
    EXPECT_EQ(shuffle.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(shuffle.status().message()),
                HasSubstr(absl::StrCat("Shuffle: buffer_size is ", size,
                                       "; it must be at least 1")));
  }
  // The first error wins.
  EXPECT_THAT(std::string(Ten().Shuffle(0, 1).Batch(0, true).status().message()),
              HasSubstr("Shuffle:"));
  EXPECT_EQ(Ten().Batch(0, false).Cardinality(), data::Dataset::kUnknown);
  // The dataset it was built from is untouched.
  data::Dataset ten = Ten();
  EXPECT_FALSE(ten.Batch(0, false).status().ok());
  EXPECT_EQ(ten.Batch(5, false).Cardinality(), 2);
}

// Rows asked of an iterator directly (what Batch does): none or fewer than
// none is an error naming the number, not an empty answer that would read
// as the end of the data; far more than there are gives what is left, on
// every path (slices, shuffled slices, elements stacked one by one); the
// iterator goes on after the error.
TEST(BadDatasetTest, RowsAskedBeyondReason) {
  const data::Dataset copies =
      Ten().Map([](const data::Element& e) -> absl::StatusOr<data::Element> { return e; });
  for (const data::Dataset& ds : {Ten(), Ten().Shuffle(4, 1), copies}) {
    std::unique_ptr<data::Iterator> it = ds.MakeIterator().value();
    data::Element rows;
    int64_t n = -1;
    for (int64_t bad : {int64_t{0}, int64_t{-4}, std::numeric_limits<int64_t>::min()}) {
      absl::Status status = it->GetNextRows(bad, &rows, &n);
      EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
      EXPECT_THAT(std::string(status.message()),
                  HasSubstr(absl::StrCat("max_rows is ", bad, "; it must be at least 1")));
    }
    EXPECT_TRUE(rows.empty()) << "an error left rows behind";
    absl::Status status = it->GetNextRows(std::numeric_limits<int64_t>::max(), &rows, &n);
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_EQ(n, 10);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].shape(), TensorShape({10, 2}));
    status = it->GetNextRows(3, &rows, &n);
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_EQ(n, 0) << "the data had ended";
  }
}

// A batch that could never fit in the host's memory, over data that never
// ends: an error naming the batch and the element size before anything is
// collected (it used to collect until the host ran out of memory), for
// 2^40 and int64's largest; the same dataset batches normally afterwards.
TEST(BadDatasetTest, BatchLargerThanTheMachinesMemory) {
  const data::Dataset forever = Ten().Repeat();
  for (int64_t huge : {int64_t{1} << 40, std::numeric_limits<int64_t>::max()}) {
    for (bool drop : {false, true}) {
      std::unique_ptr<data::Iterator> it = forever.Batch(huge, drop).MakeIterator().value();
      data::Element e;
      bool end = false;
      absl::Status status = it->GetNext(&e, &end);
      EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
      EXPECT_THAT(std::string(status.message()),
                  HasSubstr(absl::StrCat("Batch: a batch of ", huge,
                                         " elements of 8 bytes each needs more than the ")));
      EXPECT_THAT(std::string(status.message()), HasSubstr("use a smaller batch_size"));
      EXPECT_TRUE(e.empty());
    }
  }
  std::unique_ptr<data::Iterator> it = forever.Batch(32, true).MakeIterator().value();
  data::Element e;
  bool end = true;
  absl::Status status = it->GetNext(&e, &end);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_FALSE(end);
  EXPECT_EQ(e[0].shape(), TensorShape({32, 2}));
}

// The stages TF1 programs build their infeeds with, given bad arguments:
// each is an error from MakeIterator naming the stage and the numbers, and
// the dataset it was built from still works.
TEST(BadDatasetTest, RangeShardZipAndMapArguments) {
  auto code_and_message = [](const data::Dataset& ds) {
    absl::StatusOr<std::unique_ptr<data::Iterator>> it = ds.MakeIterator();
    EXPECT_EQ(it.status().code(), absl::StatusCode::kInvalidArgument) << it.status();
    return std::string(it.status().message());
  };
  EXPECT_THAT(code_and_message(data::Dataset::Range(0, 10, 0)),
              HasSubstr("Range: step must not be 0"));
  EXPECT_THAT(code_and_message(Ten().Shard(-1, 0)),
              HasSubstr("number of shards must be greater than zero (currently num_shards = -1)"));
  EXPECT_THAT(code_and_message(Ten().Shard(4, 4)),
              HasSubstr("index must be between 0 and 3 (currently index = 4)"));
  EXPECT_THAT(code_and_message(data::Dataset::Zip({})), HasSubstr("Zip needs at least one"));
  EXPECT_THAT(code_and_message(Ten().Map(nullptr)), HasSubstr("Map: the function is empty"));
  EXPECT_THAT(code_and_message(Ten().Map([](const data::Element&)
                                             -> absl::StatusOr<data::Element> {
                return absl::InvalidArgumentError("no");
              })),
              HasSubstr("Map: the function failed on the first element: no"));
  // Counts far beyond the data are fine.
  EXPECT_EQ(Ten().Take(int64_t{1} << 62).Cardinality(), 10);
  EXPECT_EQ(Ten().Skip(int64_t{1} << 62).Cardinality(), 0);
  EXPECT_EQ(Ten().Shard(int64_t{1} << 62, 3).Cardinality(), 1);
  const int64_t most = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(Ten().Shard(most, 0).Cardinality(), 1);
  auto it = Ten().Shard(most, 9).MakeIterator();
  ASSERT_TRUE(it.ok()) << it.status();
  data::Element e;
  bool end = false;
  for (int i = 0; i < 2; ++i) {
    absl::Status status = (*it)->GetNext(&e, &end);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_TRUE(end);  // element 9, then the end
  EXPECT_EQ(Ten().Batch(5, false).Cardinality(), 2);
}

class BatchRemainderTest : public testing::IpuTest {};

// 10 examples in batches of 4: without drop_remainder the last batch has 2
// rows and the batch shape is dynamic; the IPU needs static shapes.
TEST_F(BatchRemainderTest, RemainderBatchDoesNotFitAStaticPlaceholder) {
  Configure(1);
  data::Dataset kept = Ten().Batch(4, /*drop_remainder=*/false);
  EXPECT_EQ(kept.Cardinality(), 3);
  EXPECT_EQ(kept.output_shapes()[0], TensorShape({-1, 2}));

  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithDevice("cpu").WithOpName("x"), DT_FLOAT,
                            ops::Placeholder::Shape({4, 2}));
  auto total = ops::Sum(ipu::scopes::ipu_scope(root, "/device:IPU:0"), x,
                        ops::Const(root.WithDevice("cpu"), {0, 1}));
  ClientSession session(root);
  auto it = kept.MakeIterator().value();
  std::vector<float> sums;
  absl::Status last;
  for (int step = 0; step < 3; ++step) {
    data::Element batch;
    bool end = false;
    {
      absl::Status status = it->GetNext(&batch, &end);
      ASSERT_TRUE(status.ok()) << status;
    }
    ASSERT_FALSE(end);
    std::vector<Tensor> out;
    last = session.Run({{x, batch[0]}}, {total}, &out);
    if (last.ok()) sums.push_back(out[0].values<float>()[0]);
  }
  EXPECT_EQ(sums, (std::vector<float>{66, 242}));  // the two full batches
  EXPECT_EQ(last.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(last.message()),
              HasSubstr("Feed for 'x:0' has shape [2,2], which is not "
                        "compatible with the shape [4,2] of 'x'"));
}

TEST_F(BatchRemainderTest, DynamicBatchShapeOnTheIpuSaysDropRemainder) {
  Configure(1);
  data::Dataset kept = Ten().Batch(4, /*drop_remainder=*/false);
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithDevice("cpu").WithOpName("x"), DT_FLOAT,
                            ops::Placeholder::Shape(kept.output_shapes()[0]));
  auto neg = ops::Neg(ipu::scopes::ipu_scope(root, "/device:IPU:0"), x);
  ClientSession session(root);
  data::Element batch;
  bool end = false;
  auto it = kept.MakeIterator().value();
  {
    absl::Status status = it->GetNext(&batch, &end);
    ASSERT_TRUE(status.ok()) << status;
  }
  std::vector<Tensor> out;
  absl::Status s = session.Run({{x, batch[0]}}, {neg}, &out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("The shape of tensor 'x:0' is [?,2], which is not "
                        "fully defined"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("drop_remainder=True"));

  // With drop_remainder every batch is [4,2]: two batches, all on the IPU.
  data::Dataset dropped = Ten().Batch(4, /*drop_remainder=*/true);
  EXPECT_EQ(dropped.Cardinality(), 2);
  auto y = ops::Placeholder(root.WithDevice("cpu").WithOpName("y"), DT_FLOAT,
                            ops::Placeholder::Shape(dropped.output_shapes()[0]));
  auto neg_y = ops::Neg(ipu::scopes::ipu_scope(root, "/device:IPU:0"), y);
  auto it2 = dropped.MakeIterator().value();
  int batches = 0;
  while (true) {
    {
      absl::Status status = it2->GetNext(&batch, &end);
      ASSERT_TRUE(status.ok()) << status;
    }
    if (end) break;
    {
      absl::Status status = session.Run({{y, batch[0]}}, {neg_y}, &out);
      ASSERT_TRUE(status.ok()) << status;
    }
    EXPECT_EQ(out[0].dim_size(0), 4);
    ++batches;
  }
  EXPECT_EQ(batches, 2);
  EXPECT_EQ(out[0].DebugString(),
            "[[ -4. -40.]\n [ -5. -50.]\n [ -6. -60.]\n [ -7. -70.]]");
}

}  // namespace
}  // namespace tensorflow_ipu
