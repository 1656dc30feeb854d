#include "Eigen/Core"
#include "tools/ipu_saved_model_cli/npy.h"

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using ::testing::HasSubstr;

// The expected files below are derived by hand from NumPy's format
// (numpy/lib/format.py: _write_array_header and _wrap_header of NumPy
// 1.23+), as numpy.save writes them: magic, version 1.0, the header length
// (little-endian u16), the dict, 21 - len(str(shape[0])) spare spaces for
// growing the first axis, then spaces so that magic + length + header +
// '\n' is a multiple of 64, then '\n'. For example
// numpy.save(f, numpy.array([[2.5], [3], [4.5]], numpy.float32)):
// a 59-character dict + 20 spare spaces + '\n' = 80, 10 + 80 = 90, padded
// by 38 to 128, so the length field is 118 (0x76) and 58 spaces follow
// the dict.
std::string Bytes(const void* p, size_t n) { return std::string(static_cast<const char*>(p), n); }

std::string ExpectedHalfPlusTwoOutput() {
  const float values[] = {2.5f, 3.f, 4.5f};
  return std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
         "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 1), }" + std::string(58, ' ') +
         "\n" + Bytes(values, sizeof(values));
}

// A header built by hand with version 1.0 and padding as numpy does, for
// files numpy could have written with other descrs and orders.
std::string NpyV1(const std::string& dict, const std::string& data) {
  const size_t hlen = dict.size() + 1;
  const size_t pad = 64 - (10 + hlen) % 64;
  const uint16_t total = static_cast<uint16_t>(hlen + pad);
  return std::string("\x93NUMPY\x01\x00", 8) + Bytes(&total, 2) + dict + std::string(pad, ' ') +
         "\n" + data;
}

TEST(NpyTest, EncodesExactlyWhatNumpySaveWrites) {
  absl::StatusOr<std::string> bytes =
      EncodeNpy(Tensor::FromVector<float>({2.5f, 3.f, 4.5f}, TensorShape({3, 1})));
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, ExpectedHalfPlusTwoOutput());
  EXPECT_EQ(bytes->size(), 128u + 12u);
}

TEST(NpyTest, EncodesAScalarWithoutGrowthSpace) {
  // numpy.save(f, numpy.float64(0.5)): a 55-character dict, no spare
  // spaces (a scalar has no axis to grow), 10 + 56 = 66 padded by 62.
  const double half = 0.5;
  absl::StatusOr<std::string> bytes = EncodeNpy(Tensor::Scalar<double>(0.5));
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                        "{'descr': '<f8', 'fortran_order': False, 'shape': (), }" +
                        std::string(62, ' ') + "\n" + Bytes(&half, 8));
}

TEST(NpyTest, EncodesBoolsWithoutByteOrder) {
  // numpy.save(f, numpy.array([True, False])): 57 + 20 spare + '\n' = 78,
  // 10 + 78 = 88 padded by 40.
  absl::StatusOr<std::string> bytes = EncodeNpy(Tensor::Vector<bool>({true, false}));
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                        "{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }" +
                        std::string(60, ' ') + "\n" + std::string("\x01\x00", 2));
}

TEST(NpyTest, EveryTypeRoundTrips) {
  std::vector<Tensor> tensors = {
      Tensor::FromVector<float>({1.5f, -2.f, 0.f, 7.f}, TensorShape({2, 2})),
      Tensor::Vector<double>({1e300, -0.25}),
      Tensor::Vector<int32_t>({-7, 2147483647}),
      Tensor::Vector<int64_t>({-(int64_t{1} << 62), 5}),
      Tensor::Vector<uint8_t>({0, 255}),
      Tensor::Vector<bool>({false, true, true}),
      Tensor::Vector<half>({half(1.5f), half(-3.f)}),
      Tensor::FromVector<float>({}, TensorShape({0, 3})),
  };
  for (const Tensor& t : tensors) {
    absl::StatusOr<std::string> bytes = EncodeNpy(t);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_EQ(bytes->find('\n') + 1, bytes->size() - t.TotalBytes());
    EXPECT_EQ((bytes->size() - t.TotalBytes()) % 64, 0u) << t.SummaryString();
    absl::StatusOr<Tensor> back = ParseNpy(*bytes, "t.npy");
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(back->BitwiseEquals(t)) << back->SummaryString() << " vs " << t.SummaryString();
  }
}

