#include "tensorflow_ipu/io/idx.h"

#include <zlib.h>

#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace {

using ::testing::HasSubstr;

// An IDX file of 2 images of 2x3 unsigned bytes.
std::string ImagesIdx() {
  std::string b = {0, 0, 0x08, 3, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 3};
  for (int i = 0; i < 12; ++i) b.push_back(static_cast<char>(i * 20));
  return b;
}

void WriteRaw(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
}

void WriteGz(const std::string& path, const std::string& data) {
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, data.data(), static_cast<unsigned>(data.size()));
  gzclose(f);
}

TEST(IdxTest, ParsesUnsignedBytes) {
  Tensor t = ParseIdx(ImagesIdx(), "mem").value();
  EXPECT_EQ(t.dtype(), DT_UINT8);
  EXPECT_EQ(t.shape(), TensorShape({2, 2, 3}));
  EXPECT_EQ(t.data<uint8_t>()[11], 220);
}

TEST(IdxTest, ParsesBigEndianInts) {
  std::string b = {0, 0, 0x0C, 1, 0, 0, 0, 2, 0, 0, 0x01, 0x02, 0x7F, 0, 0, 0};
  b[13] = b[14] = b[15] = static_cast<char>(0xFF);
  Tensor t = ParseIdx(b, "mem").value();
  EXPECT_EQ(t.dtype(), DT_INT32);
  EXPECT_EQ(t.data<int32_t>()[0], 0x0102);
  EXPECT_EQ(t.data<int32_t>()[1], 0x7FFFFFFF);
}

TEST(IdxTest, ReadsRawAndGzipFiles) {
  const std::string raw = ::testing::TempDir() + "/images-idx3-ubyte";
  const std::string gz = raw + ".gz";
  WriteRaw(raw, ImagesIdx());
  WriteGz(gz, ImagesIdx());
  Tensor a = ReadIdxFile(raw).value();
  Tensor b = ReadIdxFile(gz).value();
  EXPECT_TRUE(a.BitwiseEquals(b));
}

// Images and labels read as a pair must belong together.
TEST(IdxTest, ImagesAndLabelsAsAPair) {
  const std::string dir = ::testing::TempDir();
  WriteRaw(dir + "/pair-images", ImagesIdx());
  WriteRaw(dir + "/two-labels", std::string{0, 0, 0x08, 1, 0, 0, 0, 2, 7, 9});
  WriteRaw(dir + "/three-labels", std::string{0, 0, 0x08, 1, 0, 0, 0, 3, 7, 9, 1});
  absl::StatusOr<IdxImagesAndLabels> ok =
      ReadIdxImagesAndLabels(dir + "/pair-images", dir + "/two-labels");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->images.shape(), TensorShape({2, 2, 3}));
  EXPECT_EQ(ok->labels.data<uint8_t>()[1], 9);

  absl::StatusOr<IdxImagesAndLabels> short_by_one =
      ReadIdxImagesAndLabels(dir + "/pair-images", dir + "/three-labels");
  EXPECT_EQ(short_by_one.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(short_by_one.status().message(), HasSubstr("has 2 images but"));
  EXPECT_THAT(short_by_one.status().message(), HasSubstr("three-labels' has 3 labels"));

  // Labels given as images: the wrong rank, named.
  absl::StatusOr<IdxImagesAndLabels> swapped =
      ReadIdxImagesAndLabels(dir + "/two-labels", dir + "/pair-images");
  EXPECT_EQ(swapped.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(swapped.status().message(), HasSubstr("two-labels' holds"));
}

TEST(IdxTest, MissingFiles) {
  for (const std::string& path : {std::string("/nonexistent/x-idx1-ubyte"),
                                  std::string("/nonexistent/x-idx1-ubyte.gz")}) {
    auto r = ReadIdxFile(path);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound) << path;
    EXPECT_THAT(std::string(r.status().message()), HasSubstr(path));
  }
}

TEST(IdxTest, CorruptContents) {
  std::string truncated = ImagesIdx();
  truncated.pop_back();
  auto r = ParseIdx(truncated, "train-images");
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("dimensions [2,2,3] need 12 bytes of data but it has 11"));
  std::string bad_magic = ImagesIdx();
  bad_magic[0] = 1;
  EXPECT_THAT(std::string(ParseIdx(bad_magic, "f").status().message()),
              HasSubstr("magic number"));
  std::string bad_type = ImagesIdx();
  bad_type[2] = 0x0B;
  EXPECT_THAT(std::string(ParseIdx(bad_type, "f").status().message()),
              HasSubstr("element type 0xb"));
  EXPECT_EQ(ParseIdx("", "f").status().code(), absl::StatusCode::kInvalidArgument);
  std::string huge = {0, 0, 0x08, 2, 0x7F, 0, 0, 0, 0x7F, 0, 0, 0};
  EXPECT_EQ(ParseIdx(huge, "f").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(IdxTest, CorruptGzipStream) {
  const std::string gz = ::testing::TempDir() + "/broken.gz";
  std::string good;
  WriteGz(gz, ImagesIdx());
  {
    std::ifstream in(gz, std::ios::binary);
    good.assign(std::istreambuf_iterator<char>(in), {});
  }
  WriteRaw(gz, good.substr(0, good.size() / 2) + std::string(20, 'x'));
  auto r = ReadIdxFile(gz);
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr(gz));
}

}  // namespace
}  // namespace tensorflow_ipu
