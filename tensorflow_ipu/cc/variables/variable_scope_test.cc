#include "tensorflow_ipu/cc/variables/variable_scope.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/client_session.h"
#include "tensorflow_ipu/cc/ops/base_ops.h"
#include "tensorflow_ipu/core/status_test_util.h"

namespace tensorflow_ipu {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

TEST(VariableScopeTest, ResourceVariableInitReadAssign) {
  Scope root = Scope::NewRootScope();
  VariableScope vs(root, "vs");
  absl::StatusOr<Variable> w =
      vs.get_variable("w", {2}, DT_FLOAT, initializers::Constant(0.5));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->name(), "vs/w");
  EXPECT_TRUE(w->is_resource());
  Output read = w->value(root);
  Operation add = w->assign_add(root, {1.f, 2.f});
  Operation sub = w->assign_sub(root, {0.25f, 0.25f});
  Operation set = w->assign(root, {7.f, 8.f});
  Operation init = global_variables_initializer(root);
  ASSERT_TRUE(root.ok()) << root.status();

  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status before = session.Run({read}, &out);
  EXPECT_EQ(before.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(before.message(), HasSubstr("uninitialized value vs/w"));

  {
    absl::Status status = session.Run({}, {}, {init}, nullptr);
    ASSERT_TRUE(status.ok()) << status;
  }
  {
    absl::Status status = session.Run({read}, &out);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_THAT(Floats(out[0]), ElementsAre(0.5f, 0.5f));
  {
    absl::Status status = session.Run({}, {}, {add}, nullptr);
    ASSERT_TRUE(status.ok()) << status;
  }
  {
    absl::Status status = session.Run({}, {}, {sub}, nullptr);
    ASSERT_TRUE(status.ok()) << status;
  }
  {
    absl::Status status = session.Run({read}, &out);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_THAT(Floats(out[0]), ElementsAre(1.25f, 2.25f));
  {
    absl::Status status = session.Run({}, {}, {set}, nullptr);
    ASSERT_TRUE(status.ok()) << status;
  }
  {
    absl::Status status = session.Run({read}, &out);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_THAT(Floats(out[0]), ElementsAre(7.f, 8.f));
}

// TF1: tf.get_variable ignores tf.name_scope, so a model built in two name
// scopes (two loop bodies) asks for the same variables; variable scopes
// nest in variable scopes only, and their ops stay in the name scopes.
TEST(VariableScopeTest, NameScopesDoNotNameVariables) {
  Scope root = Scope::NewRootScope();
  Scope first = root.NewSubScope("loop");
  Scope second = root.NewSubScope("loop");  // "loop_1"
  EXPECT_EQ(second.name_prefix(), "loop_1");
  absl::StatusOr<Variable> w = get_variable(first, "w", {2}, DT_FLOAT, initializers::Zeros());
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->name(), "w");
  absl::StatusOr<Variable> again =
      get_variable(second, "w", {2}, DT_FLOAT, initializers::Zeros());
  EXPECT_EQ(again.status().code(), absl::StatusCode::kInvalidArgument) << again.status();
  EXPECT_THAT(std::string(again.status().message()),
              HasSubstr("Variable w already exists, disallowed"));
  absl::StatusOr<Variable> shared = get_variable(second, "w", {2}, DT_FLOAT, nullptr,
                                                 {.reuse = Reuse::kReuse});
  ASSERT_TRUE(shared.ok()) << shared.status();
  EXPECT_EQ(shared->handle().node(), w->handle().node());

  VariableScope in_first(first, "model");
  VariableScope in_second(second, "model", {.reuse = Reuse::kAutoReuse});
  absl::StatusOr<Variable> v = in_first.get_variable("v", {}, DT_FLOAT, initializers::Zeros());
  absl::StatusOr<Variable> same = in_second.get_variable("v", {}, DT_FLOAT);
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(v->name(), "model/v");
  EXPECT_EQ(same->handle().node(), v->handle().node());
  // The variable scope's other ops are in its name scope.
  EXPECT_EQ(in_first.scope().name_prefix(), "loop/model");
  EXPECT_EQ(in_second.scope().name_prefix(), "loop_1/model");
  // Nested variable scopes, under a name scope inside them.
  VariableScope inner(in_first.scope().NewSubScope("block"), "dense");
  absl::StatusOr<Variable> k = inner.get_variable("kernel", {1}, DT_FLOAT, initializers::Ones());
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->name(), "model/dense/kernel");
  ASSERT_EQ(absl::OkStatus(), root.status());
}

TEST(VariableScopeTest, ReuseRules) {
  Scope root = Scope::NewRootScope();
  VariableScope vs(root, "vs");
  TF_ASSERT_OK(vs.get_variable("w", {2}, DT_FLOAT));
  absl::StatusOr<Variable> again = vs.get_variable("w", {2}, DT_FLOAT);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(again.status().message(),
              HasSubstr("Variable vs/w already exists, disallowed"));

  VariableScope reuse(root, "vs", {.reuse = Reuse::kReuse});
  absl::StatusOr<Variable> same = reuse.get_variable("w", {2}, DT_FLOAT);
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(same->name(), "vs/w");
  EXPECT_TRUE(same->initializer().valid());
  absl::StatusOr<Variable> other_shape = reuse.get_variable("w", {3}, DT_FLOAT);
  EXPECT_THAT(other_shape.status().message(),
              HasSubstr("Trying to share variable vs/w, but specified shape [3]"));
  absl::StatusOr<Variable> missing = reuse.get_variable("nope", {2}, DT_FLOAT);
  EXPECT_THAT(missing.status().message(),
              HasSubstr("Variable vs/nope does not exist"));

  VariableScope autoreuse(root, "vs", {.reuse = Reuse::kAutoReuse});
  TF_EXPECT_OK(autoreuse.get_variable("w", {2}, DT_FLOAT));
  absl::StatusOr<Variable> created = autoreuse.get_variable("b", {2}, DT_FLOAT);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->name(), "vs/b");
  absl::StatusOr<std::vector<Variable>> all =
      VariablesInCollection(root, kGlobalVariablesCollection);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[1].name(), "vs/b");
}

