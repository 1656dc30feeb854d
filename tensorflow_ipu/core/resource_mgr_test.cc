#include "tensorflow_ipu/core/resource_mgr.h"
#include "unsupported/Eigen/CXX11/Tensor"

#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/core/status_test_util.h"

namespace tensorflow_ipu {
namespace {

using ::testing::HasSubstr;

TEST(ResourceManagerTest, CreatesOnceAndRefusesConflictingHandles) {
  ResourceManager rm;
  absl::StatusOr<std::shared_ptr<Var>> a =
      rm.LookupOrCreate({"w", DT_FLOAT, TensorShape({2})});
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<std::shared_ptr<Var>> b =
      rm.LookupOrCreate({"w", DT_FLOAT, TensorShape({2})});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(a->get(), b->get());
  absl::StatusOr<std::shared_ptr<Var>> c =
      rm.LookupOrCreate({"w", DT_INT32, TensorShape({2})});
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(c.status().message(), HasSubstr("Variable w exists with type float"));
  EXPECT_EQ(rm.Lookup("nope").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(rm.Vars().size(), 1u);
}

// A kernel's remembered lookup gives the manager's variable, keeps the
// manager's conflict errors, and is not fooled by another handle or by
// another manager.
TEST(CachedVarLookupTest, GivesTheManagersVariableAndItsErrors) {
  ResourceManager rm;
  CachedVarLookup cache;
  const ResourceHandle w{"w", DT_FLOAT, TensorShape({2})};
  absl::StatusOr<std::shared_ptr<Var>> first = cache.LookupOrCreate(&rm, w);
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<std::shared_ptr<Var>> again = cache.LookupOrCreate(&rm, w);
  ASSERT_TRUE(again.ok()) << again.status();
  absl::StatusOr<std::shared_ptr<Var>> managers = rm.Lookup("w");
  ASSERT_TRUE(managers.ok()) << managers.status();
  EXPECT_EQ(first->get(), managers->get());
  EXPECT_EQ(again->get(), managers->get());

  absl::StatusOr<std::shared_ptr<Var>> conflict =
      cache.LookupOrCreate(&rm, {"w", DT_FLOAT, TensorShape({3})});
  EXPECT_EQ(conflict.status().code(), absl::StatusCode::kInvalidArgument) << conflict.status();
  EXPECT_THAT(conflict.status().message(), HasSubstr("Variable w exists"));

  absl::StatusOr<std::shared_ptr<Var>> other =
      cache.LookupOrCreate(&rm, {"v", DT_FLOAT, TensorShape({2})});
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_NE(other->get(), first->get());
  EXPECT_EQ(other->get(), rm.Lookup("v")->get());

  ResourceManager second_session;
  absl::StatusOr<std::shared_ptr<Var>> elsewhere = cache.LookupOrCreate(&second_session, w);
  ASSERT_TRUE(elsewhere.ok()) << elsewhere.status();
  EXPECT_NE(elsewhere->get(), first->get());
  EXPECT_EQ(elsewhere->get(), second_session.Lookup("w")->get());
}

TEST(CachedVarLookupTest, NoManagerIsAnError) {
  CachedVarLookup cache;
  absl::StatusOr<std::shared_ptr<Var>> v =
      cache.LookupOrCreate(nullptr, {"w", DT_FLOAT, TensorShape({2})});
  EXPECT_EQ(v.status().code(), absl::StatusCode::kFailedPrecondition) << v.status();
  EXPECT_THAT(v.status().message(), HasSubstr("Variable w"));
}

TEST(CachedVarLookupTest, ThreadsLookingUpAtOnceGetOneVariable) {
  ResourceManager rm;
  CachedVarLookup cache;
  const ResourceHandle w{"w", DT_FLOAT, TensorShape({2})};
  std::vector<Var*> found(8, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 1000; ++i) {
        absl::StatusOr<std::shared_ptr<Var>> v = cache.LookupOrCreate(&rm, w);
        if (!v.ok() || (found[t] != nullptr && found[t] != v->get())) return;
        found[t] = v->get();
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(found[t], rm.Lookup("w")->get()) << "thread " << t;
}

TEST(VarTest, ReadAssignUpdateAndErrors) {
  Var v("w", DT_FLOAT, TensorShape({2}));
  EXPECT_FALSE(v.IsInitialized());
  EXPECT_EQ(v.Read().status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(v.Read().status().message(), HasSubstr("uninitialized value w"));
  EXPECT_EQ(v.Assign(Tensor::Vector<float>({1, 2, 3})).code(),
            absl::StatusCode::kInvalidArgument);
  TF_ASSERT_OK(v.Assign(Tensor::Vector<float>({1, 2})));
  Tensor before = *v.Read();
  ASSERT_TRUE(v.Update([](Tensor* t) {
                 Tensor n(DT_FLOAT, t->shape());
                 n.flat<float>() = t->flat<float>() * 10.f;
                 *t = n;
                 return absl::OkStatus();
               }).ok());
  // The earlier read keeps its value: values are replaced, never written.
  EXPECT_EQ(before.data<float>()[1], 2.f);
  EXPECT_EQ(v.Read()->data<float>()[1], 20.f);
}

// A device holder that serves one value, as the IPU runtime does.
class FakeHolder : public VarDeviceHolder {
 public:
  absl::Status CopyToHost(Var* var) override {
    ++copies;
    absl::MutexLock lock(var->mu());
    var->SetHostValueLocked(Tensor::Vector<float>({5, 6}));
    return absl::OkStatus();
  }
  int copies = 0;
};

TEST(VarTest, ReadBringsADeviceValueHomeOnce) {
  Var v("w", DT_FLOAT, TensorShape({2}));
  FakeHolder holder;
  {
    absl::MutexLock lock(v.mu());
    v.SetDeviceCopyLocked(&holder, /*host_still_valid=*/false);
  }
  EXPECT_EQ(v.Read()->data<float>()[0], 5.f);
  EXPECT_EQ(v.Read()->data<float>()[1], 6.f);
  EXPECT_EQ(holder.copies, 1);
  // A host assignment makes the device copy stale.
  TF_ASSERT_OK(v.Assign(Tensor::Vector<float>({0, 0})));
  absl::MutexLock lock(v.mu());
  EXPECT_EQ(v.holder_locked(), nullptr);
}

TEST(VarTest, ConcurrentUpdatesLoseNothing) {
  Var v("n", DT_INT64, TensorShape());
  TF_ASSERT_OK(v.Assign(Tensor::Scalar<int64_t>(0)));
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&v] {
      for (int i = 0; i < 1000; ++i) {
        EXPECT_TRUE(v.Update([](Tensor* x) {
                       *x = Tensor::Scalar<int64_t>(x->data<int64_t>()[0] + 1);
                       return absl::OkStatus();
                     }).ok());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(v.Read()->data<int64_t>()[0], 8000);
}

}  // namespace
}  // namespace tensorflow_ipu
