// Writes the fuzz targets' seed corpora into the directory given as the
// only argument (tools/fuzz/corpus when run as the BUILD file says):
//   graph_def_text_fuzzer/    GraphDefs in text format
//   graph_def_binary_fuzzer/  the same GraphDefs, serialised
//   checkpoint_fuzzer/        checkpoint indexes (whole, or payloads: first
//                             byte, the mode) with their data files (the
//                             input format of checkpoint_fuzzer.cc)
//   idx_fuzzer/               IDX files, raw and gzip-compressed
//   saved_model_fuzzer/       TensorBundles (index and data) and
//                             saved_model.pb files, one written by
//                             TensorFlow (the input format of
//                             saved_model_fuzzer.cc)
//   npy_fuzzer/               .npy files of every dtype and header form
//                             the reader knows, and two it refuses
//   input_exprs_fuzzer/       --input_exprs values, good and refused
//   application_executable_fuzzer/  an application executable and damaged ones
// The graphs cover every op family on the host and on /device:IPU:0, with
// placeholders of full, partial and unknown shapes.
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "tensorflow_ipu/cc/ops/control_flow_ops.h"
#include "tensorflow_ipu/cc/ops/standard_ops.h"
#include "tensorflow_ipu/cc/scope.h"
#include "tensorflow_ipu/core/graph_def_io.h"
#include "tensorflow_ipu/io/checkpoint.h"
#include "tensorflow_ipu/io/checkpoint.pb.h"
#include "tensorflow_ipu/io/crc32c.h"
#include "tensorflow_ipu/ipu/application_compile_op.h"
#include "tensorflow_ipu/ipu/feeds.h"
#include "tensorflow_ipu/ipu/loops.h"
#include "tensorflow_ipu/ipu/scopes.h"
#include "tensorflow_ipu/runtime/ipu/application_executable.h"
#include "tensorflow_ipu/saved_model/loader.h"
#include "tensorflow_ipu/saved_model/tensor_bundle.h"
#include "tools/ipu_saved_model_cli/npy.h"

namespace tensorflow_ipu {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void AppendLittleEndian(uint64_t value, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>(value >> (8 * i)));
}

// A checkpoint index file around `payload` (the layout of checkpoint.h).
std::string FrameIndex(const std::string& payload) {
  std::string file = "TFIPUIX1";
  AppendLittleEndian(payload.size(), 8, &file);
  file += payload;
  AppendLittleEndian(crc32c::Value(payload), 4, &file);
  return file;
}

std::string Gzip(const std::string& data, const fs::path& scratch) {
  gzFile f = gzopen(scratch.c_str(), "wb");
  gzwrite(f, data.data(), static_cast<unsigned>(data.size()));
  gzclose(f);
  std::string out = ReadBytes(scratch);
  fs::remove(scratch);
  return out;
}

using GraphBuilder = std::function<void(const Scope& host, const Scope& dev)>;

struct GraphSeed {
  std::string name;
  GraphBuilder build;
};

Output Ph(const Scope& s, const std::string& name, DataType t,
          std::vector<int64_t> dims) {
  return ops::Placeholder(s.WithOpName(name), t,
                          ops::Placeholder::Shape(TensorShape(dims)));
}