TEST(VariableScopeTest, SeededInitializersAreReproducibleAndHaveTheirRanges) {
  auto make = [](int64_t seed) {
    Scope root = Scope::NewRootScope();
    Variable g = *get_variable(root, "g", {64, 32}, DT_FLOAT,
                               initializers::GlorotUniform(seed));
    Variable n = *get_variable(root, "n", {1000}, DT_FLOAT,
                               initializers::TruncatedNormal(1.0, 0.5, seed));
    Variable u = *get_variable(root, "u", {1000}, DT_FLOAT,
                               initializers::RandomUniform(-2, -1, seed));
    Variable o = *get_variable(root, "o", {3}, DT_INT32, initializers::Ones());
    ClientSession session(root);
    std::vector<Tensor> out;
    {
      absl::Status status = session.Run({}, {}, {global_variables_initializer(root)}, nullptr);
      EXPECT_TRUE(status.ok()) << status;
    }
    EXPECT_TRUE(session.Run({g.value(root), n.value(root), u.value(root),
                             o.value(root)}, &out).ok());
    return out;
  };
  std::vector<Tensor> a = make(7), b = make(7), c = make(8);
  EXPECT_TRUE(a[0].BitwiseEquals(b[0]));
  EXPECT_TRUE(a[1].BitwiseEquals(b[1]));
  EXPECT_FALSE(a[0].BitwiseEquals(c[0]));
  const float limit = std::sqrt(6.0f / (64 + 32));
  for (float x : Floats(a[0])) {
    EXPECT_LE(std::abs(x), limit);
  }
  for (float x : Floats(a[1])) {
    EXPECT_GE(x, 0.0f);  // mean 1, deviation 0.5, cut at two deviations
    EXPECT_LE(x, 2.0f);
  }
  for (float x : Floats(a[2])) {
    EXPECT_GE(x, -2.0f);
    EXPECT_LT(x, -1.0f);
  }
  EXPECT_THAT(std::vector<int32_t>(a[3].data<int32_t>(), a[3].data<int32_t>() + 3),
              ElementsAre(1, 1, 1));
}

TEST(VariableScopeTest, ReferenceVariablesWorkOnTheCpu) {
  Scope root = Scope::NewRootScope();
  VariableScope vs(root, "ref", {.use_resource = false});
  absl::StatusOr<Variable> v =
      vs.get_variable("v", {2}, DT_FLOAT, initializers::Constant(1.0));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_FALSE(v->is_resource());
  EXPECT_EQ(v->handle().node()->op(), "VariableV2");
  EXPECT_EQ(v->initializer().node()->op(), "Assign");
  Operation inc = v->assign_add(root, {1.f, 2.f});
  Output doubled = ops::Identity(root, v->value(root));
  ClientSession session(root);
  std::vector<Tensor> out;
  absl::Status before = session.Run({doubled}, &out);
  EXPECT_EQ(before.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(before.message(), HasSubstr("uninitialized value ref/v"));
  {
    absl::Status status = session.Run({}, {}, {v->initializer()}, nullptr);
    ASSERT_TRUE(status.ok()) << status;
  }
  {
    absl::Status status = session.Run({}, {}, {inc}, nullptr);
    ASSERT_TRUE(status.ok()) << status;
  }
  {
    absl::Status status = session.Run({doubled}, &out);
    ASSERT_TRUE(status.ok()) << status;
  }
  EXPECT_THAT(Floats(out[0]), ElementsAre(2.f, 3.f));
}

TEST(VariableScopeTest, AssigningAnotherShapeIsAnErrorNamingTheVariable) {
  Scope root = Scope::NewRootScope();
  Variable w = *get_variable(root, "w", {2}, DT_FLOAT, initializers::Zeros());
  auto p = ops::Placeholder(root, DT_FLOAT);
  Operation bad = w.assign(root, p);
  ClientSession session(root);
  absl::Status s = session.Run({{p, {1.f, 2.f, 3.f}}}, {}, {bad}, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("to variable w of type float and shape [2]"));
}

}  // namespace
}  // namespace tensorflow_ipu
