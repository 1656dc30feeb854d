#include "tools/ipu_saved_model_cli/show.h"

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

std::string ShowText(const ShowOptions& o) {
  std::ostringstream out;
  absl::Status s = Show(o, out);
  EXPECT_TRUE(s.ok()) << s;
  return out.str();
}

TEST(ShowTest, TagSetsOfHalfPlusTwo) {
  EXPECT_EQ(ShowText({kHalfPlusTwo}),
            "The given SavedModel contains the following tag-sets:\nserve\n");
}

TEST(ShowTest, SignatureKeysOfATagSet) {
  EXPECT_EQ(ShowText({kHalfPlusTwo, false, "serve"}),
            "The given SavedModel MetaGraphDef contains SignatureDefs with the following keys:\n"
            "SignatureDef key: \"classify_x_to_y\"\n"
            "SignatureDef key: \"regress_x2_to_y3\"\n"
            "SignatureDef key: \"regress_x_to_y\"\n"
            "SignatureDef key: \"regress_x_to_y2\"\n"
            "SignatureDef key: \"serving_default\"\n");
}

TEST(ShowTest, InputsAndOutputsOfASignature) {
  EXPECT_EQ(ShowText({kHalfPlusTwo, false, "serve", "serving_default"}),
            "The given SavedModel SignatureDef contains the following input(s):\n"
            "  inputs['x'] tensor_info:\n"
            "      dtype: DT_FLOAT\n"
            "      shape: (-1, 1)\n"
            "      name: x:0\n"
            "The given SavedModel SignatureDef contains the following output(s):\n"
            "  outputs['y'] tensor_info:\n"
            "      dtype: DT_FLOAT\n"
            "      shape: (-1, 1)\n"
            "      name: y:0\n"
            "Method name is: tensorflow/serving/predict\n");
}

TEST(ShowTest, AllIndentsEachSignature) {
  const std::string all = ShowText({kHalfPlusTwo, true});
  EXPECT_THAT(all, ::testing::StartsWith(
                       "\nMetaGraphDef with tag-set: 'serve' contains the following SignatureDefs:\n"
                       "\nsignature_def['classify_x_to_y']:\n"
                       "  The given SavedModel SignatureDef contains the following input(s):\n"
                       "    inputs['inputs'] tensor_info:\n"
                       "        dtype: DT_STRING\n"
                       "        shape: unknown_rank\n"
                       "        name: tf_example:0\n"));
  EXPECT_THAT(all, ::testing::EndsWith(
                       "\nsignature_def['serving_default']:\n"
                       "  The given SavedModel SignatureDef contains the following input(s):\n"
                       "    inputs['x'] tensor_info:\n"
                       "        dtype: DT_FLOAT\n"
                       "        shape: (-1, 1)\n"
                       "        name: x:0\n"
                       "  The given SavedModel SignatureDef contains the following output(s):\n"
                       "    outputs['y'] tensor_info:\n"
                       "        dtype: DT_FLOAT\n"
                       "        shape: (-1, 1)\n"
                       "        name: y:0\n"
                       "  Method name is: tensorflow/serving/predict\n"));
}

// A saved_model.pb of two MetaGraphDefs, one with two tags, and
// signatures with a scalar, a vector and several inputs.
std::string WriteTwoMetaGraphs() {
  const std::string dir = FreshTestDir("show");
  SavedModel sm;
  MetaGraphDef* train = sm.add_meta_graphs();
  train->mutable_meta_info_def()->add_tags("train");
  MetaGraphDef* serve = sm.add_meta_graphs();
  serve->mutable_meta_info_def()->add_tags("serve");
  serve->mutable_meta_info_def()->add_tags("gpu");
  SignatureDef& sig = (*serve->mutable_signature_def())["predict"];
  sig.set_method_name("tensorflow/serving/predict");
  TensorInfo& b = (*sig.mutable_inputs())["b"];
  b.set_name("b:0");
  b.set_dtype(DT_INT64);
  b.mutable_tensor_shape()->add_dim()->set_size(3);
  TensorInfo& a = (*sig.mutable_inputs())["a"];
  a.set_name("a:0");
  a.set_dtype(DT_HALF);
  a.mutable_tensor_shape();
  TensorInfo& out = (*sig.mutable_outputs())["out"];
  out.set_name("out:1");
  out.set_dtype(DT_BOOL);
  saved_model_testing::WriteBytes(dir + "/saved_model.pb", sm.SerializeAsString());
  return dir;
}

TEST(ShowTest, ScalarsVectorsAndTagSetsInAnyOrder) {
  const std::string dir = WriteTwoMetaGraphs();
  EXPECT_EQ(ShowText({dir}),
            "The given SavedModel contains the following tag-sets:\ngpu, serve\ntrain\n");
  EXPECT_EQ(ShowText({dir, false, "serve,gpu"}),
            "The given SavedModel MetaGraphDef contains SignatureDefs with the following keys:\n"
            "SignatureDef key: \"predict\"\n");
  EXPECT_EQ(ShowText({dir, false, "gpu,serve", "predict"}),
            "The given SavedModel SignatureDef contains the following input(s):\n"
            "  inputs['a'] tensor_info:\n"
            "      dtype: DT_HALF\n"
            "      shape: ()\n"
            "      name: a:0\n"
            "  inputs['b'] tensor_info:\n"
            "      dtype: DT_INT64\n"
            "      shape: (3)\n"
            "      name: b:0\n"
            "The given SavedModel SignatureDef contains the following output(s):\n"
            "  outputs['out'] tensor_info:\n"
            "      dtype: DT_BOOL\n"
            "      shape: ()\n"
            "      name: out:1\n"
            "Method name is: tensorflow/serving/predict\n");
  EXPECT_EQ(ShowText({dir, true}),
            "\nMetaGraphDef with tag-set: 'serve, gpu' contains the following SignatureDefs:\n"
            "\nsignature_def['predict']:\n"
            "  The given SavedModel SignatureDef contains the following input(s):\n"
            "    inputs['a'] tensor_info:\n"
            "        dtype: DT_HALF\n"
            "        shape: ()\n"
            "        name: a:0\n"
            "    inputs['b'] tensor_info:\n"
            "        dtype: DT_INT64\n"
            "        shape: (3)\n"
            "        name: b:0\n"
            "  The given SavedModel SignatureDef contains the following output(s):\n"
            "    outputs['out'] tensor_info:\n"
            "        dtype: DT_BOOL\n"
            "        shape: ()\n"
            "        name: out:1\n"
            "  Method name is: tensorflow/serving/predict\n"
            "\nMetaGraphDef with tag-set: 'train' contains the following SignatureDefs:\n");
}

TEST(ShowTest, ErrorsNameWhatIsMissingAndPrintNothing) {
  std::ostringstream out;
  absl::Status s = Show({kHalfPlusTwo, false, "serve,gpu"}, out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("MetaGraphDef associated with tag-set gpu,serve could not be "
                                     "found in SavedModel"));
  EXPECT_THAT(s.message(), HasSubstr("its tag-sets are: 'serve'"));
  s = Show({kHalfPlusTwo, false, "serve", "nope"}, out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(s.message(),
            "No SignatureDef with key 'nope' found in MetaGraphDef. Its keys are: "
            "\"classify_x_to_y\", \"regress_x2_to_y3\", \"regress_x_to_y\", \"regress_x_to_y2\", "
            "\"serving_default\"");
  s = Show({"/no/such/model"}, out);
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("/no/such/model"));
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