std::vector<GraphSeed> GraphSeeds() {
  return {
      {"tutorial",
       [](const Scope& host, const Scope& dev) {
         auto a = Ph(host, "a", DT_FLOAT, {2});
         auto b = Ph(host, "b", DT_FLOAT, {2});
         auto c = Ph(host, "c", DT_FLOAT, {2});
         ops::Add(dev, ops::Add(dev, a, b), ops::Add(dev, a, c));
       }},
      {"elementwise",
       [](const Scope& host, const Scope& dev) {
         auto x = Ph(host, "x", DT_FLOAT, {-1, 3});
         auto y = ops::Sub(dev, ops::Mul(dev, x, x), ops::Const(dev, 0.5f));
         auto z = ops::RealDiv(dev, ops::Exp(dev, ops::Neg(dev, y)),
                               ops::Sqrt(dev, ops::Square(dev, x)));
         ops::Select(dev, ops::Less(dev, x, y), ops::Tanh(dev, z),
                     ops::Sigmoid(dev, ops::Relu(dev, z)));
         ops::Maximum(dev, ops::Log(dev, ops::Rsqrt(dev, y)),
                      ops::Reciprocal(dev, x));
       }},
      {"matmul_bias_softmax",
       [](const Scope& host, const Scope& dev) {
         auto x = Ph(host, "x", DT_FLOAT, {2, 3});
         auto w = ops::Const(dev, {{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}});
         auto b = ops::Const(dev, {0.5f, -0.5f});
         auto logits = ops::BiasAdd(dev, ops::MatMul(dev, x, w), b);
         auto labels = Ph(host, "labels", DT_INT32, {2});
         ops::SparseSoftmaxCrossEntropyWithLogits(dev, logits, labels);
         ops::Softmax(dev, logits);
         ops::LogSoftmax(dev, logits);
         ops::MatMul(dev, x, x, ops::MatMul::TransposeB(true));
       }},
      {"reductions",
       [](const Scope& host, const Scope& dev) {
         auto x = Ph(host, "x", DT_FLOAT, {2, 3, 4});
         ops::Sum(dev, x, {0, 2});
         ops::Mean(dev, x, {1}, ops::Mean::KeepDims(true));
         ops::Max(dev, x, {-1});
         ops::Min(dev, x, {0});
         ops::Prod(dev, x, {2});
         ops::ArgMax(host, x, ops::Const(host, 1));
       }},
      {"control_flow",
       [](const Scope& host, const Scope& dev) {
         // A data-dependent loop with a cond inside, and a nested loop.
         auto x = Ph(host, "x", DT_FLOAT, {2});
         auto limit = Ph(host, "limit", DT_FLOAT, {});
         (void)ops::while_loop(
             dev,
             [&](const Scope& s, const std::vector<Output>& v) -> Output {
               return ops::Less(s, ops::Sum(s, v[1], {0}), limit);
             },
             [](const Scope& s, const std::vector<Output>& v) -> std::vector<Output> {
               auto y = ops::cond(
                   s, ops::Less(s, v[0], 2),
                   [&](const Scope& b) -> std::vector<Output> { return {ops::Mul(b, v[1], 2.f)}; },
                   [&](const Scope& b) -> std::vector<Output> { return {ops::Add(b, v[1], 1.f)}; });
               if (!y.ok()) return {};
               return {ops::Add(s, v[0], 1), (*y)[0]};
             },
             {ops::Const(dev, 0), x}, /*maximum_iterations=*/20);
         (void)ops::while_loop(
             dev,
             [](const Scope& s, const std::vector<Output>& v) -> Output {
               return ops::Less(s, v[0], 3);
             },
             [](const Scope& s, const std::vector<Output>& v) -> std::vector<Output> {
               auto inner = ops::while_loop(
                   s,
                   [&](const Scope& s2, const std::vector<Output>& u) -> Output {
                     return ops::Less(s2, u[0], v[0]);
                   },
                   [](const Scope& s2, const std::vector<Output>& u) -> std::vector<Output> {
                     return {ops::Add(s2, u[0], 1), ops::Mul(s2, u[1], 1.5f)};
                   },
                   {ops::Const(s, 0), v[1]});
               if (!inner.ok()) return {};
               return {ops::Add(s, v[0], 1), (*inner)[1]};
             },
             {ops::Const(dev, 0), ops::Const(dev, 1.f)});
       }},
      {"array",
       [](const Scope& host, const Scope& dev) {
         auto x = Ph(host, "x", DT_FLOAT, {2, 3});
         auto r = ops::Reshape(dev, x, {3, -1});
         auto t = ops::Transpose(dev, r, {1, 0});
         auto c = ops::Concat(dev, {t, t}, 0);
         auto s = ops::Slice(dev, c, {1, 0}, {2, -1});
         auto ss = ops::StridedSlice(dev, c, {0, 0}, {4, 3}, {2, 1});
         auto e = ops::ExpandDims(dev, ss, 0);
         ops::Squeeze(dev, e, ops::Squeeze::Axis({0}));
         ops::Stack(dev, {s, s}, ops::Stack::Axis(1));
         ops::Tile(dev, x, {2, 1});
         ops::Fill(dev, {2, 2}, 7.f);
         ops::ZerosLike(dev, x);
         ops::OnesLike(dev, x);
         ops::Shape(host, x);
         ops::Size(host, x);
         ops::Rank(host, x);
       }},
      {"one_hot_cast",
       [](const Scope& host, const Scope& dev) {
         auto i = Ph(host, "i", DT_INT32, {4});
         auto h = ops::OneHot(dev, i, 3, 1.f, 0.f);
         ops::Cast(dev, h, DT_INT32);
         ops::Cast(dev, ops::Greater(dev, h, ops::Const(dev, 0.5f)), DT_FLOAT);
         ops::LogicalNot(dev, ops::Equal(dev, i, ops::Const(dev, 1)));
       }},
      {"unknown_rank",
       [](const Scope& host, const Scope& dev) {
         auto x = ops::Placeholder(host.WithOpName("x"), DT_FLOAT);
         Output y = ops::Identity(dev, ops::Neg(dev, x));
         ops::NoOp(dev.WithControlDependencies({y.op()}));
       }},
      {"xent",
       [](const Scope& host, const Scope& dev) {
         auto f = Ph(host, "features", DT_FLOAT, {2, 3});
         auto l = Ph(host, "labels", DT_FLOAT, {2, 3});
         ops::SoftmaxCrossEntropyWithLogits(dev, f, l);
       }},
  };
}

