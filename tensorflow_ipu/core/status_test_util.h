// Test assertions on absl::Status and absl::StatusOr, named as TensorFlow
// names them (tensorflow/core/lib/core/status_test_util.h). They print the
// status on failure: `EXPECT_TRUE(s.ok())` would only say "false".
//
//   TF_ASSERT_OK(session.Run(...));
//   TF_EXPECT_OK(ParseGraph(text));   // a StatusOr<T> works too
#ifndef TENSORFLOW_IPU_CORE_STATUS_TEST_UTIL_H_
#define TENSORFLOW_IPU_CORE_STATUS_TEST_UTIL_H_

#include <gtest/gtest.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tensorflow_ipu::testing_internal {

inline const absl::Status& StatusOf(const absl::Status& status) {
  return status;
}
template <typename T>
const absl::Status& StatusOf(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

}  // namespace tensorflow_ipu::testing_internal

// `expr` is evaluated once; the temporaries it makes live until the
// comparison is done (one full expression).
#define TF_ASSERT_OK(expr) \
  ASSERT_EQ(::absl::OkStatus(), ::tensorflow_ipu::testing_internal::StatusOf(expr))
#define TF_EXPECT_OK(expr) \
  EXPECT_EQ(::absl::OkStatus(), ::tensorflow_ipu::testing_internal::StatusOf(expr))

// `lhs = *expr` for a StatusOr `expr`, failing the test with the status
// when it is an error:
//   TF_ASSERT_OK_AND_ASSIGN(auto model, keras::Model::Create(in, out));
#define TF_ASSERT_OK_AND_ASSIGN(lhs, expr) \
  TF_ASSERT_OK_AND_ASSIGN_IMPL_(TF_TEST_CONCAT_(tf_statusor_, __LINE__), lhs, expr)
#define TF_TEST_CONCAT_INNER_(a, b) a##b
#define TF_TEST_CONCAT_(a, b) TF_TEST_CONCAT_INNER_(a, b)
#define TF_ASSERT_OK_AND_ASSIGN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                   \
  ASSERT_EQ(::absl::OkStatus(), statusor.status());         \
  lhs = std::move(*statusor)

#endif  // TENSORFLOW_IPU_CORE_STATUS_TEST_UTIL_H_
