#include "Eigen/Core"
#include "tensorflow_ipu/saved_model/tensor_bundle.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/io/crc32c.h"
#include "tensorflow_ipu/saved_model/table/format.h"
#include "tensorflow_ipu/saved_model/table/table.h"
#include "tensorflow_ipu/saved_model/testing/test_files.h"
#include "tensorflow_ipu/core/status_test_util.h"

namespace tensorflow_ipu {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using saved_model_testing::FreshTestDir;
using saved_model_testing::kHalfPlusTwoVariables;
using saved_model_testing::ReadBytes;
using saved_model_testing::WriteBytes;

class TensorBundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = FreshTestDir("bundle");
  }
  // A copy of the TensorFlow-written bundle that a test may damage.
  std::string CopyOfHalfPlusTwo() {
    const std::string prefix = dir_ + "/variables";
    WriteBytes(BundleIndexPath(prefix), ReadBytes(BundleIndexPath(kHalfPlusTwoVariables)));
    WriteBytes(BundleDataPath(prefix, 0, 1),
               ReadBytes(BundleDataPath(kHalfPlusTwoVariables, 0, 1)));
    return prefix;
  }
  std::string dir_;
};

TEST_F(TensorBundleTest, ReadsTheVariablesTensorFlowWrote) {
  absl::StatusOr<BundleReader> r = BundleReader::Open(kHalfPlusTwoVariables);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->header().num_shards(), 1);
  std::vector<std::string> names;
  for (const auto& [name, entry] : r->entries()) names.push_back(name);
  EXPECT_THAT(names, ElementsAre("a", "a2", "b", "c", "c2"));
  const std::map<std::string, float> expected = {
      {"a", 0.5f}, {"a2", 0.5f}, {"b", 2.f}, {"c", 3.f}, {"c2", 3.f}};
  for (const auto& [name, value] : expected) {
    absl::StatusOr<Tensor> t = r->Read(name);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->dtype(), DT_FLOAT) << name;
    EXPECT_EQ(t->dims(), 0) << name;
    EXPECT_EQ(t->data<float>()[0], value) << name;
  }
  absl::Status missing = r->Read("nope").status();
  EXPECT_EQ(missing.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.message()), HasSubstr("Key nope not found"));
}

TEST_F(TensorBundleTest, ItsIndexBlocksAreSnappyCompressed) {
  // The reason Snappy is a dependency: TensorFlow compressed this file.
  const std::string index = ReadBytes(BundleIndexPath(kHalfPlusTwoVariables));
  absl::StatusOr<table::Footer> footer = table::ReadFooter(index, "index");
  ASSERT_TRUE(footer.ok()) << footer.status();
  absl::StatusOr<std::string> index_block =
      table::ReadBlock(index, footer->index, "index");
  ASSERT_TRUE(index_block.ok()) << index_block.status();
  // The index block's first entry: shared 0, key length, value length,
  // key, then the value: the first data block's handle.
  absl::string_view in = *index_block;
  uint32_t shared, key_length, value_length;
  ASSERT_TRUE(table::GetVarint32(&in, &shared) && table::GetVarint32(&in, &key_length) &&
              table::GetVarint32(&in, &value_length));
  in.remove_prefix(key_length);
  table::BlockHandle data;
  ASSERT_TRUE(table::DecodeBlockHandle(&in, &data));
  const uint8_t type = static_cast<uint8_t>(index[data.offset + data.size]);
  EXPECT_EQ(type, table::kSnappyCompression);
  absl::StatusOr<std::vector<table::TableEntry>> entries = table::ReadTable(index, "index");
  ASSERT_TRUE(entries.ok()) << entries.status();
  EXPECT_EQ(entries->size(), 6u);  // the header and five variables
}

TEST_F(TensorBundleTest, WritesWhatItReadsBackAllTypes) {
  std::map<std::string, Tensor> tensors;
  tensors["f"] = Tensor::FromVector<float>({1.5f, -2.f, 3.25f}, TensorShape({3}));
  tensors["d"] = Tensor::Scalar<double>(1e300);
  tensors["i32"] = Tensor::FromVector<int32_t>({1, 2, 3, 4}, TensorShape({2, 2}));
  tensors["i64"] = Tensor::Scalar<int64_t>(-(int64_t{1} << 40));
  tensors["u8"] = Tensor::Vector<uint8_t>({0, 255});
  tensors["b"] = Tensor::Vector<bool>({true, false});
  tensors["h"] = Tensor::Vector<half>({half(1.f), half(-0.5f)});
  tensors["s"] = Tensor::Strings({"model", "", std::string(300, 'x')});
  tensors["empty"] = Tensor(DT_FLOAT, TensorShape({0, 3}));
  tensors["scope/with/slashes"] = Tensor::Scalar<float>(7.f);
  const std::string prefix = dir_ + "/sub/dir/variables";
  absl::Status s = WriteTensorBundle(prefix, tensors);
  ASSERT_TRUE(s.ok()) << s;
  absl::StatusOr<BundleReader> r = BundleReader::Open(prefix);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->entries().size(), tensors.size());
  for (const auto& [name, t] : tensors) {
    absl::StatusOr<Tensor> back = r->Read(name);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(back->BitwiseEquals(t)) << name << ": " << back->DebugString();
  }
  // No temporary files are left.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_ + "/sub/dir")) {
    EXPECT_THAT(e.path().string(), ::testing::Not(HasSubstr(".tmp-")));
    ++files;
  }
  EXPECT_EQ(files, 2);
}

