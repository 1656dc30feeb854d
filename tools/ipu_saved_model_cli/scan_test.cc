#include "tools/ipu_saved_model_cli/scan.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/saved_model/proto/saved_model.pb.h"
#include "tensorflow_ipu/saved_model/testing/test_files.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using saved_model_testing::FreshTestDir;
using saved_model_testing::kHalfPlusTwo;
using ::testing::HasSubstr;

std::string ScanText(const ScanOptions& o) {
  std::ostringstream out;
  absl::Status s = Scan(o, out);
  EXPECT_TRUE(s.ok()) << s;
  return out.str();
}

TEST(ScanTest, HalfPlusTwoIsClean) {
  EXPECT_EQ(ScanText({kHalfPlusTwo}),
            "MetaGraph with tag set ['serve'] does not contain blacklisted ops.\n");
  EXPECT_EQ(ScanText({kHalfPlusTwo, "serve"}),
            "MetaGraph with tag set ['serve'] does not contain blacklisted ops.\n");
}

TEST(ScanTest, BlacklistedOpsInTheGraphAndItsFunctions) {
  const std::string dir = FreshTestDir("scan");
  SavedModel sm;
  MetaGraphDef* a = sm.add_meta_graphs();
  a->mutable_meta_info_def()->add_tags("serve");
  a->mutable_meta_info_def()->add_tags("gpu");
  a->mutable_graph_def()->add_node()->set_op("WriteFile");
  a->mutable_graph_def()->add_node()->set_op("Add");
  a->mutable_graph_def()->add_function()->add_node()->set_op("ReadFile");
  MetaGraphDef* b = sm.add_meta_graphs();
  b->mutable_meta_info_def()->add_tags("train");
  b->mutable_graph_def()->add_node()->set_op("PrintV2");
  saved_model_testing::WriteBytes(dir + "/saved_model.pb", sm.SerializeAsString());
  EXPECT_EQ(ScanText({dir}),
            "MetaGraph with tag set ['serve', 'gpu'] contains the following blacklisted ops: "
            "{'ReadFile', 'WriteFile'}\n"
            "MetaGraph with tag set ['train'] contains the following blacklisted ops: "
            "{'PrintV2'}\n");
  EXPECT_EQ(ScanText({dir, "train"}),
            "MetaGraph with tag set ['train'] contains the following blacklisted ops: "
            "{'PrintV2'}\n");

  // TensorFlow's function library (GraphDef field 2, length-delimited) is
  // not decoded here: the scan says so rather than calling it clean.
  std::string graph = b->graph_def().SerializeAsString() + std::string("\x12\x00", 2);
  b->mutable_graph_def()->ParseFromString(graph);
  saved_model_testing::WriteBytes(dir + "/saved_model.pb", sm.SerializeAsString());
  std::ostringstream out;
  absl::Status s = Scan({dir, "train"}, out);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(),
            "MetaGraph with tag set ['train'] holds a TensorFlow function library, whose ops "
            "this scan cannot read; it cannot be called free of blacklisted ops");
  EXPECT_EQ(out.str(), "");
}

TEST(ScanTest, MissingModelAndTagSet) {
  std::ostringstream out;
  absl::Status s = Scan({"/no/such/model"}, out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("/no/such/model"));
  s = Scan({kHalfPlusTwo, "gpu"}, out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("MetaGraphDef associated with tag-set gpu could not be found"));
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