TEST(NpyTest, ReadsBigEndianElements) {
  const unsigned char f[] = {0x40, 0x20, 0x00, 0x00, 0xbf, 0x80, 0x00, 0x00};  // 2.5, -1
  absl::StatusOr<Tensor> t = ParseNpy(
      NpyV1("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", Bytes(f, 8)), "be.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DT_FLOAT);
  EXPECT_EQ(t->DebugString(), "[ 2.5 -1. ]");

  const unsigned char i[] = {0, 0, 0, 0, 0, 0, 1, 2};
  t = ParseNpy(NpyV1("{'descr': '>i8', 'fortran_order': False, 'shape': (1,), }", Bytes(i, 8)),
               "be.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->data<int64_t>()[0], 258);
}

TEST(NpyTest, TransposesFortranOrder) {
  // numpy.asfortranarray([[1, 2, 3], [4, 5, 6]]) stores 1 4 2 5 3 6.
  const int32_t f[] = {1, 4, 2, 5, 3, 6};
  absl::StatusOr<Tensor> t = ParseNpy(
      NpyV1("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", Bytes(f, sizeof(f))),
      "f.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->DebugString(), "[[1 2 3]\n [4 5 6]]");

  // Three axes: element [i][j][k] of a 2x2x2 is stored at i + 2j + 4k.
  std::vector<int32_t> g(8);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 2; ++k) g[i + 2 * j + 4 * k] = 100 * i + 10 * j + k;
  t = ParseNpy(NpyV1("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 2, 2), }",
                     Bytes(g.data(), 32)),
               "f.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_THAT(std::vector<int32_t>(t->data<int32_t>(), t->data<int32_t>() + 8),
              ::testing::ElementsAre(0, 1, 10, 11, 100, 101, 110, 111));
}

TEST(NpyTest, ReadsVersionTwoAndThreeHeadersAndDoubleQuotes) {
  const std::string dict = "{\"descr\": \"<f4\", \"shape\": (1,), \"fortran_order\": False}";
  const float one = 1.f;
  for (char major : {'\x02', '\x03'}) {
    const uint32_t len = static_cast<uint32_t>(dict.size());
    const std::string file = std::string("\x93NUMPY", 6) + major + '\0' + Bytes(&len, 4) + dict +
                             Bytes(&one, 4);
    absl::StatusOr<Tensor> t = ParseNpy(file, "v2.npy");
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->DebugString(), "[1.]");
  }
}

TEST(NpyTest, FilesRoundTripAndNameTheFileInErrors) {
  const std::string dir = ::testing::TempDir() + "/npy_test_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const Tensor t = Tensor::FromVector<float>({2.5f, 3.f, 4.5f}, TensorShape({3, 1}));
  absl::Status s = WriteNpyFile(dir + "/y.npy", t);
  ASSERT_TRUE(s.ok()) << s;
  std::ifstream in(dir + "/y.npy", std::ios::binary);
  std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(written, ExpectedHalfPlusTwoOutput());
  absl::StatusOr<Tensor> back = ReadNpyFile(dir + "/y.npy");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->BitwiseEquals(t));

  back = ReadNpyFile(dir + "/missing.npy");
  EXPECT_EQ(back.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(back.status().message(), HasSubstr(dir + "/missing.npy"));

  back = ReadNpyFile(dir);
  EXPECT_EQ(back.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(back.status().message(),
            "the input file " + dir + " is a directory; give the path of a .npy file");

  s = WriteNpyFile(dir + "/no/such/dir/y.npy", t);
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << s;
  EXPECT_THAT(s.message(), HasSubstr("no/such/dir/y.npy"));
}

struct BadCase {
  const char* what;
  std::string bytes;
  absl::StatusCode code;
  const char* message;
};

TEST(NpyTest, BadFilesAreRefusedNamingTheFile) {
  const float f3[] = {1, 2, 3};
  const std::string good = NpyV1("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                                 Bytes(f3, 12));
  const std::vector<BadCase> cases = {
      {"empty", "", absl::StatusCode::kInvalidArgument,
       "bad.npy is not a .npy file: it does not start with the magic \\x93NUMPY"},
      {"bad magic", "\x93NUMPZ\x01\x00", absl::StatusCode::kInvalidArgument,
       "does not start with the magic"},
      {"npz", std::string("PK\x03\x04rest", 8), absl::StatusCode::kUnimplemented,
       "bad.npy is a .npz archive (a zip of .npy files); reading .npz needs a zip reader"},
      {"version", std::string("\x93NUMPY\x04\x00\x00\x00", 10), absl::StatusCode::kInvalidArgument,
       "bad.npy has .npy format version 4.0; known versions are 1.0, 2.0, 3.0"},
      {"cut in length", std::string("\x93NUMPY\x01\x00\x10", 9), absl::StatusCode::kDataLoss,
       "bad.npy is cut short inside its .npy header length"},
      {"cut in header", good.substr(0, 40), absl::StatusCode::kDataLoss,
       "bad.npy is cut short: its .npy header announces 118 bytes but the file has 30"},
      {"cut in data", good.substr(0, good.size() - 1), absl::StatusCode::kDataLoss,
       "bad.npy holds 11 bytes of data, but shape (3,) of '<f4' needs 3 elements of 4 bytes"},
      {"extra data", good + "x", absl::StatusCode::kDataLoss, "holds 13 bytes of data"},
      {"not a dict", NpyV1("[1, 2]", ""), absl::StatusCode::kInvalidArgument,
       "bad.npy: the .npy header is not a dict"},
      {"unknown key", NpyV1("{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}", ""),
       absl::StatusCode::kInvalidArgument, "has the unknown key 'x'"},
      {"missing key", NpyV1("{'descr': '<f4', 'shape': (0,)}", ""),
       absl::StatusCode::kInvalidArgument,
       "lacks one of the keys 'descr', 'fortran_order' and 'shape'"},
      {"negative dim", NpyV1("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", ""),
       absl::StatusCode::kInvalidArgument, "has a 'shape' entry that is not a non-negative int"},
      {"2^63 dim",
       NpyV1("{'descr': '<f4', 'fortran_order': False, 'shape': (9223372036854775808,)}", ""),
       absl::StatusCode::kInvalidArgument, "not a non-negative int below 2^63"},
      {"overflowing count",
       NpyV1("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}", ""),
       absl::StatusCode::kInvalidArgument,
       "bad.npy: the .npy shape (4294967296, 4294967296) has more elements than 2^63"},
      {"huge but not overflowing",
       NpyV1("{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,)}", ""),
       absl::StatusCode::kDataLoss, "holds 0 bytes of data"},
      {"fortran not bool", NpyV1("{'descr': '<f4', 'fortran_order': 0, 'shape': ()}", ""),
       absl::StatusCode::kInvalidArgument, "neither True nor False"},
      {"int16", NpyV1("{'descr': '<i2', 'fortran_order': False, 'shape': (1,)}", "ab"),
       absl::StatusCode::kUnimplemented, "bad.npy holds elements of dtype '<i2', which cannot be fed"},
      {"structured", NpyV1("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': ()}", ""),
       absl::StatusCode::kUnimplemented, "structured dtype"},
      {"bool byte 2", NpyV1("{'descr': '|b1', 'fortran_order': False, 'shape': (2,)}", "\x01\x02"),
       absl::StatusCode::kDataLoss, "bad.npy: bool element 1 has the byte 2"},
  };
  for (const BadCase& c : cases) {
    absl::StatusOr<Tensor> t = ParseNpy(c.bytes, "bad.npy");
    EXPECT_EQ(t.status().code(), c.code) << c.what << ": " << t.status();
    EXPECT_THAT(t.status().message(), HasSubstr(c.message)) << c.what;
  }
  // The reader keeps working after all of them.
  absl::StatusOr<Tensor> t = ParseNpy(good, "good.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->DebugString(), "[1. 2. 3.]");
}

TEST(NpyTest, EmptyArraysWithHugeDimensions) {
  // A 0 first: the shape is one a tensor can hold.
  absl::StatusOr<Tensor> t =
      ParseNpy(NpyV1("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 1099511627776), }", ""),
               "empty.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shape(), TensorShape({0, int64_t{1} << 40}));
  EXPECT_EQ(t->NumElements(), 0);
  // numpy makes (2^40, 0) as well, but its dimensions multiply to 2^40
  // before the 0: refused naming the file (the error used to come from
  // TensorShape, without the file's name), in both orders.
  for (const char* order : {"False", "True"}) {
    t = ParseNpy(NpyV1(absl::StrCat("{'descr': '<f4', 'fortran_order': ", order,
                                    ", 'shape': (1099511627776, 0), }"),
                       ""),
                 "empty.npy");
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << order;
    EXPECT_EQ(t.status().message(),
              "empty.npy: the .npy shape (1099511627776, 0) is empty, but its dimensions before "
              "the 0 multiply to more than 2^38, which a tensor's shape cannot hold: save the "
              "array with a smaller shape")
        << order;
  }
}

TEST(NpyTest, StringsCannotBeWritten) {
  absl::StatusOr<std::string> bytes = EncodeNpy(Tensor::Strings({"a"}));
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(bytes.status().message(), HasSubstr("a tensor of type string cannot be written"));
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
