#include "tensorflow_ipu/runtime/ipu_cluster_library.h"

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/attr_value_util.h"

namespace tensorflow_ipu {
namespace {

compiler::ClusterIr AddOf(float constant) {
  compiler::ClusterIr ir;
  ir.name = "whatever";
  int a = ir.AddArg("a:0", DT_FLOAT, TensorShape({2}));
  NodeDef c;
  c.set_name("c");
  c.set_op("Const");
  (*c.mutable_attr())["value"] = MakeAttrValue(Tensor::Scalar(constant));
  int k = ir.AddOp(c, {}, {DT_FLOAT}, {TensorShape({})});
  NodeDef add;
  add.set_name("add");
  add.set_op("AddV2");
  int op = ir.AddOp(add, {{a, 0}, {k, 0}}, {DT_FLOAT}, {TensorShape({2})});
  ir.results.push_back({op, 0});
  return ir;
}

TEST(IpuClusterLibraryTest, NamesAreUniqueAndStableInASession) {
  IpuClusterLibrary library;
  EXPECT_EQ(library.Add(AddOf(1), 0), "cluster_0");
  EXPECT_EQ(library.Add(AddOf(2), 0), "cluster_1");   // another constant
  EXPECT_EQ(library.Add(AddOf(1), 1), "cluster_2");   // another device
  EXPECT_EQ(library.Add(AddOf(1), 0), "cluster_0");   // the same again
  auto found = library.Find("cluster_1");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ((*found)->ir.name, "cluster_1");
  EXPECT_EQ((*found)->ipu_ordinal, 0);
}

TEST(IpuClusterLibraryTest, AnUnknownNameIsNotFoundAndNamed) {
  IpuClusterLibrary library;
  auto found = library.Find("cluster_7");
  EXPECT_EQ(found.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(found.status().message().find("'cluster_7'"), std::string::npos)
      << found.status();
}

TEST(IpuClusterLibraryTest, OneLibraryPerResourceManager) {
  ResourceManager rm;
  auto a = IpuClusterLibrary::Of(&rm);
  auto b = IpuClusterLibrary::Of(&rm);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->get(), b->get());
  EXPECT_EQ(IpuClusterLibrary::Of(nullptr).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace tensorflow_ipu
