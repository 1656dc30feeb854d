#include "tensorflow_ipu/runtime/ipu/application_executable.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/status_test_util.h"
#include "tensorflow_ipu/core/tensor_shape.h"

namespace tensorflow_ipu {
namespace {

using ::testing::HasSubstr;

ApplicationExecutableProto SmallExecutable() {
  ApplicationExecutableProto exe;
  EmbeddedRuntimeConfig* config = exe.mutable_embedded_runtime_config();
  config->set_iterations(4);
  config->set_num_ipus(1);
  config->set_infeed_name("in");
  config->set_outfeed_name("out");
  config->set_run_target("loop/done");
  ApplicationTensorInfo* x = config->mutable_signature()->add_streamed_inputs();
  x->set_name("x");
  x->set_dtype(DT_FLOAT);
  TensorShape({3}).AsProto(x->mutable_shape());
  ApplicationTensorInfo* y = config->mutable_signature()->add_streamed_outputs();
  y->set_name("y");
  y->set_dtype(DT_FLOAT);
  TensorShape({3}).AsProto(y->mutable_shape());
  exe.mutable_program()->add_node()->set_name("loop/done");
  return exe;
}

std::string TempPath(const std::string& name) {
  return std::string(testing::TempDir()) + "/" + name;
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(ApplicationExecutableTest, RoundTripsWithTheVendorsHeader) {
  const std::string path = TempPath("round_trip.poplar_exec");
  TF_ASSERT_OK(WriteApplicationExecutable(SmallExecutable(), path));
  const std::string bytes = ReadBytes(path);
  ASSERT_GE(bytes.size(), 16u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("GCTF\xf0\x9f\x91\x8d", 8));
  uint64_t length = 0;
  for (int i = 0; i < 8; ++i) {
    length |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
  }
  EXPECT_EQ(length, bytes.size() - 16);  // little-endian length of the rest
  absl::StatusOr<ApplicationExecutableProto> read = ReadApplicationExecutable(path);
  TF_ASSERT_OK(read.status());
  EXPECT_EQ(read->SerializeAsString(), SmallExecutable().SerializeAsString());
}

TEST(ApplicationExecutableTest, AMissingFileIsNotFoundNamingIt) {
  absl::StatusOr<ApplicationExecutableProto> r = ReadApplicationExecutable(TempPath("nope"));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("nope"));
}

TEST(ApplicationExecutableTest, AnotherMagicIsRefusedInTheVendorsWords) {
  const std::string path = TempPath("bad_magic");
  WriteBytes(path, std::string("GCTF\xf0\x9f\x91\x8e", 8) + std::string(8, '\0'));
  absl::StatusOr<ApplicationExecutableProto> r = ReadApplicationExecutable(path);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "Executable file '" + path + "' is not a TensorFlow Poplar binary.");
}

TEST(ApplicationExecutableTest, TruncationsAreDataLoss) {
  const std::string good = TempPath("good");
  TF_ASSERT_OK(WriteApplicationExecutable(SmallExecutable(), good));
  const std::string bytes = ReadBytes(good);
  for (size_t keep : {size_t{10}, size_t{16}, bytes.size() - 1}) {
    const std::string path = TempPath("cut");
    WriteBytes(path, bytes.substr(0, keep));
    absl::StatusOr<ApplicationExecutableProto> r = ReadApplicationExecutable(path);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss) << keep << ": " << r.status();
    EXPECT_THAT(std::string(r.status().message()), HasSubstr("truncated")) << keep;
  }
}

TEST(ApplicationExecutableTest, AHugeLengthIsRefusedBeforeAllocating) {
  const std::string path = TempPath("huge");
  WriteBytes(path, std::string("GCTF\xf0\x9f\x91\x8d", 8) + std::string(8, '\xff'));
  absl::StatusOr<ApplicationExecutableProto> r = ReadApplicationExecutable(path);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("over the bound of 134217728"));
}

TEST(ApplicationExecutableTest, MetadataThatDoesNotParseIsDataLoss) {
  const std::string path = TempPath("garbage");
  std::string bytes("GCTF\xf0\x9f\x91\x8d", 8);
  bytes += std::string("\x04\0\0\0\0\0\0\0", 8) + "\xff\xff\xff\xff";
  WriteBytes(path, bytes);
  absl::StatusOr<ApplicationExecutableProto> r = ReadApplicationExecutable(path);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss) << r.status();
}

TEST(ApplicationExecutableTest, AConfigTheRuntimeCannotServeIsRefusedNamingTheField) {
  struct Case {
    std::string expected;
    std::function<void(ApplicationExecutableProto*)> damage;
  };
  const std::vector<Case> cases = {
      {"at least 1 iteration",
       [](ApplicationExecutableProto* e) { e->mutable_embedded_runtime_config()->set_iterations(0); }},
      {"run target 'elsewhere'",
       [](ApplicationExecutableProto* e) {
         e->mutable_embedded_runtime_config()->set_run_target("elsewhere");
       }},
      {"streamed input 0 ('x') has shape [?]",
       [](ApplicationExecutableProto* e) {
         TensorShape({-1}).AsProto(e->mutable_embedded_runtime_config()
                                       ->mutable_signature()
                                       ->mutable_streamed_inputs(0)
                                       ->mutable_shape());
       }},
      {"not a value type",
       [](ApplicationExecutableProto* e) {
         e->mutable_embedded_runtime_config()->mutable_signature()->mutable_streamed_outputs(0)
             ->set_dtype(DT_RESOURCE);
       }},
      {"no streamed output",
       [](ApplicationExecutableProto* e) {
         e->mutable_embedded_runtime_config()->mutable_signature()->clear_streamed_outputs();
       }},
      {"has argument 3",
       [](ApplicationExecutableProto* e) {
         ApplicationTensorInfo* in =
             e->mutable_embedded_runtime_config()->mutable_signature()->add_inputs();
         in->set_name("scale");
         in->set_dtype(DT_FLOAT);
         in->set_argument(3);
         TensorShape({}).AsProto(in->mutable_shape());
       }},
  };
  for (const Case& c : cases) {
    ApplicationExecutableProto exe = SmallExecutable();
    c.damage(&exe);
    absl::Status s = WriteApplicationExecutable(exe, TempPath("refused"));
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.expected << ": " << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(c.expected));
  }
}

}  // namespace
}  // namespace tensorflow_ipu
