// Pipelines built wrong: too few stages, a device_mapping of the wrong
// length or beyond the device, a last stage whose outputs have nowhere to
// go, outfeed options without the optimizer or outfeed they need, an
// Interleaved training pipeline with two stages on one IPU, counts
// below one, a depth the schedule cannot run, stages on different IPUs
// sharing a variable. Each is an error with the vendor's words where it has
// them, and the session keeps working afterwards.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/variables/variable_scope.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/ipu/ipu_compiler.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/pipelining/pipelining_ops.h"
#include "tensorflow_ipu/train/gradient_descent.h"
#include "tests/ipu/ipu_test_util.h"

namespace tensorflow_ipu {
namespace {

using ::testing::HasSubstr;
using ipu::pipelining_ops::ComputationalStage;
using ipu::pipelining_ops::OptimizerFunction;
using ipu::pipelining_ops::OptimizerFunctionOutput;
using ipu::pipelining_ops::PipelineSchedule;

class BadPipelineTest : public testing::IpuTest {
 protected:
  BadPipelineTest()
      : root_(Scope::NewRootScope()),
        ipu_(ipu::scopes::ipu_scope(root_, "/device:IPU:0")),
        outfeed_("bad_pipeline_out_" + std::to_string(count_++)) {}

  void SetUp() override {
    IpuTest::SetUp();
    Configure(2);
    std::vector<float> x(8 * 2);
    for (size_t i = 0; i < x.size(); ++i) x[i] = 0.1f * i;
    data::Dataset rows =
        *data::Dataset::FromTensorSlices({*Tensor::FromValues<float>(x, TensorShape({8, 2}))});
    infeed_.emplace(*ipu::IPUInfeedQueue::Create(rows.Batch(2, true).Repeat(),
                                                 "bad_pipeline_rows_" + std::to_string(count_)));
  }

  // Builds the pipeline inside compile: pipeline()'s error (returned, so
  // that the graph's scope stays usable), or the compiled op.
  absl::StatusOr<std::vector<Output>> Build(const std::vector<ComputationalStage>& stages,
                                            int depth, int repeat, bool outfeed,
                                            const OptimizerFunction& opt_fn,
                                            const std::vector<int>& mapping,
                                            PipelineSchedule schedule = PipelineSchedule::Grouped,
                                            ipu::IPUOutfeedQueue* other_outfeed = nullptr,
                                            ipu::pipelining_ops::PipelineOptions options = {}) {
    absl::Status built;
    auto compiled = ipu::ipu_compiler::compile(
        ipu_, [&](const Scope& s, const std::vector<Output>&) -> std::vector<Output> {
          ipu::IPUOutfeedQueue* out = other_outfeed != nullptr ? other_outfeed : &outfeed_;
          auto op = ipu::pipelining_ops::pipeline(s, stages, depth, repeat, {}, &*infeed_,
                                                  outfeed ? out : nullptr, opt_fn, mapping,
                                                  schedule, options);
          built = op.status();
          // Something on the IPU, so that compile itself succeeds.
          return {op.ok() ? Output(*op, 0) : ops::Const(s, 1.f)};
        }, {});
    if (!built.ok()) return built;
    return compiled;
  }

  // A correct pipeline in the same graph and session runs and outfeeds
  // what its stages compute.
  void ExpectStillWorks(const ClientSession& session) {
    ipu::IPUOutfeedQueue out("bad_pipeline_ok_" + std::to_string(count_++));
    auto op = ipu::ipu_compiler::compile(
        ipu_, [&](const Scope& s, const std::vector<Output>&) -> std::vector<Output> {
          auto p = ipu::pipelining_ops::pipeline(s, {Double(), Double()}, 2, 1, {}, &*infeed_,
                                                 &out);
          if (!p.ok()) s.UpdateStatus(p.status());
          return p.ok() ? std::vector<Output>{Output(*p, 0)} : std::vector<Output>{};
        }, {});
    ASSERT_TRUE(op.ok()) << op.status();
    std::vector<Output> dequeued = out.dequeue(root_);
    absl::Status s = session.Run({}, {}, {infeed_->initializer(root_)}, nullptr);
    ASSERT_TRUE(s.ok()) << s;
    s = session.Run({}, {}, {(*op)[0].op()}, nullptr);
    ASSERT_TRUE(s.ok()) << s;
    std::vector<Tensor> values;
    s = session.Run(dequeued, &values);
    ASSERT_TRUE(s.ok()) << s;
    // Two micro-batches of rows [0, 0.1], [0.2, 0.3], ... times 4.
    EXPECT_EQ(values[0].shape(), TensorShape({2, 2, 2}));
    EXPECT_NEAR(values[0].data<float>()[7], 4 * 0.7f, 1e-6);
  }

  static ComputationalStage Double() {
    return [](const Scope& s, const std::vector<Output>& in) {
      return std::vector<Output>{ops::Add(s, in[0], in[0])};
    };
  }

  static int count_;
  Scope root_, ipu_;
  std::optional<ipu::IPUInfeedQueue> infeed_;
  ipu::IPUOutfeedQueue outfeed_;
};

int BadPipelineTest::count_ = 0;

TEST_F(BadPipelineTest, OneStage) {
  auto r = Build({Double()}, 2, 1, true, nullptr, {});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("Pipeline requires at least two computational stages."));
  ExpectStillWorks(ClientSession(root_));
}

TEST_F(BadPipelineTest, DeviceMappingOfTheWrongLength) {
  auto r = Build({Double(), Double()}, 2, 1, true, nullptr, {0, 1, 0});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("Each stage must be mapped to an IPU: 3 mappings != 2 stages"));
  ExpectStillWorks(ClientSession(root_));
}