void WriteGraphSeeds(const fs::path& dir) {
  int written = 0;
  for (const GraphSeed& seed : GraphSeeds()) {
    for (bool ipu : {false, true}) {
      Scope root = Scope::NewRootScope();
      Scope host = root.WithDevice("cpu");
      seed.build(host, ipu ? ipu::scopes::ipu_scope(root, "/device:IPU:0")
                           : host);
      absl::StatusOr<GraphDef> def = root.ToGraphDef();
      if (!def.ok()) {
        std::fprintf(stderr, "%s: %s\n", seed.name.c_str(),
                     std::string(def.status().message()).c_str());
        std::exit(1);
      }
      const std::string name = seed.name + (ipu ? "_ipu" : "_host");
      Write(dir / "graph_def_text_fuzzer" / (name + ".pbtxt"), GraphDefToText(*def));
      Write(dir / "graph_def_binary_fuzzer" / (name + ".pb"), def->SerializeAsString());
      ++written;
    }
  }
  std::printf("%d graphs\n", written);
}

// One checkpoint_fuzzer input: a mode byte, the index's length (2 bytes,
// little-endian), the index, the data file (see checkpoint_fuzzer.cc).
std::string CheckpointInput(int mode, const std::string& index,
                            const std::string& data) {
  std::string out = {static_cast<char>(mode), static_cast<char>(index.size() & 0xFF),
                     static_cast<char>(index.size() >> 8)};
  return out + index + data;
}

void WriteCheckpointSeeds(const fs::path& dir) {
  const std::vector<std::pair<std::string, NamedTensors>> seeds = {
      {"dense", {{"dense/kernel", Tensor::FromVector<float>({1, 2, 3, 4, 5, 6},
                                                          TensorShape({2, 3}))},
                 {"dense/bias", Tensor::Vector<float>({0.5f, -0.5f, 0})},
                 {"global_step", Tensor::Scalar<int64_t>(1875)}}},
      {"types", {{"i32", Tensor::Vector<int32_t>({-1, 0, 7})},
                 {"u8", Tensor::Vector<uint8_t>({0, 255})},
                 {"b", Tensor::Vector<bool>({true, false})},
                 {"d", Tensor::Scalar<double>(2.5)},
                 {"h", Tensor::Vector<half>({half(1.5f), half(-2.f)})},
                 {"empty", Tensor(DT_FLOAT, TensorShape({0, 3}))}}},
      {"none", {}},
  };
  const fs::path out = dir / "checkpoint_fuzzer";
  const fs::path scratch = out / "scratch";
  for (const auto& [name, tensors] : seeds) {
    fs::create_directories(scratch);
    const std::string prefix = (scratch / "ckpt").string();
    if (!WriteCheckpoint(prefix, tensors).ok()) std::exit(1);
    std::string index = ReadBytes(CheckpointIndexPath(prefix));
    std::string data;
    for (const auto& entry : fs::directory_iterator(scratch)) {
      if (entry.path().filename().string().rfind("ckpt.data-", 0) == 0) {
        data = ReadBytes(entry.path());
      }
    }
    fs::remove_all(scratch);
    // The fuzzer writes the data file under a fixed name: name it so.
    CheckpointIndexProto proto;
    if (!proto.ParseFromString(index.substr(16, index.size() - 20))) std::exit(1);
    proto.set_data_file("ckpt.data-0000000000000000");
    const std::string payload = proto.SerializeAsString();
    Write(out / (name + "_files"), CheckpointInput(0, FrameIndex(payload), data));
    Write(out / (name + "_payload"), CheckpointInput(1, payload, data));
    Write(out / (name + "_payload_crcs"), CheckpointInput(2, payload, data));
  }
}

