#include "tools/bench/fashion_mnist.h"

#include <zlib.h>

#include <cstdlib>
#include <string>

#include "gtest/gtest.h"

namespace tfipu_bench {
namespace {

std::string TempDir() {
  const char* d = std::getenv("TEST_TMPDIR");
  return d != nullptr ? d : "/tmp";
}

void Append32(std::string* s, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) s->push_back(static_cast<char>(v >> shift));
}

// Writes an IDX file of u8 data with `dims`, gzip-compressed.
std::string WriteIdx(const std::string& name, const std::vector<uint32_t>& dims,
                     const std::vector<uint8_t>& data) {
  std::string bytes = {0, 0, 0x08, static_cast<char>(dims.size())};
  for (uint32_t d : dims) Append32(&bytes, d);
  bytes.append(data.begin(), data.end());
  const std::string path = TempDir() + "/" + name;
  gzFile f = gzopen(path.c_str(), "wb");
  EXPECT_NE(f, nullptr);
  EXPECT_EQ(gzwrite(f, bytes.data(), bytes.size()), static_cast<int>(bytes.size()));
  gzclose(f);
  return path;
}

TEST(FashionMnistTest, ScalesPixelsAndKeepsFileOrder) {
  // Three 2x2 images: pixel values 0..11, labels 2, 0, 9.
  std::vector<uint8_t> px;
  for (int i = 0; i < 12; ++i) px.push_back(static_cast<uint8_t>(i == 11 ? 255 : i));
  const std::string images = WriteIdx("img.gz", {3, 2, 2}, px);
  const std::string labels = WriteIdx("lab.gz", {3}, {2, 0, 9});
  absl::StatusOr<ImageSet> set = LoadImageSet(images, labels);
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->count, 3);
  EXPECT_EQ(set->pixels, 4);
  EXPECT_FLOAT_EQ(set->images[1], 1.0f / 255.0f);
  EXPECT_FLOAT_EQ(set->images[11], 1.0f);
  EXPECT_EQ(set->labels, (std::vector<int32_t>{2, 0, 9}));
  EXPECT_EQ(set->num_batches(2), 1);
  EXPECT_EQ(set->batch_images(1, 1), set->images.data() + 4);
  EXPECT_EQ(*set->batch_labels(2, 1), 9);
}

TEST(FashionMnistTest, CountMismatchAndBadLabelAreErrors) {
  const std::string images = WriteIdx("img2.gz", {2, 1, 1}, {1, 2});
  const std::string one_label = WriteIdx("lab2.gz", {1}, {0});
  EXPECT_EQ(LoadImageSet(images, one_label).status().code(),
            absl::StatusCode::kInvalidArgument);
  const std::string bad_label = WriteIdx("lab3.gz", {2}, {0, 10});
  absl::Status s = LoadImageSet(images, bad_label).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(s.message()).find("label 10"), std::string::npos) << s;
}

TEST(FashionMnistTest, MissingDirectorySaysHowToInstall) {
  absl::Status s = LoadFashionMnist(TempDir() + "/no_such_dir").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(std::string(s.message()).find("bootstrap_peers.sh"), std::string::npos) << s;
}

}  // namespace
}  // namespace tfipu_bench
