// Bad input to ipu_saved_model_cli's readers: .npy files and --input_exprs
// values. Each error has its code and names the file or the position, and
// the reader (and the tool) keeps working afterwards.
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/saved_model/testing/test_files.h"
#include "tools/ipu_saved_model_cli/cli.h"
#include "tools/ipu_saved_model_cli/input_exprs.h"
#include "tools/ipu_saved_model_cli/npy.h"

namespace tensorflow_ipu {
namespace {

using saved_model_cli::EncodeNpy;
using saved_model_cli::ParseInputExpr;
using saved_model_cli::ParseNpy;
using saved_model_testing::FreshTestDir;
using saved_model_testing::kHalfPlusTwo;
using saved_model_testing::WriteBytes;
using ::testing::HasSubstr;

// numpy.save of float32 [1, 2, 3].
std::string GoodNpy() {
  return *EncodeNpy(Tensor::Vector<float>({1, 2, 3}));
}

// A version 1.0 header around `dict`, padded as numpy pads it.
std::string NpyWithHeader(const std::string& dict) {
  const size_t pad = 64 - (10 + dict.size() + 1) % 64;
  const size_t len = dict.size() + 1 + pad;
  return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(len & 0xff) +
         static_cast<char>(len >> 8) + dict + std::string(pad, ' ') + "\n";
}

void ExpectNpyReaderStillWorks() {
  absl::StatusOr<Tensor> t = ParseNpy(GoodNpy(), "good.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->DebugString(), "[1. 2. 3.]");
}

void ExpectExprParserStillWorks() {
  absl::StatusOr<Tensor> t = ParseInputExpr("[[1], [2.5]]");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->DebugString(), "[[1. ]\n [2.5]]");
}

TEST(BadNpyTest, TruncatedFiles) {
  const std::string good = GoodNpy();
  for (size_t cut : {size_t{7}, size_t{9}, size_t{60}, good.size() - 1}) {
    absl::StatusOr<Tensor> t = ParseNpy(good.substr(0, cut), "cut.npy");
    EXPECT_EQ(t.status().code(), absl::StatusCode::kDataLoss) << cut << ": " << t.status();
    EXPECT_THAT(t.status().message(), HasSubstr("cut.npy")) << cut;
    EXPECT_THAT(t.status().message(), HasSubstr("cut short")) << cut;
  }
  ExpectNpyReaderStillWorks();
}

TEST(BadNpyTest, EmptyFileAndBadMagic) {
  for (const std::string& bytes : {std::string(), std::string("NUMPY\x01\x00", 7),
                                   std::string("\x80\x02pickle", 8)}) {
    absl::StatusOr<Tensor> t = ParseNpy(bytes, "x.npy");
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << t.status();
    EXPECT_EQ(t.status().message(),
              "x.npy is not a .npy file: it does not start with the magic \\x93NUMPY");
  }
  ExpectNpyReaderStillWorks();
}

TEST(BadNpyTest, ShapesOf2To63Elements) {
  // Each dimension fits, the product does not: refused before allocating.
  absl::StatusOr<Tensor> t = ParseNpy(
      NpyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2147483648, 2147483648, 2), }"),
      "big.npy");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            "big.npy: the .npy shape (2147483648, 2147483648, 2) has more elements than 2^63");
  // 2^63 itself is not an int64.
  t = ParseNpy(NpyWithHeader("{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (9223372036854775808,), }"),
               "big.npy");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(t.status().message(), HasSubstr("big.npy: the .npy header has a 'shape' entry"));
  // 2^60 elements fit int64 but not the 0 bytes of data.
  t = ParseNpy(NpyWithHeader("{'descr': '<f8', 'fortran_order': False, "
                             "'shape': (1152921504606846976,), }"),
               "big.npy");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(t.status().message(), HasSubstr("big.npy holds 0 bytes of data"));
  ExpectNpyReaderStillWorks();
}

TEST(BadNpyTest, HeadersThatAreNotNumpysDict) {
  for (const char* dict : {"[1, 2, 3]", "{'descr': '<f4'", "{'descr': '<f4', 'fortran_order': "
                           "False, 'shape': (3,), '__class__': 1}",
                           "{'descr': '<f4', 'fortran_order': False, 'shape': (nan,), }",
                           ""}) {
    absl::StatusOr<Tensor> t = ParseNpy(NpyWithHeader(dict), "h.npy");
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << dict;
    EXPECT_THAT(t.status().message(), HasSubstr("h.npy: the .npy header")) << dict;
  }
  ExpectNpyReaderStillWorks();
}

// An empty array whose dimensions multiply to 2^40 before the 0: numpy
// writes it, a tensor's shape cannot hold it. The error named no file.
TEST(BadNpyTest, EmptyArrayWithAHugeDimension) {
  absl::StatusOr<Tensor> t = ParseNpy(
      NpyWithHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 0), }"),
      "empty.npy");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            "empty.npy: the .npy shape (1099511627776, 0) is empty, but its dimensions before "
            "the 0 multiply to more than 2^38, which a tensor's shape cannot hold: save the "
            "array with a smaller shape");
  ExpectNpyReaderStillWorks();
}

