// Loading Fashion-MNIST: the installed files decode to the documented
// tensors, and missing files are errors that name the package to install.
#include "examples/fashion_mnist/fashion_mnist_data.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace examples {
namespace {

using ::testing::HasSubstr;

TEST(FashionMnistDataTest, MissingDirectoryNamesThePackage) {
  absl::StatusOr<FashionMnist> data = LoadFashionMnist("/nonexistent/fashion-mnist");
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(data.status().message(), HasSubstr("/nonexistent/fashion-mnist"));
  EXPECT_THAT(data.status().message(), HasSubstr("dataset-fashion-mnist"));
  EXPECT_THAT(data.status().message(), HasSubstr("apt-get install"));
}

TEST(FashionMnistDataTest, MissingFileNamesItAndThePackage) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  ASSERT_NE(tmp, nullptr);
  absl::StatusOr<FashionMnist> data = LoadFashionMnist(tmp);  // exists, empty
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(data.status().message(), HasSubstr("train-images-idx3-ubyte.gz"));
  EXPECT_THAT(data.status().message(), HasSubstr("dataset-fashion-mnist"));
}

// Needs the package installed (CI's bootstrap installs it); without it the
// failure message says which package is missing.
TEST(FashionMnistDataTest, InstalledDataHasTheDocumentedShapes) {
  absl::StatusOr<FashionMnist> data = LoadFashionMnist();
  ASSERT_TRUE(data.ok()) << data.status();
  for (const LabelledImages* set : {&data->train, &data->test}) {
    ASSERT_EQ(set->images.dtype(), DT_FLOAT);
    ASSERT_EQ(set->labels.dtype(), DT_INT32);
    ASSERT_EQ(set->images.dims(), 2);
    EXPECT_EQ(set->images.dim_size(1), 784);
    EXPECT_EQ(set->images.dim_size(0), set->count());
    float lo = 1, hi = 0;
    for (float v : set->images.values<float>()) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    EXPECT_EQ(lo, 0.0f);
    EXPECT_EQ(hi, 1.0f);  // 255 / 255
    // The classes are balanced: a tenth of the set each.
    std::vector<int64_t> per_class(10, 0);
    for (int32_t y : set->labels.values<int32_t>()) {
      ASSERT_GE(y, 0);
      ASSERT_LT(y, 10);
      ++per_class[y];
    }
    for (int64_t n : per_class) EXPECT_EQ(n, set->count() / 10);
  }
  EXPECT_EQ(data->train.count(), 60000);
  EXPECT_EQ(data->test.count(), 10000);
}

TEST(FashionMnistDataTest, LimitKeepsTheFirstExamples) {
  absl::StatusOr<LabelledImages> all = LoadFashionMnistSplit(kFashionMnistDir, "t10k");
  ASSERT_TRUE(all.ok()) << all.status();
  absl::StatusOr<LabelledImages> some =
      LoadFashionMnistSplit(kFashionMnistDir, "t10k", 1000);
  ASSERT_TRUE(some.ok()) << some.status();
  ASSERT_EQ(some->count(), 1000);
  ASSERT_EQ(some->images.dim_size(0), 1000);
  for (int64_t i = 0; i < 1000 * 784; ++i) {
    ASSERT_EQ(some->images.data<float>()[i], all->images.data<float>()[i]) << i;
  }
  for (int64_t i = 0; i < 1000; ++i) {
    ASSERT_EQ(some->labels.data<int32_t>()[i], all->labels.data<int32_t>()[i]) << i;
  }
}

}  // namespace
}  // namespace examples
}  // namespace tensorflow_ipu
