// Range, FromTensors, Zip, Map, Shard, Take and Skip: the elements they
// give, their cardinality and spec, and their errors.
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/data/dataset.h"

namespace tensorflow_ipu {
namespace data {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Component `c` of every element, as int64 scalars (at most `limit`).
std::vector<int64_t> Values(const Dataset& ds, size_t c = 0, int limit = 1000) {
  auto it = ds.MakeIterator();
  EXPECT_TRUE(it.ok()) << it.status();
  std::vector<int64_t> out;
  if (!it.ok()) return out;
  for (int i = 0; i < limit; ++i) {
    Element e;
    bool end = false;
    absl::Status s = (*it)->GetNext(&e, &end);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok() || end) break;
    const Tensor& t = e[c];
    out.push_back(t.dtype() == DT_INT64 ? t.data<int64_t>()[0] : t.data<int32_t>()[0]);
  }
  return out;
}

TEST(DatasetTransformsTest, RangeAsPython) {
  EXPECT_THAT(Values(Dataset::Range(5)), ElementsAre(0, 1, 2, 3, 4));
  EXPECT_THAT(Values(Dataset::Range(2, 11, 3)), ElementsAre(2, 5, 8));
  EXPECT_THAT(Values(Dataset::Range(5, 0, -2)), ElementsAre(5, 3, 1));
  EXPECT_TRUE(Values(Dataset::Range(3, 3)).empty());
  EXPECT_TRUE(Values(Dataset::Range(3, 0)).empty());
  EXPECT_EQ(Dataset::Range(2, 11, 3).Cardinality(), 3);
  EXPECT_EQ(Dataset::Range(2, 11, 3).output_types()[0], DT_INT64);
  EXPECT_EQ(Dataset::Range(2, 11, 3).output_shapes()[0], TensorShape({}));
  // The whole int64 range does not overflow.
  const int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(Dataset::Range(-big, big, big).Cardinality(), 2);
  Dataset zero = Dataset::Range(0, 5, 0);
  EXPECT_EQ(zero.MakeIterator().status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(zero.status().message()), HasSubstr("step must not be 0"));
}

TEST(DatasetTransformsTest, FromTensorsIsOneElement) {
  auto ds = Dataset::FromTensors({Tensor::Vector<int32_t>({7, 8, 9})});
  ASSERT_TRUE(ds.ok()) << ds.status();
  EXPECT_EQ(ds->Cardinality(), 1);
  EXPECT_EQ(ds->output_shapes()[0], TensorShape({3}));
  EXPECT_THAT(Values(ds->Repeat(3)), ElementsAre(7, 7, 7));
  EXPECT_EQ(Dataset::FromTensors({}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(DatasetTransformsTest, ZipEndsWithTheShortest) {
  Dataset z = Dataset::Zip({Dataset::Range(4), Dataset::Range(10, 100, 10)});
  EXPECT_EQ(z.Cardinality(), 4);
  EXPECT_THAT(Values(z, 0), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(Values(z, 1), ElementsAre(10, 20, 30, 40));
  EXPECT_EQ(Dataset::Zip({Dataset::Range(3).Repeat(), Dataset::Range(2)}).Cardinality(), 2);
  EXPECT_EQ(Dataset::Zip({Dataset::Range(3).Repeat()}).Cardinality(), Dataset::kInfinite);
  EXPECT_EQ(Dataset::Zip({}).status().code(), absl::StatusCode::kInvalidArgument);
  // An error in any input is the zip's.
  EXPECT_THAT(std::string(Dataset::Zip({Dataset::Range(2), Dataset::Range(0, 1, 0)})
                              .status()
                              .message()),
              HasSubstr("step must not be 0"));
}

TEST(DatasetTransformsTest, MapAppliesTheFunctionAndKeepsItsSpec) {
  auto squares = Dataset::Range(4).Map([](const Element& e) -> absl::StatusOr<Element> {
    const int64_t v = e[0].data<int64_t>()[0];
    Tensor t(DT_INT32, TensorShape({}));
    t.data<int32_t>()[0] = static_cast<int32_t>(v * v);
    return Element{t, e[0]};
  });
  ASSERT_TRUE(squares.status().ok()) << squares.status();
  EXPECT_EQ(squares.output_types()[0], DT_INT32);
  EXPECT_EQ(squares.output_types().size(), 2u);
  EXPECT_THAT(Values(squares), ElementsAre(0, 1, 4, 9));
  // A function whose output changes shape is an error naming the component.
  auto ragged = Dataset::Range(3).Map([](const Element& e) -> absl::StatusOr<Element> {
    return Element{Tensor(DT_FLOAT, TensorShape({e[0].data<int64_t>()[0] + 1}))};
  });
  auto it = ragged.MakeIterator();
  ASSERT_TRUE(it.ok()) << it.status();
  Element e;
  bool end = false;
  {
    absl::Status first = (*it)->GetNext(&e, &end);
    ASSERT_TRUE(first.ok()) << first;
  }
  absl::Status s = (*it)->GetNext(&e, &end);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("component 0 is float[2] here but was float[1] for the first element"));
  // The function's own error reaches the iterator.
  auto failing = Dataset::Range(3).Map([](const Element& e) -> absl::StatusOr<Element> {
    if (e[0].data<int64_t>()[0] == 2) return absl::DataLossError("bad record 2");
    return e;
  });
  auto it2 = failing.MakeIterator();
  ASSERT_TRUE(it2.ok()) << it2.status();
  for (int i = 0; i < 2; ++i) {
    absl::Status next = (*it2)->GetNext(&e, &end);
    ASSERT_TRUE(next.ok()) << next;
  }
  EXPECT_EQ((*it2)->GetNext(&e, &end).code(), absl::StatusCode::kDataLoss);
}

TEST(DatasetTransformsTest, ShardTakeSkip) {
  EXPECT_THAT(Values(Dataset::Range(10).Shard(3, 1)), ElementsAre(1, 4, 7));
  EXPECT_EQ(Dataset::Range(10).Shard(3, 1).Cardinality(), 3);
  EXPECT_EQ(Dataset::Range(10).Shard(3, 0).Cardinality(), 4);
  EXPECT_THAT(Values(Dataset::Range(10).Take(3)), ElementsAre(0, 1, 2));
  EXPECT_EQ(Dataset::Range(10).Take(30).Cardinality(), 10);
  EXPECT_EQ(Dataset::Range(10).Take(-1).Cardinality(), 10);
  EXPECT_THAT(Values(Dataset::Range(10).Skip(7)), ElementsAre(7, 8, 9));
  EXPECT_EQ(Dataset::Range(10).Skip(30).Cardinality(), 0);
  // Skip(-1) skips everything at once, even of an infinite dataset.
  EXPECT_TRUE(Values(Dataset::Range(3).Repeat().Skip(-1)).empty());
  EXPECT_EQ(Dataset::Range(3).Repeat().Take(5).Cardinality(), 5);
  EXPECT_THAT(Values(Dataset::Range(3).Repeat().Shard(2, 1).Take(4)), ElementsAre(1, 0, 2, 1));
  Dataset bad = Dataset::Range(10).Shard(0, 0);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("the number of shards must be greater than zero (currently "
                        "num_shards = 0)"));
  bad = Dataset::Range(10).Shard(2, 2);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("the index must be between 0 and 1 (currently index = 2)"));
}

}  // namespace
}  // namespace data
}  // namespace tensorflow_ipu