void WriteIdxSeeds(const fs::path& dir) {
  const fs::path out = dir / "idx_fuzzer";
  std::string images = {0, 0, 0x08, 3, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 3};
  for (int i = 0; i < 12; ++i) images.push_back(static_cast<char>(i * 20));
  std::string labels = {0, 0, 0x08, 1, 0, 0, 0, 3, 7, 2, 1};
  std::string ints = {0, 0, 0x0C, 1, 0, 0, 0, 2, 0, 0, 1, 2, 0x7F, -1, -1, -1};
  std::string floats = {0, 0, 0x0D, 2, 0, 0, 0, 1, 0, 0, 0, 2,
                        0x3F, -0x80, 0, 0, -0x40, 0, 0, 0};  // 1.0, -2.0
  std::string empty = {0, 0, 0x08, 2, 0, 0, 0, 0, 0, 0, 0, 5};
  fs::create_directories(out);
  const std::vector<std::pair<std::string, std::string>> seeds = {
      {"images-idx3-ubyte", images}, {"labels-idx1-ubyte", labels},
      {"ints-idx1-int", ints},       {"floats-idx2-float", floats},
      {"empty-idx2-ubyte", empty}};
  for (const auto& [name, bytes] : seeds) {
    Write(out / name, bytes);
    Write(out / (name + ".gz"), Gzip(bytes, out / "scratch.gz"));
  }
}

// A .npy file around the header dict `dict` (version 1.0 or, for
// `major` 2 or 3, a 4-byte header length), padded as numpy pads it.
std::string NpyFile(const std::string& dict, const std::string& data, int major = 1) {
  const size_t len_size = major == 1 ? 2 : 4;
  const size_t pad = 64 - (8 + len_size + dict.size() + 1) % 64;
  const size_t len = dict.size() + pad + 1;
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major));
  out.push_back('\0');
  AppendLittleEndian(len, static_cast<int>(len_size), &out);
  return out + dict + std::string(pad, ' ') + "\n" + data;
}

void WriteNpySeeds(const fs::path& dir) {
  const fs::path out = dir / "npy_fuzzer";
  fs::create_directories(out);
  // What numpy.save writes, one file per dtype the reader knows.
  const std::vector<std::pair<std::string, Tensor>> arrays = {
      {"float32_2x3.npy", Tensor::FromVector<float>({1, -2, 3.5f, 0, 1e30f, -0.f},
                                                   TensorShape({2, 3}))},
      {"float64_scalar.npy", Tensor::Scalar<double>(2.5)},
      {"float16_vector.npy", Tensor::Vector<half>({half(1.5f), half(-2.f)})},
      {"int32_vector.npy", Tensor::Vector<int32_t>({1, -1, 2147483647})},
      {"int64_1x2x2.npy", Tensor::FromVector<int64_t>({1, 2, 3, -4}, TensorShape({1, 2, 2}))},
      {"uint8_vector.npy", Tensor::Vector<uint8_t>({0, 7, 255})},
      {"bool_vector.npy", Tensor::Vector<bool>({true, false, true})},
      {"empty_0x3.npy", Tensor::FromVector<float>({}, TensorShape({0, 3}))},
  };
  for (const auto& [name, tensor] : arrays) {
    absl::StatusOr<std::string> bytes = saved_model_cli::EncodeNpy(tensor);
    if (!bytes.ok()) std::exit(1);
    Write(out / name, *bytes);
  }
  // Forms numpy.save writes for other arrays: Fortran order, big-endian,
  // versions 2.0 and 3.0, Python 2's long dims, double quotes.
  std::string ints;
  for (int i = 0; i < 6; ++i) AppendLittleEndian(i, 4, &ints);
  Write(out / "fortran_2x3.npy",
        NpyFile("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", ints));
  Write(out / "big_endian_f8.npy",
        NpyFile("{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }",
                std::string("\x3f\xf0\0\0\0\0\0\0", 8)));
  Write(out / "version2.npy",
        NpyFile("{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", "\x01\x02\x03", 2));
  Write(out / "version3_empty.npy",
        NpyFile("{'descr': '|b1', 'fortran_order': False, 'shape': (0, 0), }", "", 3));
  Write(out / "python2_long.npy",
        NpyFile("{\"descr\": \"<i8\", \"fortran_order\": False, \"shape\": (1L,)}",
                std::string(8, '\0')));
  // Refused: a dtype the reader does not know; a shape of 2^62 elements
  // over no data.
  Write(out / "unknown_dtype.npy",
        NpyFile("{'descr': '<c16', 'fortran_order': False, 'shape': (), }", ""));
  Write(out / "huge_shape.npy",
        NpyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904,), }",
                ""));
}

