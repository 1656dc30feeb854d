#include "tools/ipu_saved_model_cli/input_exprs.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

using ::testing::HasSubstr;

// The array `expr` gives, as "dtype shape values".
std::string Eval(const std::string& expr) {
  absl::StatusOr<Tensor> t = ParseInputExpr(expr);
  if (!t.ok()) return "error: " + std::string(t.status().message());
  return DataTypeString(t->dtype()) + " " + t->shape().DebugString() + " " + t->DebugString();
}

TEST(InputExprsTest, NumbersGetTheDtypeNumpyInfers) {
  EXPECT_EQ(Eval("5"), "int64 [] 5");
  EXPECT_EQ(Eval(" -2 "), "int64 [] -2");
  EXPECT_EQ(Eval("+7"), "int64 [] 7");
  EXPECT_EQ(Eval("2.5"), "double [] 2.5");
  EXPECT_EQ(Eval("-1e-3"), "double [] -0.001");
  EXPECT_EQ(Eval(".5"), "double [] 0.5");
  EXPECT_EQ(Eval("1."), "double [] 1.0");
  EXPECT_EQ(Eval("3E2"), "double [] 300.0");
  EXPECT_EQ(Eval("True"), "bool [] True");
  EXPECT_EQ(Eval("-9223372036854775808"), "int64 [] -9223372036854775808");
}

TEST(InputExprsTest, LeadingZerosAsPythonReadsThem) {
  EXPECT_EQ(Eval("0"), "int64 [] 0");
  EXPECT_EQ(Eval("00"), "int64 [] 0");
  EXPECT_EQ(Eval("01.5"), "double [] 1.5");
  EXPECT_EQ(Eval("0e3"), "double [] 0.0");
  // Python: "leading zeros in decimal integer literals are not permitted".
  EXPECT_EQ(Eval("[1, 095]"),
            "error: at position 4: leading zeros in decimal integer literals are not permitted "
            "(095); write the number without them");
}

TEST(InputExprsTest, NestedListsAndTuples) {
  EXPECT_EQ(Eval("[[1],[2],[5]]"), "int64 [3,1] [[1]\n [2]\n [5]]");
  EXPECT_EQ(Eval("[[1], [2.5], [5]]"), "double [3,1] [[1. ]\n [2.5]\n [5. ]]");
  EXPECT_EQ(Eval("((1, 2), (3, 4),)"), "int64 [2,2] [[1 2]\n [3 4]]");
  EXPECT_EQ(Eval("[True, 2]"), "int64 [2] [1 2]");
  EXPECT_EQ(Eval("[True, False]"), "bool [2] [ True False]");
  EXPECT_EQ(Eval("(1,)"), "int64 [1] [1]");
  EXPECT_EQ(Eval("(1)"), "int64 [] 1");
  EXPECT_EQ(Eval("[]"), "double [0] []");
  EXPECT_EQ(Eval("[[], []]"), "double [2,0] []");
}

TEST(InputExprsTest, NumpyCalls) {
  EXPECT_EQ(Eval("np.ones((1))"), "double [1] [1.]");
  EXPECT_EQ(Eval("np.ones((2, 3), dtype=np.float32)"), "float [2,3] [[1. 1. 1.]\n [1. 1. 1.]]");
  EXPECT_EQ(Eval("numpy.zeros(3, 'int32')"), "int32 [3] [0 0 0]");
  EXPECT_EQ(Eval("np.zeros([2], dtype=int)"), "int64 [2] [0 0]");
  EXPECT_EQ(Eval("np.zeros(shape=(), dtype=np.bool_)"), "bool [] False");
  EXPECT_EQ(Eval("np.array([[1], [2], [5]], dtype=np.float32)"), "float [3,1] [[1.]\n [2.]\n [5.]]");
  EXPECT_EQ(Eval("np.array([1.9, -1.9], np.int32)"), "int32 [2] [ 1 -1]");
  EXPECT_EQ(Eval("np.array(np.ones(2), dtype=np.float16)"), "half [2] [1. 1.]");
  EXPECT_EQ(Eval("np.array(7)"), "int64 [] 7");
  EXPECT_EQ(Eval("np.array([0, 2], dtype=bool)"), "bool [2] [False  True]");
}

