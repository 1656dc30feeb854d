// Fuzz target: poplar_sim used directly. The input is decoded as a list of
// operations on the public API: variables and constants (small shapes, or
// shapes whose products overflow), views of them, tile mappings (some out
// of range), compute sets of the test vertices, popops' element-wise ops
// (in sequences of up to three, on any views), streams, programs nested
// and shared (some forming cycles), then Engine::create, stream and host
// connections (some null, backwards or of the wrong size) and runs. When
// the input's last byte is 0xC0 or more, the graph is replicated (2 or 4
// replicas of one IPU) and programs may hold cross-replica reductions
// (some with a group size that does not divide) and per-replica stream
// connections (some of a replica that does not exist).
//
// Whatever the input, nothing may crash, hang or read outside a buffer:
// every bad call must come back as a status. Work stays bounded: loops
// repeat at most 3 times and every while loop's condition ends it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "poplar_sim/device.h"
#include "poplar_sim/engine.h"
#include "poplar_sim/graph.h"
#include "poplar_sim/popops/elementwise.h"
#include "poplar_sim/program.h"
#include "poplar_sim/testing/test_vertices.h"

namespace {

using namespace poplar_sim;           // NOLINT
using namespace poplar_sim::program;  // NOLINT

// Reads the fuzz input one choice at a time; zeros once it is used up.
class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool done() const { return pos_ >= size_; }
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  // A choice in [0, n).
  unsigned pick(unsigned n) { return n == 0 ? 0 : byte() % n; }
  // A dimension: usually small, sometimes one that makes products overflow.
  size_t dim() {
    const uint8_t b = byte();
    if (b < 240) return b % 6;
    static const size_t kHostile[] = {size_t{1} << 31, size_t{1} << 32, size_t{1} << 62,
                                      size_t{1} << 63, static_cast<size_t>(-1), 0,
                                      size_t{1} << 40, 7};
    return kHostile[b % 8];
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

const Type kTypes[] = {FLOAT, INT, HALF, CHAR, UNSIGNED_INT, BOOL};

std::vector<size_t> Shape(Reader& in) {
  std::vector<size_t> s(in.pick(4));
  for (size_t& d : s) d = in.dim();
  return s;
}

// A view of `t` chosen by the input (possibly invalid: errors are sticky).
Tensor View(Reader& in, const Tensor& t) {
  switch (in.pick(10)) {
    case 0: return t.slice(in.dim(), in.dim(), in.pick(4));
    case 1: return t.reshape(Shape(in));
    case 2: return t.flatten();
    case 3: return t.rank() >= 2 ? t.transpose() : t;
    case 4: return t.broadcast(in.pick(2) ? in.pick(5) : (1u << 31) + in.byte(), in.pick(4));
    case 5: return t.reverse(in.pick(4));
    case 6: return t.subSample(in.pick(4), in.pick(4));
    case 7: return t.index({in.dim()});
    case 8: return concat({t, t}, in.pick(4));
    default: return t.expand({in.pick(3)});
  }
}

struct Built {
  std::vector<Tensor> tensors;
  std::vector<ComputeSet> computeSets;
  std::vector<DataStream> streams;
  std::vector<Program> programs;
  std::vector<Sequence> sequences;  // also in programs
  std::vector<std::string> hostReads, hostWrites;
};

// Adds a program made from the input to `b`.
void AddProgram(Reader& in, Graph& graph, Built& b) {
  auto tensor = [&]() { return b.tensors.empty() ? Tensor() : b.tensors[in.pick(b.tensors.size())]; };
  auto program = [&]() { return b.programs.empty() ? Program() : b.programs[in.pick(b.programs.size())]; };
  switch (in.pick(11)) {
    case 0:
      if (!b.computeSets.empty()) b.programs.push_back(Execute(b.computeSets[in.pick(b.computeSets.size())]));
      return;
    case 1: b.programs.push_back(Copy(tensor(), tensor())); return;
    case 2:
      if (!b.streams.empty()) {
        const DataStream& s = b.streams[in.pick(b.streams.size())];
        b.programs.push_back(s.direction == StreamDirection::HOST_TO_DEVICE ? Copy(s, tensor())
                                                                          : Copy(tensor(), s));
      }
      return;
    case 3: b.programs.push_back(Repeat(in.pick(4), program())); return;
    case 4: b.programs.push_back(If(tensor(), program(), program())); return;
    case 5: {
      Switch sw(tensor(), program());
      for (unsigned i = in.pick(3); i > 0; --i) sw.add(static_cast<int8_t>(in.byte()), program());
      b.programs.push_back(sw);
      return;
    }
    case 6: {
      // The condition copies a constant into the predicate, which ends the
      // loop at once: a while loop that always terminates.
      Tensor pred = graph.addConstant<int>(INT, {}, 0, "stop");
      graph.setTileMapping(pred, 0);
      Tensor flag = graph.addVariable(INT, {}, "flag");
      graph.setTileMapping(flag, 0);
      b.programs.push_back(RepeatWhileTrue(Copy(pred, flag), flag, program()));
      return;
    }
    case 7: {
      Sequence s;
      for (unsigned i = in.pick(4); i > 0; --i) s.add(program());
      b.programs.push_back(s);
      b.sequences.push_back(s);
      return;
    }
    case 8:
      // Grows an existing Sequence: may close a cycle.
      if (!b.sequences.empty()) b.sequences[in.pick(b.sequences.size())].add(program());
      return;
    case 9: b.programs.push_back(WriteUndef(tensor())); return;
    default:
      if (in.pick(2)) {
        b.programs.push_back(Sync(SyncType::INTERNAL));
      } else {
        const CollectiveOperator ops[] = {CollectiveOperator::ADD, CollectiveOperator::MEAN,
                                          CollectiveOperator::MUL, CollectiveOperator::MIN,
                                          CollectiveOperator::MAX};
        b.programs.push_back(
            CrossReplicaReduce(tensor(), tensor(), ops[in.pick(5)], in.pick(5), "reduce"));
      }
      return;
  }
}

// popops' element-wise ops on operands of at most 4,096 elements chosen by
// the input (any views: reversed, broadcast, overlapping one another), one
// to three in a Sequence: the engine runs those that write one tensor in
// turn part by part (engine_chains.cc), and must give their values or an
// error whatever the views.
void AddElementwise(Reader& in, Graph& graph, Built& b) {
  auto small = [&]() -> Tensor {
    const Tensor& t = b.tensors[in.pick(b.tensors.size())];
    return t.valid() && t.numElements() <= 4096 ? t : Tensor();
  };
  const Tensor a = small(), c = small();
  if (!a.valid() || !c.valid()) return;
  Sequence seq;
  Tensor out = a;
  switch (in.pick(3)) {
    case 0: out = popops::add(graph, a, c, seq); break;
    case 1: popops::addInPlace(graph, a, c, seq); break;
    default: out = popops::map(graph, popops::UnaryOpType::NEGATE, a, seq); break;
  }
  for (unsigned i = in.pick(3); i > 0 && out.valid(); --i) {
    const Tensor d = small();
    if (in.pick(2) || !d.valid()) {
      popops::mapInPlace(graph, popops::UnaryOpType::RELU, out, seq);
    } else {
      popops::mulInPlace(graph, out, d, seq);
    }
  }
  b.tensors.push_back(out);
  b.programs.push_back(seq);
}

void BuildGraph(Reader& in, Graph& graph, Built& b, unsigned numTiles) {
  const char* kVertices[] = {"test::AddVectors", "test::SumVector", "test::IncrementInt",
                             "test::ScaleVector", "test::NoEstimate"};
  const char* kFields[] = {"a", "b", "out", "in", "v", "k"};
  for (unsigned op = 0; op < 48 && !in.done(); ++op) {
    switch (in.pick(10)) {
      case 0: {
        Tensor t = graph.addVariable(kTypes[in.pick(6)], Shape(in), "v" + std::to_string(op));
        b.tensors.push_back(t);
        break;
      }
      case 1: {
        std::vector<size_t> shape = Shape(in);
        std::vector<float> values(in.pick(8));
        for (float& v : values) v = static_cast<float>(in.byte()) - 128.0f;
        b.tensors.push_back(graph.addConstant<float>(kTypes[in.pick(6)], shape, values,
                                                     "c" + std::to_string(op)));
        break;
      }
      case 2:
        if (!b.tensors.empty()) b.tensors.push_back(View(in, b.tensors[in.pick(b.tensors.size())]));
        break;
      case 3:
        if (!b.tensors.empty()) {
          const Tensor& t = b.tensors[in.pick(b.tensors.size())];
          if (in.pick(2)) {
            graph.setTileMapping(t, in.pick(numTiles + 1));  // sometimes out of range
          } else {
            TileToTensorMapping m(numTiles);
            for (unsigned i = in.pick(3); i > 0; --i) {
              m[in.pick(numTiles)].push_back(Interval{static_cast<int64_t>(in.pick(8)),
                                                      static_cast<int64_t>(in.pick(8))});
            }
            graph.setTileMapping(t, m);
          }
        }
        break;
      case 4:
        b.computeSets.push_back(graph.addComputeSet("cs" + std::to_string(op)));
        break;
      case 5:
        if (!b.computeSets.empty()) {
          std::vector<std::pair<std::string, Tensor>> connections;
          for (unsigned i = in.pick(4); i > 0 && !b.tensors.empty(); --i) {
            connections.emplace_back(kFields[in.pick(6)], b.tensors[in.pick(b.tensors.size())]);
          }
          VertexRef v = graph.addVertex(b.computeSets[in.pick(b.computeSets.size())],
                                        kVertices[in.pick(5)], connections);
          graph.setTileMapping(v, in.pick(numTiles + 1));
          if (in.pick(2)) graph.setInitialValue(v["k"], static_cast<double>(in.byte()) / 16);
          if (in.pick(2)) graph.setPerfEstimate(v, in.byte());
        }
        break;
      case 6: {
        const std::string handle = "s" + std::to_string(in.pick(4));
        const Type type = kTypes[in.pick(6)];
        const size_t n = in.dim();
        b.streams.push_back(in.pick(2) ? graph.addHostToDeviceFIFO(handle, type, n)
                                       : graph.addDeviceToHostFIFO(handle, type, n));
        if (!b.streams.back().valid()) b.streams.pop_back();
        break;
      }
      case 7:
        if (!b.tensors.empty()) {
          const std::string handle = "h" + std::to_string(in.pick(4));
          const Tensor& t = b.tensors[in.pick(b.tensors.size())];
          if (in.pick(2)) {
            graph.createHostRead(handle, t);
            b.hostReads.push_back(handle);
          } else {
            graph.createHostWrite(handle, t);
            b.hostWrites.push_back(handle);
          }
        }
        break;
      case 8:
        if (!b.tensors.empty()) AddElementwise(in, graph, b);
        break;
      default:
        AddProgram(in, graph, b);
        break;
    }
  }
}

// A host buffer for a stream or tensor: the right size or not, sometimes
// null or backwards.
struct HostBuffer {
  std::vector<char> bytes;
  char* begin = nullptr;
  char* end = nullptr;
};

HostBuffer MakeBuffer(Reader& in) {
  HostBuffer h;
  h.bytes.assign(in.pick(65), static_cast<char>(in.byte()));
  h.begin = h.bytes.data();
  h.end = h.bytes.data() + h.bytes.size();
  switch (in.pick(8)) {
    case 0: h.begin = nullptr; break;
    case 1: std::swap(h.begin, h.end); break;
    case 2: h.begin = h.end = nullptr; break;
    default: break;
  }
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader in(data, size);
  const unsigned numTiles = 1 + in.pick(4);
  const uint8_t last = size > 0 ? data[size - 1] : 0;
  const unsigned replicas = last >= 0xC0 ? (last & 1 ? 2 : 4) : 1;
  Device device = testing::SmallDevice(numTiles, replicas);
  Graph graph(device.getTarget(), replication_factor(replicas));
  Built b;
  BuildGraph(in, graph, b, numTiles);
  (void)graph.status();

  // Every program built is given to the engine: Engine::create is where
  // cycles are found and cut (a cycle never given to an engine is never
  // freed, as with any cycle of shared pointers).
  std::vector<Program> roots = b.programs;
  if (roots.empty()) roots.push_back(Sequence());
  OptionFlags options{{"debug.checkVertexFields", "true"}};
  if (in.pick(2)) options.set("debug.executeVerticesIndividually", "true");
  absl::StatusOr<Engine> engine = Engine::create(graph, roots, options);
  if (!engine.ok()) return 0;
  std::vector<HostBuffer> buffers;  // outlive the runs that use them
  buffers.reserve(64);
  for (unsigned i = in.pick(6); i > 0 && !b.streams.empty(); --i) {
    const DataStream& stream = b.streams[in.pick(b.streams.size())];
    const std::string& handle = stream.handle;
    buffers.push_back(MakeBuffer(in));
    const HostBuffer& h = buffers.back();
    // The one-record overload takes a bare pointer, so the engine cannot
    // see its extent: the caller promises a whole record, and so must this
    // harness (a shorter buffer would be the harness reading past it). It
    // gets a zeroed buffer of kOneRecord bytes, or null for a larger record.
    constexpr size_t kOneRecord = 4096;
    static char one_record[kOneRecord];
    const size_t record = stream.numElements * typeSize(stream.type);
    switch (in.pick(5)) {
      case 0: (void)engine->connectStream(handle, h.begin, h.end); break;
      case 4:
        (void)engine->connectStream(handle, in.pick(replicas + 1), h.begin, h.end);
        break;
      case 1:
        (void)engine->connectStream(
            handle, in.pick(4) && record <= kOneRecord ? one_record : nullptr);
        break;
      case 2:
        (void)engine->connectStreamToCallback(handle, [](void*) {});
        break;
      default:
        (void)engine->connectStreamToRecords(
            handle, {absl::Span<const char>(h.begin, h.bytes.size())});
        break;
    }
  }
  if (in.pick(4) != 0) (void)engine->load(device);
  for (unsigned i = 1 + in.pick(3); i > 0; --i) {
    (void)engine->run(in.pick(roots.size() + 1));
    if (!b.hostWrites.empty()) {
      buffers.push_back(MakeBuffer(in));
      (void)engine->writeTensor(b.hostWrites[in.pick(b.hostWrites.size())],
                                buffers.back().begin, buffers.back().end);
    }
    if (!b.hostReads.empty()) {
      buffers.push_back(MakeBuffer(in));
      (void)engine->readTensor(b.hostReads[in.pick(b.hostReads.size())],
                               buffers.back().begin, buffers.back().end);
    }
  }
  return 0;
}