TEST_F(BadPipelineTest, DeviceMappingBeyondTheDevice) {
  auto r = Build({Double(), Double()}, 2, 1, true, nullptr, {0, 5});
  ASSERT_TRUE(r.ok()) << r.status();  // the device is known when it compiles
  ClientSession session(root_);
  absl::Status s = session.Run({}, {}, {infeed_->initializer(root_)}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  s = session.Run({}, {}, {(*r)[0].op()}, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("is on shard 5, but the IPU device it runs on "
                                                  "has 2 IPU(s)"));
  ExpectStillWorks(session);
}

TEST_F(BadPipelineTest, LastStageOutputsWithoutAnOutfeed) {
  auto r = Build({Double(), Double()}, 2, 1, /*outfeed=*/false, nullptr, {});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("The last computational stage has tensor outputs: "));
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr(", but no outfeed_queue has been provided."));
  ExpectStillWorks(ClientSession(root_));
}

TEST_F(BadPipelineTest, InterleavedTrainingWithTwoStagesOnOneIpu) {
  train::GradientDescentOptimizer sgd(0.1);
  Variable w = *get_variable(ipu_, "w", {2}, DT_FLOAT, initializers::Ones());
  ComputationalStage scale = [&](const Scope& s, const std::vector<Output>& in) {
    return std::vector<Output>{ops::Mul(s, in[0], w.value(s))};
  };
  ComputationalStage loss = [](const Scope& s, const std::vector<Output>& in) {
    return std::vector<Output>{ops::Sum(s, in[0], {0, 1})};
  };
  auto r = Build({scale, loss}, 2, 1, true,
                 [&](const Scope&, const std::vector<Output>& out) {
                   return OptimizerFunctionOutput(sgd, out[0]);
                 },
                 {0, 0}, PipelineSchedule::Interleaved);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented) << r.status();
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("The pipelining schedule 'Interleaved' does not currently support "
                        "multiple pipeline stages on the same device for training graphs."));
  ExpectStillWorks(ClientSession(root_));
}

TEST_F(BadPipelineTest, OutfeedOptionsWithoutWhatTheyNeed) {
  ipu::pipelining_ops::PipelineOptions loss;
  loss.outfeed_loss = true;
  auto r = Build({Double(), Double()}, 2, 1, true, nullptr, {}, PipelineSchedule::Grouped,
                 nullptr, loss);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("An optimizer_function must be provided when outfeed_loss is True."));
  ipu::pipelining_ops::PipelineOptions accumulate;
  accumulate.accumulate_outfeed = true;
  r = Build({Double(), Double()}, 2, 1, /*outfeed=*/false, nullptr, {},
            PipelineSchedule::Grouped, nullptr, accumulate);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("An outfeed_queue must be provided when accumulate_outfeed is True."));
  ipu::IPUOutfeedQueue last("bad_pipeline_last_" + std::to_string(count_++),
                            ipu::OutfeedMode::kLast);
  r = Build({Double(), Double()}, 2, 1, true, nullptr, {}, PipelineSchedule::Grouped, &last,
            accumulate);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("To accumulate the outfeed, it must be in IPUOutfeedMode ALL."));
  ExpectStillWorks(ClientSession(root_));
}

TEST_F(BadPipelineTest, CountsBelowOne) {
  auto r = Build({Double(), Double()}, 0, 1, true, nullptr, {});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("gradient_accumulation_count must be at least 1, but it is 0"));
  r = Build({Double(), Double()}, 2, -3, true, nullptr, {});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("repeat_count must be at least 1, but it is -3"));
  r = Build({Double(), Double()}, 1 << 20, 1 << 20, true, nullptr, {});
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("more than a loop can count"));
  ExpectStillWorks(ClientSession(root_));
}

TEST_F(BadPipelineTest, DepthTheScheduleCannotRun) {
  auto r = Build({Double(), Double()}, 3, 1, true, nullptr, {});  // inference: a multiple of 2
  ASSERT_TRUE(r.ok()) << r.status();
  ClientSession session(root_);
  absl::Status s = session.Run({}, {}, {infeed_->initializer(root_)}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  s = session.Run({}, {}, {(*r)[0].op()}, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("The number of iterations of the pipeline must be a multiple of 2, but "
                        "it is 3."));
  ExpectStillWorks(session);
}

TEST_F(BadPipelineTest, StagesOnTwoIpusShareAVariable) {
  Variable w = *get_variable(ipu_, "shared", {2}, DT_FLOAT, initializers::Ones());
  ComputationalStage scale = [&](const Scope& s, const std::vector<Output>& in) {
    return std::vector<Output>{ops::Mul(s, in[0], w.value(s))};
  };
  auto r = Build({scale, scale}, 2, 1, true, nullptr, {});
  ASSERT_TRUE(r.ok()) << r.status();
  ClientSession session(root_);
  absl::Status s = session.Run({}, {}, {global_variables_initializer(root_),
                                        infeed_->initializer(root_)}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  s = session.Run({}, {}, {(*r)[0].op()}, nullptr);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("Pipeline: variable 'shared' is used by stage 0 (op 'pipeline/loop/stage_0/ReadVariableOp', on IPU 0) and by stage 1"));
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("stages that share a variable must be mapped to the same IPU "
                        "(device_mapping)"));
  ExpectStillWorks(session);
}

}  // namespace
}  // namespace tensorflow_ipu