void WriteInputExprSeeds(const fs::path& dir) {
  const fs::path out = dir / "input_exprs_fuzzer";
  fs::create_directories(out);
  const std::vector<std::pair<std::string, std::string>> seeds = {
      {"int", "5"},
      {"negative_float", "-1e-3"},
      {"bool", "True"},
      {"nested_list", "[[1], [2], [5]]"},
      {"mixed_list", "[1, 2.5, True]"},
      {"tuple", "((1, 2), (3, 4),)"},
      {"empty_list", "[]"},
      {"ones", "np.ones((2, 3))"},
      {"zeros_dtype", "numpy.zeros([4], dtype=np.int32)"},
      {"array_dtype", "np.array([[1, 2]], 'float16')"},
      {"array_of_call", "np.array(np.ones(2, np.uint8), dtype=bool)"},
      {"zeros_empty_axis", "np.zeros((0, 1099511627776))"},
      // Refused: a call the grammar does not know, a shape over the limit,
      // a ragged list, an integer beyond int64, an empty shape a Tensor
      // cannot hold.
      {"import", "__import__('os').system('true')"},
      {"too_many_elements", "np.ones((65536, 65536))"},
      {"ragged", "[[1, 2], [3]]"},
      {"int_overflow", "9223372036854775808"},
      {"empty_too_large", "np.zeros((1099511627776, 0))"},
  };
  for (const auto& [name, text] : seeds) Write(out / name, text);
}

// One saved_model_fuzzer input: a mode byte, A's length (2 bytes,
// little-endian), A, B (see saved_model_fuzzer.cc).
std::string SavedModelInput(int mode, const std::string& a, const std::string& b) {
  std::string out = {static_cast<char>(mode), static_cast<char>(a.size() & 0xFF),
                     static_cast<char>(a.size() >> 8)};
  return out + a + b;
}

void WriteSavedModelSeeds(const fs::path& dir) {
  const fs::path out = dir / "saved_model_fuzzer";
  const fs::path scratch = out / "scratch";
  fs::create_directories(scratch);
  const std::vector<std::pair<std::string, std::map<std::string, Tensor>>> bundles = {
      {"bundle_types", {{"f", Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}))},
                        {"i64", Tensor::Scalar<int64_t>(-7)},
                        {"b", Tensor::Vector<bool>({true, false})},
                        {"h", Tensor::Vector<half>({half(1.5f)})},
                        {"s", Tensor::Strings({"model", "", "a/b"})}}},
      {"bundle_empty", {}},
  };
  for (const auto& [name, tensors] : bundles) {
    const std::string prefix = (scratch / "variables").string();
    if (!WriteTensorBundle(prefix, tensors).ok()) std::exit(1);
    Write(out / name, SavedModelInput(0, ReadBytes(BundleIndexPath(prefix)),
                                      ReadBytes(BundleDataPath(prefix, 0, 1))));
  }
  fs::remove_all(scratch);
  // Written by TensorFlow 1.14: Snappy-compressed index blocks.
  const std::string tf =
      "tensorflow_ipu/saved_model/testdata/tf_serving_half_plus_two/00000123";
  const std::string tf_prefix = SavedModelVariablesPrefix(tf);
  Write(out / "bundle_tensorflow",
        SavedModelInput(0, ReadBytes(BundleIndexPath(tf_prefix)),
                        ReadBytes(BundleDataPath(tf_prefix, 0, 1))));
  Write(out / "saved_model_tensorflow", SavedModelInput(1, "", ReadBytes(tf + "/saved_model.pb")));
  // A small model: y = Identity(c), a signature, a main op.
  absl::StatusOr<GraphDef> graph = GraphDefFromText(R"pb(
    node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                                float_val: 1 float_val: 2 } } } }
    node { name: "y" op: "Identity" input: "c" attr { key: "T" value { type: DT_FLOAT } } }
    node { name: "init" op: "NoOp" input: "^y" }
  )pb");
  if (!graph.ok()) std::exit(1);
  SavedModel model;
  model.set_saved_model_schema_version(1);
  MetaGraphDef* meta = model.add_meta_graphs();
  meta->mutable_meta_info_def()->add_tags("serve");
  *meta->mutable_graph_def() = *graph;
  TensorInfo& y = (*(*meta->mutable_signature_def())["serving_default"].mutable_outputs())["y"];
  y.set_name("y:0");
  y.set_dtype(DT_FLOAT);
  (*meta->mutable_collection_def())[kSavedModelMainOpKey].mutable_node_list()->add_value("init");
  Write(out / "saved_model_small", SavedModelInput(1, "", model.SerializeAsString()));
}

