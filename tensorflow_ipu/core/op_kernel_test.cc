#include "tensorflow_ipu/core/op_kernel.h"

#include "gtest/gtest.h"
#include "tensorflow_ipu/core/graph.h"
#include "tensorflow_ipu/core/graph_def_io.h"

namespace tensorflow_ipu {
namespace {

// A kernel that leaves IsExpensive to the base class.
class PassThroughKernel : public OpKernel {
 public:
  absl::Status Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
    return absl::OkStatus();
  }
};

REGISTER_KERNEL("Identity", kDeviceTypeCpu, PassThroughKernel);

// By default a kernel is worth another thread unless its node's outputs
// are statically known to be small (kInlineOutputElements).
TEST(OpKernelTest, DefaultCostFollowsTheStaticOutputSize) {
  auto def = GraphDefFromText(R"pb(
    node {
      name: "small"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { dim { size: 256 } dim { size: 255 } } } }
    }
    node {
      name: "large"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { dim { size: 256 } dim { size: 256 } } } }
    }
    node {
      name: "unknown"
      op: "Placeholder"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } }
    }
    node { name: "id_small" op: "Identity" input: "small" }
    node { name: "id_large" op: "Identity" input: "large" }
    node { name: "id_unknown" op: "Identity" input: "unknown" }
  )pb");
  ASSERT_TRUE(def.ok()) << def.status();
  auto graph = Graph::FromGraphDef(*def);
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto expensive = [&](const char* name) {
    auto kernel = KernelRegistry::Global()->CreateKernel(*(*graph)->FindNode(name),
                                                         kDeviceTypeCpu);
    EXPECT_TRUE(kernel.ok()) << kernel.status();
    return kernel.ok() && (*kernel)->IsExpensive();
  };
  EXPECT_LT(256 * 255, OpKernel::kInlineOutputElements);
  EXPECT_EQ(256 * 256, OpKernel::kInlineOutputElements);
  EXPECT_FALSE(expensive("id_small"));
  EXPECT_TRUE(expensive("id_large"));
  EXPECT_TRUE(expensive("id_unknown"));
}

}  // namespace
}  // namespace tensorflow_ipu