TEST_F(TensorBundleTest, WritesTheLayoutTensorFlowReads) {
  // The same bytes in the data file as TensorFlow wrote for `a`, and an
  // entry that TensorFlow's reader accepts: masked CRC of the bytes.
  const std::string prefix = dir_ + "/v";
  TF_ASSERT_OK(WriteTensorBundle(prefix, {{"a", Tensor::Scalar<float>(0.5f)}}));
  EXPECT_EQ(ReadBytes(BundleDataPath(prefix, 0, 1)), std::string("\0\0\0\x3f", 4));
  absl::StatusOr<BundleReader> ours = BundleReader::Open(prefix);
  absl::StatusOr<BundleReader> theirs = BundleReader::Open(kHalfPlusTwoVariables);
  ASSERT_TRUE(ours.ok()) << ours.status();
  ASSERT_TRUE(theirs.ok()) << theirs.status();
  BundleEntryProto mine = ours->entries().at("a");
  BundleEntryProto tf = theirs->entries().at("a");
  EXPECT_EQ(mine.crc32c(), tf.crc32c());
  EXPECT_EQ(mine.crc32c(), crc32c::Mask(crc32c::Value(std::string("\0\0\0\x3f", 4))));
  EXPECT_EQ(mine.dtype(), tf.dtype());
  EXPECT_EQ(mine.size(), tf.size());
  EXPECT_EQ(ours->header().version().producer(), theirs->header().version().producer());
}

TEST_F(TensorBundleTest, CorruptDataFailsItsChecksumNamingFileAndTensor) {
  const std::string prefix = CopyOfHalfPlusTwo();
  std::string data = ReadBytes(BundleDataPath(prefix, 0, 1));
  data[9] ^= 1;  // inside b
  WriteBytes(BundleDataPath(prefix, 0, 1), data);
  absl::StatusOr<BundleReader> r = BundleReader::Open(prefix);
  ASSERT_TRUE(r.ok()) << r.status();
  absl::Status s = r->Read("b").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("variables.data-00000-of-00001', tensor 'b' fails its checksum"));
  TF_EXPECT_OK(r->Read("a"));
}

TEST_F(TensorBundleTest, MissingAndTruncatedFilesAreNamed) {
  absl::Status no_index = BundleReader::Open(dir_ + "/none").status();
  EXPECT_EQ(no_index.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(no_index.message()),
              HasSubstr("TensorBundle index '" + dir_ + "/none.index' is missing"));

  const std::string prefix = CopyOfHalfPlusTwo();
  std::string data = ReadBytes(BundleDataPath(prefix, 0, 1));
  WriteBytes(BundleDataPath(prefix, 0, 1), data.substr(0, 10));
  absl::StatusOr<BundleReader> r = BundleReader::Open(prefix);
  ASSERT_TRUE(r.ok()) << r.status();
  absl::Status cut = r->Read("c").status();
  EXPECT_EQ(cut.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(cut.message()), HasSubstr("the file is truncated"));

  std::filesystem::remove(BundleDataPath(prefix, 0, 1));
  absl::Status gone = r->Read("a").status();
  EXPECT_EQ(gone.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(gone.message()),
              HasSubstr("variables.data-00000-of-00001' (shard 0 of 1, holding "
                        "tensor 'a') is missing"));

  const std::string index = ReadBytes(BundleIndexPath(prefix));
  WriteBytes(BundleIndexPath(prefix), index.substr(0, index.size() - 20));
  absl::Status truncated = BundleReader::Open(prefix).status();
  EXPECT_EQ(truncated.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(truncated.message()),
              HasSubstr("TensorBundle index '" + prefix + ".index'"));
}

TEST_F(TensorBundleTest, AnIndexWithoutHeaderOrWithBadEntriesIsRefused) {
  const std::string prefix = dir_ + "/v";
  table::TableBuilder no_header;
  TF_ASSERT_OK(no_header.Add("a", ""));
  WriteBytes(BundleIndexPath(prefix), no_header.Finish());
  absl::Status s = BundleReader::Open(prefix).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(s.message()), HasSubstr("has no header"));

  BundleHeaderProto header;
  header.set_num_shards(1);
  BundleEntryProto entry;
  entry.set_dtype(DT_FLOAT);
  entry.mutable_shape()->add_dim()->set_size(2);
  entry.set_size(4);  // two floats need 8
  table::TableBuilder b;
  TF_ASSERT_OK(b.Add("", header.SerializeAsString()));
  TF_ASSERT_OK(b.Add("w", entry.SerializeAsString()));
  WriteBytes(BundleIndexPath(prefix), b.Finish());
  s = BundleReader::Open(prefix).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("the entry of tensor 'w' has 4 bytes for a float tensor of shape [2]"));
}

TEST_F(TensorBundleTest, MergeMakesShardsOfOneBundle) {
  const std::string p0 = dir_ + "/tmp_part/part-00000-of-00002";
  const std::string p1 = dir_ + "/tmp_part/part-00001-of-00002";
  TF_ASSERT_OK(WriteTensorBundle(p0, {{"x", Tensor::Scalar<float>(1.f)}}));
  TF_ASSERT_OK(WriteTensorBundle(p1, {{"y", Tensor::Strings({"s"})}}));
  absl::Status s = MergeTensorBundles({p0, p1}, dir_ + "/model", true);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/tmp_part"));
  absl::StatusOr<BundleReader> r = BundleReader::Open(dir_ + "/model");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->header().num_shards(), 2);
  EXPECT_EQ(r->entries().at("y").shard_id(), 1);
  absl::StatusOr<Tensor> y = r->Read("y");
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->DebugString(), "[b's']");
  absl::StatusOr<Tensor> x = r->Read("x");
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(x->data<float>()[0], 1.f);
}

}  // namespace
}  // namespace tensorflow_ipu