TEST(InputExprsTest, ArbitraryCodeIsRefusedNamingThePosition) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"__import__('os').system('rm -rf /')",
       "at position 0: the name '__import__' is not allowed where a number belongs; an "
       "expression is a number, True, False, a list or tuple of those, np.ones(shape), "
       "np.zeros(shape) or np.array(value), with an optional dtype"},
      {"np.load('x.npy')", "at position 3: the name 'load' is not allowed after 'np.'"},
      {"np.ones.__class__", "at position 7: '.' is not allowed where '(' belongs"},
      {"x", "at position 0: the name 'x' is not allowed where a number belongs"},
      {"nan", "at position 0: the name 'nan' is not allowed"},
      {"np.nan", "at position 3: the name 'nan' is not allowed after 'np.'"},
      {"1 + 2", "at position 2: '+' is not allowed after the expression"},
      {"[1, 2] * 3", "at position 7: the character '*' is not allowed"},
      {"[1, x]", "at position 4: the name 'x' is not allowed where a number belongs"},
      {"[1, np.ones(2)]", "at position 4: the name 'np' is not allowed where a number belongs"},
      {"'abc'", "at position 0: 'abc' is not allowed where a number belongs"},
      {"lambda: 0", "at position 6: the character ':' is not allowed"},
      {"open('/etc/passwd')", "at position 0: the name 'open' is not allowed"},
      {"[1, 2", "at position 5: the expression ends inside a list, where ',' or ']' belongs"},
      {"[1 2]", "at position 3: '2' is not allowed inside a list"},
      {"np.ones(2, order='C')", "at position 17: np.ones takes no argument 'order' here"},
      {"np.ones(2, np.int16)", "at position 11: the dtype 'int16' is not supported"},
      {"np.ones(2, np.float32, 3)", "at position 23: '3' is not allowed as an argument of np.ones"},
      {"np.array()", "at position 0: np.array needs a value"},
      {"np.zeros(dtype=int)", "at position 0: np.zeros needs a shape"},
      {"np.ones(2.5)", "at position 8: a shape is an int or a tuple of ints, such as (2, 3)"},
      {"np.ones((2, -1))", "at position 8: the shape has the negative dimension -1"},
      {"'unterminated", "at position 0: the string is not closed"},
      {"1e", "at position 1: the name 'e' is not allowed after the expression"},
      {"--1", "at position 1: '-' is not allowed after a sign"},
  };
  for (const auto& [expr, message] : cases) {
    absl::StatusOr<Tensor> t = ParseInputExpr(expr);
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << expr;
    EXPECT_THAT(t.status().message(), HasSubstr(message)) << expr;
  }
}

TEST(InputExprsTest, RaggedListsAreRefused) {
  absl::StatusOr<Tensor> t = ParseInputExpr("[[1, 2], [3]]");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            "at position 9: the list is ragged: this element has shape (1) but the first has (2); "
            "every element of a list must have the same shape");
  t = ParseInputExpr("[1, [2]]");
  EXPECT_THAT(t.status().message(), HasSubstr("at position 4: the list is ragged"));
}

std::string NestedArrayCalls(int depth) {
  std::string expr;
  for (int i = 0; i < depth; ++i) expr += "np.array(";
  expr += "[2]";
  for (int i = 0; i < depth; ++i) expr += ")";
  return expr;
}

TEST(InputExprsTest, NestedCallsAreBounded) {
  // 32 calls, one inside the other, are the value itself.
  EXPECT_EQ(Eval(NestedArrayCalls(32)), Eval("[2]"));
  // The 33rd is refused where it starts (9 characters per "np.array(").
  absl::StatusOr<Tensor> t = ParseInputExpr(NestedArrayCalls(33));
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            "at position 288: np calls nest deeper than 32 levels; write the value once, as "
            "np.array(value, dtype)");
  // 100,000 levels (900 KB of text, which overflowed the stack) fail the
  // same way.
  t = ParseInputExpr(NestedArrayCalls(100000));
  EXPECT_THAT(t.status().message(), HasSubstr("at position 288: np calls nest deeper than 32"));
}

TEST(InputExprsTest, SizesAreBounded) {
  std::string deep = std::string(33, '[') + "1" + std::string(33, ']');
  absl::StatusOr<Tensor> t = ParseInputExpr(deep);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            "at position 32: lists nest deeper than 32 levels, numpy's limit of dimensions");
  // 32 levels is numpy's maximum and fine.
  EXPECT_EQ(Eval(std::string(32, '[') + "1" + std::string(32, ']')).substr(0, 6), "int64 ");
  // A million levels fails as fast, without recursing a million deep.
  t = ParseInputExpr(std::string(1000000, '['));
  EXPECT_THAT(t.status().message(), HasSubstr("nest deeper than 32"));

  t = ParseInputExpr("np.ones((4294967296, 4294967296, 2))");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            "at position 8: the shape (4294967296, 4294967296, 2) has more than 67108864 "
            "elements; give a larger input as a .npy file with --inputs");
  // Shapes have at most numpy's 32 dimensions, as nested lists do.
  std::string ones32 = "np.ones((";
  for (int i = 0; i < 32; ++i) ones32 += "1,";
  EXPECT_EQ(Eval(ones32 + "))").substr(0, 10), "double [1,");
  t = ParseInputExpr(ones32 + "1))");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            "at position 8: the shape has 33 dimensions, more than 32, numpy's limit of "
            "dimensions");
  // Empty shapes with huge dimensions: a 0 first is a tensor's shape; a 0
  // last after 2^40 is not (numpy makes it; TensorShape refuses it).
  EXPECT_EQ(Eval("np.zeros((0, 1099511627776))"), "double [0,1099511627776] []");
  t = ParseInputExpr("np.zeros((1099511627776, 0))");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            "at position 9: the shape (1099511627776, 0) is empty, but its dimensions before the "
            "0 multiply to more than 2^38, which a tensor's shape cannot hold");
  t = ParseInputExpr("np.zeros(9223372036854775808)");
  EXPECT_THAT(t.status().message(), HasSubstr("the integer 9223372036854775808 does not fit int64"));
  t = ParseInputExpr("np.array([300], dtype=np.uint8)");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(),
            "np.array at position 0: element 0 (300) does not fit uint8, the type it is fed as; "
            "give values in uint8's range");
  // Zero elements is fine, whatever the other dimensions.
  EXPECT_EQ(Eval("np.zeros((0, 4294967296))"), "double [0,4294967296] []");
}

TEST(InputExprsTest, EmptyIsRefused) {
  for (const char* expr : {"", "   "}) {
    absl::StatusOr<Tensor> t = ParseInputExpr(expr);
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(t.status().message(), HasSubstr("the expression is empty"));
  }
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