// A real application (a loop of 4 over x: float[2, 3], sending 2x + offset
// to an outfeed), and the damage a file can take.
void WriteApplicationExecutableSeeds(const fs::path& dir) {
  const fs::path out = dir / "application_executable_fuzzer";
  fs::create_directories(out);
  absl::StatusOr<data::Dataset> shapes =
      data::Dataset::FromTensors({Tensor::FromVector<float>({0, 0, 0, 0, 0, 0}, TensorShape({2, 3}))});
  if (!shapes.ok()) std::exit(1);
  absl::StatusOr<ipu::IPUInfeedQueue> infeed = ipu::IPUInfeedQueue::Create(*shapes, "seed_in");
  if (!infeed.ok()) std::exit(1);
  ipu::IPUOutfeedQueue outfeed("seed_out");
  auto program = [&](const Scope& s) -> ipu::ComputationOutputs {
    Output offset = ops::Placeholder(s.WithOpName("offset"), DT_FLOAT,
                                     ops::Placeholder::Shape(TensorShape({})));
    Scope ipu = ipu::scopes::ipu_scope(s, "/device:IPU:0");
    auto loop = ipu::loops::repeat(
        ipu, 4,
        [&](const Scope& b, const std::vector<Output>&,
            const std::vector<Output>& x) -> ipu::ComputationOutputs {
          return {outfeed.enqueue(b, {ops::Add(b, ops::Mul(b, x[0], 2.f), offset)})};
        },
        {}, &*infeed);
    if (!loop.ok()) std::exit(1);
    return {(*loop)[0].op()};
  };
  const fs::path good = out / "loop_of_4";
  absl::StatusOr<std::string> written =
      ipu::application_compile_op::experimental_application_compile_op(program, good.string());
  if (!written.ok()) std::exit(1);
  const std::string bytes = ReadBytes(good);
  Write(out / "header_only", bytes.substr(0, 16));
  Write(out / "truncated", bytes.substr(0, bytes.size() / 2));
  std::string huge = bytes.substr(0, 8);
  AppendLittleEndian(~uint64_t{0}, 8, &huge);
  Write(out / "huge_length", huge);
  std::string other_magic = bytes;
  other_magic[7] = 'x';
  Write(out / "other_magic", other_magic);
  absl::StatusOr<ApplicationExecutableProto> exe = ParseApplicationExecutable(bytes, "seed");
  if (!exe.ok()) std::exit(1);
  ApplicationExecutableProto no_target = *exe;
  no_target.mutable_embedded_runtime_config()->set_run_target("missing");
  Write(out / "no_run_target", EncodeApplicationExecutable(no_target));
  ApplicationExecutableProto unknown_dim = *exe;
  unknown_dim.mutable_embedded_runtime_config()->mutable_signature()->mutable_streamed_inputs(0)
      ->mutable_shape()->mutable_dim(0)->set_size(-1);
  Write(out / "unknown_dim", EncodeApplicationExecutable(unknown_dim));
}

}  // namespace
}  // namespace tensorflow_ipu

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_seed_corpus <corpus directory>\n");
    return 1;
  }
  const std::filesystem::path dir(argv[1]);
  tensorflow_ipu::WriteGraphSeeds(dir);
  tensorflow_ipu::WriteCheckpointSeeds(dir);
  tensorflow_ipu::WriteIdxSeeds(dir);
  tensorflow_ipu::WriteSavedModelSeeds(dir);
  tensorflow_ipu::WriteNpySeeds(dir);
  tensorflow_ipu::WriteInputExprSeeds(dir);
  tensorflow_ipu::WriteApplicationExecutableSeeds(dir);
  return 0;
}