TEST(BadNpyTest, NpzArchivesAreRefused) {
  absl::StatusOr<Tensor> t = ParseNpy(std::string("PK\x03\x04\x14\x00", 6), "inputs.npz");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(t.status().message(),
              HasSubstr("inputs.npz is a .npz archive (a zip of .npy files); reading .npz needs a "
                        "zip reader, which this build does not have"));
  ExpectNpyReaderStillWorks();
}

TEST(BadInputExprTest, DeepNesting) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  absl::StatusOr<Tensor> t = ParseInputExpr(deep);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            "at position 32: lists nest deeper than 32 levels, numpy's limit of dimensions");
  ExpectExprParserStillWorks();
}

// np.array's value may be a call, and that recursion had no bound: 100,000
// nested calls (900 KB, within a command line's limit) overflowed the stack.
TEST(BadInputExprTest, DeeplyNestedCalls) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "np.array(";
  deep += "1" + std::string(100000, ')');
  absl::StatusOr<Tensor> t = ParseInputExpr(deep);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            "at position 288: np calls nest deeper than 32 levels; write the value once, as "
            "np.array(value, dtype)");
  ExpectExprParserStillWorks();
}

// Found by input_exprs_fuzzer: np.zeros made arrays of any rank from a
// shape tuple, where numpy stops at 32 dimensions.
TEST(BadInputExprTest, ShapeOfMoreThan32Dimensions) {
  std::string expr = "np.zeros([";
  for (int i = 0; i < 1000; ++i) expr += "0, ";
  absl::StatusOr<Tensor> t = ParseInputExpr(expr + "])");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            "at position 9: the shape has 1000 dimensions, more than 32, numpy's limit of "
            "dimensions");
  ExpectExprParserStillWorks();
}

TEST(BadInputExprTest, NanTextAndNames) {
  for (const char* expr : {"nan", "[1, nan]", "float('nan')", "np.nan", "NaN", "inf", "-inf"}) {
    absl::StatusOr<Tensor> t = ParseInputExpr(expr);
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << expr;
    EXPECT_THAT(t.status().message(), HasSubstr("at position ")) << expr;
    EXPECT_THAT(t.status().message(), HasSubstr("is not allowed")) << expr;
  }
  ExpectExprParserStillWorks();
}

TEST(BadInputExprTest, Empty) {
  for (const char* expr : {"", " \t", "[", "np.", "()"}) {
    absl::StatusOr<Tensor> t = ParseInputExpr(expr);
    if (std::string(expr) == "()") {
      // An empty tuple is numpy's empty float64 array, not an error.
      ASSERT_TRUE(t.ok()) << t.status();
      EXPECT_EQ(t->shape(), TensorShape({0}));
      continue;
    }
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << expr;
  }
  EXPECT_THAT(ParseInputExpr("").status().message(), HasSubstr("the expression is empty"));
  ExpectExprParserStillWorks();
}

TEST(BadInputExprTest, HugeShapesAndNumbers) {
  absl::StatusOr<Tensor> t = ParseInputExpr("np.ones((9223372036854775807, 2))");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            "at position 8: the shape (9223372036854775807, 2) has more than 67108864 elements; "
            "give a larger input as a .npy file with --inputs");
  t = ParseInputExpr("[99999999999999999999]");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(t.status().message(),
              HasSubstr("at position 1: the integer 99999999999999999999 does not fit int64"));
  t = ParseInputExpr("np.array([1e300], dtype=np.int32)");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(t.status().message(), HasSubstr("does not fit int32"));
  ExpectExprParserStillWorks();
}

TEST(BadInputExprTest, CodeIsNeverRun) {
  absl::StatusOr<Tensor> t = ParseInputExpr("__import__('os').system('touch /tmp/pwned')");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(t.status().message(), HasSubstr("at position 0: the name '__import__' is not allowed"));
  ExpectExprParserStillWorks();
}

TEST(BadSavedModelCliRunTest, ATruncatedInputFileThenAGoodRun) {
  const std::string dir = FreshTestDir("cli_bad_input");
  WriteBytes(dir + "/x.npy", GoodNpy().substr(0, 100));
  std::ostringstream out, err;
  std::vector<std::string> args = {"run", "--dir", kHalfPlusTwo, "--tag_set", "serve",
                                   "--signature_def", "serving_default", "--inputs",
                                   "x=" + dir + "/x.npy"};
  EXPECT_EQ(saved_model_cli::RunCli(args, out, err), 1);
  EXPECT_THAT(err.str(), HasSubstr("--inputs x: " + dir + "/x.npy is cut short"));
  EXPECT_EQ(out.str(), "");
  // The same process runs a good input afterwards.
  WriteBytes(dir + "/x.npy", *EncodeNpy(Tensor::FromVector<float>({1, 2, 5}, TensorShape({3, 1}))));
  std::ostringstream out2, err2;
  EXPECT_EQ(saved_model_cli::RunCli(args, out2, err2), 0) << err2.str();
  EXPECT_EQ(out2.str(), "Result for output key y:\n[[2.5]\n [3. ]\n [4.5]]\n");
}

}  // namespace
}  // namespace tensorflow_ipu
