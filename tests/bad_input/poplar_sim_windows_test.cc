// Hostile window geometry given straight to the simulator's window
// libraries (popnn's pooling, poplin's col2im), bypassing the TensorFlow
// ops' own checks: sizes near 2^32 and 2^64, windows wholly in the
// padding, products that wrap round. Each is refused by name while the
// graph is built, before any vertex is made, and the device keeps working.
#include <limits>
#include <vector>

#include "poplar_sim/poplin/col2im.h"
#include "poplar_sim/popnn/pooling.h"
#include "tests/bad_input/poplar_sim_bad_input.h"

namespace poplar_sim {
namespace {

using namespace bad_input;  // NOLINT: the shared checks and fixture

poputil::Window2D Small() {
  poputil::Window2D w;
  w.batch = 1;
  w.inRows = w.inCols = 4;
  w.channels = 2;
  w.windowRows = w.windowCols = 2;
  w.strideRows = w.strideCols = 2;
  w.outRows = w.outCols = 2;
  return w;
}

class WindowBadInputTest : public PoplarSimBadInputTest {
 protected:
  // The status of building maxPool, its gradient and col2im over `w` with
  // tensors of the small geometry's shapes.
  std::vector<absl::Status> Build(const poputil::Window2D& w) {
    std::vector<absl::Status> out;
    for (int which = 0; which < 3; ++which) {
      Graph g(device_.getTarget());
      program::Sequence prog;
      Tensor in = g.addVariable(FLOAT, {1, 4, 4, 2}, "in");
      Tensor dy = g.addVariable(FLOAT, {1, 2, 2, 2}, "dy");
      Tensor cols = g.addVariable(FLOAT, {4, 8}, "cols");
      if (which == 0) popnn::maxPool(g, in, w, prog);
      if (which == 1) popnn::maxPoolInputGradient(g, in, dy, w, prog);
      if (which == 2) poplin::col2im(g, cols, w, prog);
      out.push_back(g.status());
    }
    return out;
  }
  void ExpectAllRefused(const poputil::Window2D& w, const std::string& words) {
    for (const absl::Status& s : Build(w)) {
      ExpectError(s, absl::StatusCode::kInvalidArgument, {words});
    }
    ExpectDeviceWorks();
  }
};

TEST_F(WindowBadInputTest, TheSmallGeometryBuilds) {
  for (const absl::Status& s : Build(Small())) EXPECT_TRUE(s.ok()) << s;
}

TEST_F(WindowBadInputTest, SizesBeyond32Bits) {
  poputil::Window2D w = Small();
  w.outCols = 1;  // one window a row: its stride is never used
  w.strideCols = k2p32 + 2;
  ExpectAllRefused(w, "a size beyond 2^32");
}

TEST_F(WindowBadInputTest, StrideOfZeroAndEmptyOutput) {
  poputil::Window2D w = Small();
  w.strideRows = 0;
  ExpectAllRefused(w, "must be at least 1");
  w = Small();
  w.outCols = 0;
  ExpectAllRefused(w, "must be at least 1");
}

TEST_F(WindowBadInputTest, WindowsWhollyInThePaddingOrPastTheEnd) {
  poputil::Window2D w = Small();
  w.padLeft = 2;
  ExpectAllRefused(w, "a window holds no input position");
  w = Small();
  w.outRows = kMinus1;  // the last window would start 2^65 rows in
  ExpectAllRefused(w, "a window holds no input position");
}

TEST_F(WindowBadInputTest, WindowLongerThanThePaddedInput) {
  poputil::Window2D w = Small();
  w.windowRows = 6;  // 4 rows, no padding
  w.outRows = 1;
  ExpectAllRefused(w, "a window longer than the padded input");
}

// 2^32 - 1 windows a side: each size passes the 32-bit check, their
// product does not fit 64 bits, and a wrapped product must not match.
TEST_F(WindowBadInputTest, Col2ImShapeProductsThatWrap) {
  poputil::Window2D w = Small();
  w.inRows = w.inCols = static_cast<size_t>(std::numeric_limits<uint32_t>::max()) - 8;
  w.windowRows = w.windowCols = 2;
  w.strideRows = w.strideCols = 1;
  w.outRows = w.outCols = w.inRows - 1;
  w.batch = static_cast<size_t>(std::numeric_limits<uint32_t>::max());
  Graph g(device_.getTarget());
  program::Sequence prog;
  poplin::col2im(g, g.addVariable(FLOAT, {4, 8}, "cols"), w, prog);
  ExpectError(g.status(), absl::StatusCode::kInvalidArgument, {"is not the im2col matrix"});
  ExpectDeviceWorks();
}

// An input that is already an error (a failed view) is passed on with its
// own message, not replaced by a geometry complaint.
TEST_F(WindowBadInputTest, InvalidTensorsPassTheirErrorOn) {
  Graph g(device_.getTarget());
  program::Sequence prog;
  Tensor bad = g.addVariable(FLOAT, {4}, "v").reshape({3});
  ASSERT_FALSE(bad.valid());
  const std::string why(bad.status().message());
  Tensor dy = g.addVariable(FLOAT, {1, 2, 2, 2}, "dy");
  Tensor in = g.addVariable(FLOAT, {1, 4, 4, 2}, "in");
  for (const Tensor& t : {popnn::maxPool(g, bad, Small(), prog),
                          popnn::maxPoolInputGradient(g, bad, dy, Small(), prog),
                          popnn::maxPoolInputGradient(g, in, bad, Small(), prog),
                          poplin::col2im(g, bad, Small(), prog)}) {
    EXPECT_FALSE(t.valid());
    EXPECT_THAT(std::string(t.status().message()), HasSubstr(why)) << t.status();
  }
  ExpectDeviceWorks();
}

}  // namespace
}  // namespace poplar_sim
