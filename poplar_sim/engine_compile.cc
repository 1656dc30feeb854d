// Engine compilation: validation, static costs and memory layout.
#include <algorithm>
#include <cstring>
#include <new>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "poplar_sim/cost_model.h"
#include "poplar_sim/engine_internal.h"
#include "poplar_sim/program_check.h"
#include "poplar_sim/status_macros.h"
#include "poplar_sim/variable_liveness.h"

namespace poplar_sim {
namespace internal {
namespace {

std::string Describe(const Tensor& t) {
  return absl::StrCat("'", t.getDebugName(), "' ", typeName(t.elementType()),
                      t.shapeToString());
}

// Offers compute set `cs`'s users of each tile to `top`, as the
// out-of-memory error lists them: its exchange buffers (when any), then its
// vertex state.
void noteLargestUsers(const ComputeSetAnalysis& a, unsigned cs, TileTopUsers* top) {
  for (const ComputeSetTileUse& u : a.tiles) {
    if (u.exchangeBufferBytes > 0) top->offer(u.tile, u.exchangeBufferBytes, 2 * uint64_t{cs});
  }
  for (const ComputeSetTileUse& u : a.tiles) {
    top->offer(u.tile, u.vertexStateBytes, 2 * uint64_t{cs} + 1);
  }
}

// Compute sets analysed together, and the fewest worth handing to the host
// threads (a graph of a few compute sets compiles in microseconds).
constexpr unsigned kAnalysisBatch = 1024;
constexpr size_t kParallelAnalysisMin = 64;
constexpr unsigned kMaxAnalysers = 64;

}  // namespace

absl::Status EngineImpl::validateVariables() const {
  // A variable several times larger than the whole target can never be
  // laid out; saying so before the programs are costed bounds that work (a
  // strided view is costed element by element). A tensor only somewhat too
  // large gets the per-tile out-of-memory report of layOutMemory, which
  // names each tile's largest users. With debug.allowOutOfMemory the bound
  // is what the simulator may keep in host memory.
  constexpr uint64_t kTargetMultiple = 4;
  constexpr uint64_t kMaxHostBytes = uint64_t{1} << 36;
  const uint64_t limit = options.allowOutOfMemory ? kMaxHostBytes
                                                  : kTargetMultiple * target.getMemoryBytes();
  for (const VariableRecord& v : graph->variables) {
    const uint64_t bytes = static_cast<uint64_t>(v.numElements) * typeSize(v.type);
    if (bytes > limit) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "Tensor '", *v.name, "' ", typeName(v.type), shapeToString(v.shape), " needs ",
          bytes, " bytes, more than ",
          options.allowOutOfMemory
              ? absl::StrCat("the ", limit, " bytes the simulator keeps in host memory")
              : absl::StrCat(kTargetMultiple, " times the ", target.getMemoryBytes(),
                             " bytes of the whole target (", target.getNumTiles(),
                             " tiles of ", target.getBytesPerTile(), " bytes)"),
          ", so it can never fit; make it smaller or use a larger device"));
    }
  }
  for (const VariableRecord& v : graph->variables) {
    int64_t first;
    const int64_t unmapped = v.mapping.countUnmapped(v.numElements, &first);
    if (unmapped > 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "Tensor '", *v.name, "' ", typeName(v.type), shapeToString(v.shape),
          " has ", unmapped, " of its ", v.numElements,
          " elements not mapped to a tile (the first is element ", first,
          "); map them with Graph::setTileMapping or "
          "poputil::mapTensorLinearly"));
    }
  }
  return absl::OkStatus();
}

absl::Status EngineImpl::checkTensor(const Tensor& t,
                                     const std::string& what) const {
  if (!t.valid()) {
    return absl::Status(t.status().code(),
                        absl::StrCat(what, ": ", t.status().message()));
  }
  if (t.graphId() != graph->id) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": tensor '", t.getDebugName(),
        "' belongs to another graph than the engine's"));
  }
  return absl::OkStatus();
}

absl::Status EngineImpl::checkCopyOperands(const Tensor& src, const Tensor& dst,
                                           const std::string& what) const {
  POPLAR_SIM_RETURN_IF_ERROR(checkTensor(src, what));
  POPLAR_SIM_RETURN_IF_ERROR(checkTensor(dst, what));
  if (src.elementType() != dst.elementType() || src.numElements() != dst.numElements()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": source and destination must have the same element type "
        "and number of elements"));
  }
  if (dst.containsAliases()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": the destination repeats elements (a broadcast, or views that overlap)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<unsigned> EngineImpl::compileProgram(const program::Program& root) {
  // Depth-first and iterative, so that any nesting depth compiles: each
  // step is entered (checked and costed) before its children, which get
  // the following ids in order, as the profile's steps list them.
  struct Frame {
    unsigned id;
    size_t next = 0;
  };
  POPLAR_SIM_ASSIGN_OR_RETURN(const unsigned rootId, enterStep(root.node(), -1));
  std::vector<Frame> stack = {Frame{rootId}};
  while (!stack.empty()) {
    Frame& f = stack.back();
    const program::ProgramNode& n = *steps[f.id].node;
    if (f.next == n.children.size()) {
      stack.pop_back();
      continue;
    }
    const unsigned parent = f.id;
    const std::shared_ptr<program::ProgramNode>& child = n.children[f.next++].node();
    POPLAR_SIM_ASSIGN_OR_RETURN(const unsigned id,
                                enterStep(child, static_cast<int>(parent)));
    steps[parent].children.push_back(id);
    stack.push_back(Frame{id});
  }
  return rootId;
}

absl::StatusOr<unsigned> EngineImpl::enterStep(
    const std::shared_ptr<program::ProgramNode>& n, int parent) {
  const unsigned id = static_cast<unsigned>(steps.size());
  steps.emplace_back();
  steps[id].kind = n->kind;
  steps[id].node = n;
  profile.steps.emplace_back();
  {
    StepProfile& sp = profile.steps[id];
    sp.id = id;
    sp.parent = parent;
    sp.kind = programKindName(n->kind);
    sp.name = n->debugName;
  }
  StepCost cost;
  std::vector<unsigned> ipus;
  std::vector<unsigned> allIPUs;
  for (unsigned i = 0; i < target.getNumIPUs(); ++i) allIPUs.push_back(i);
  auto checkPredicate = [&](const char* what, bool allowBool) -> absl::Status {
    POPLAR_SIM_RETURN_IF_ERROR(checkTensor(n->predicate, what));
    const Type t = n->predicate.elementType();
    if (n->predicate.numElements() != 1 || isFloatingPoint(t) ||
        (!allowBool && t == BOOL)) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": the predicate ", Describe(n->predicate),
          " must be a single element of an integer",
          allowBool ? " or bool" : "", " type"));
    }
    return absl::OkStatus();
  };
  const uint64_t controlCycles =
      target.arch().branchCycles + target.syncCycles(target.getNumIPUs());

  switch (n->kind) {
    case Kind::SEQUENCE:
      break;
    case Kind::EXECUTE: {
      if (n->cs.graphId != graph->id || n->cs.id >= graph->computeSets.size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Execute", n->debugName.empty() ? "" : absl::StrCat(" '", n->debugName, "'"),
            ": ", describeComputeSet(n->cs),
            n->cs.graphId == 0 ? "" : " belongs to another graph than the engine's",
            "; execute compute sets of the engine's graph"));
      }
      const ComputeSetProfile& csp = profile.computeSets[n->cs.id];
      cost = csp.staticCost;
      if (profile.steps[id].name.empty()) profile.steps[id].name = csp.name;
      ipus = computeSetIPUs_[n->cs.id];
      break;
    }
    case Kind::COPY: {
      const std::string what =
          absl::StrCat("Copy ", Describe(n->src), " -> ", Describe(n->dst));
      POPLAR_SIM_RETURN_IF_ERROR(checkCopyOperands(n->src, n->dst, what));
      cost = copyCost(*graph, target, n->src, n->dst, &ipus);
      if (profile.steps[id].name.empty()) {
        profile.steps[id].name =
            absl::StrCat(n->src.getDebugName(), " -> ", n->dst.getDebugName());
      }
      break;
    }
    case Kind::STREAM_TO_DEVICE:
    case Kind::STREAM_FROM_DEVICE: {
      const bool toDevice = n->kind == Kind::STREAM_TO_DEVICE;
      const Tensor& t = toDevice ? n->dst : n->src;
      const DataStream& s = n->stream;
      const std::string what = absl::StrCat("Copy with stream '", s.handle, "'");
      if (!s.valid() || s.graphId != graph->id) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": the stream is empty or belongs to another graph"));
      }
      if ((s.direction == StreamDirection::HOST_TO_DEVICE) != toDevice) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": a ", toDevice ? "device-to-host" : "host-to-device",
            " stream cannot be copied ", toDevice ? "to" : "from",
            " the device"));
      }
      POPLAR_SIM_RETURN_IF_ERROR(checkTensor(t, what));
      if (t.elementType() != s.type || t.numElements() != s.numElements) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": the stream carries ", s.numElements, " ",
            typeName(s.type), " elements but the tensor is ", Describe(t)));
      }
      if (toDevice && t.containsAliases()) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": the destination repeats elements (a broadcast, or views that overlap)"));
      }
      const uint64_t bytes = t.numElements() * typeSize(t.elementType());
      steps[id].bytes = bytes;
      ipus = tensorIPUs(*graph, target, t);
      cost.hostCycles = target.hostTransferCycles(bytes);
      cost.syncCycles = target.syncCycles(static_cast<unsigned>(ipus.size()));
      (toDevice ? cost.hostBytesToDevice : cost.hostBytesFromDevice) = bytes;
      if (profile.steps[id].name.empty()) profile.steps[id].name = s.handle;
      break;
    }
    case Kind::REPEAT:
      cost.controlCycles = target.arch().loopOverheadCycles;
      ipus = allIPUs;
      break;
    case Kind::REPEAT_WHILE_TRUE:
    case Kind::REPEAT_WHILE_FALSE:
      POPLAR_SIM_RETURN_IF_ERROR(checkPredicate(programKindName(n->kind), true));
      cost.controlCycles = controlCycles;
      ipus = allIPUs;
      break;
    case Kind::IF:
      POPLAR_SIM_RETURN_IF_ERROR(checkPredicate("If", true));
      cost.controlCycles = controlCycles;
      ipus = allIPUs;
      break;
    case Kind::SWITCH: {
      POPLAR_SIM_RETURN_IF_ERROR(checkPredicate("Switch", false));
      std::set<int32_t> seen;
      for (int32_t v : n->caseValues) {
        if (!seen.insert(v).second) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Switch: case value ", v, " appears more than once"));
        }
      }
      cost.controlCycles = controlCycles;
      ipus = allIPUs;
      break;
    }
    case Kind::SYNC:
      cost.syncCycles = n->syncType == program::SyncType::INTERNAL
                            ? target.syncCycles(1)
                            : target.syncCycles(target.getNumIPUs());
      if (n->syncType == program::SyncType::EXTERNAL) {
        cost.hostCycles = target.hostTransferCycles(0);  // a host round trip
      }
      ipus = allIPUs;
      break;
    case Kind::WRITE_UNDEF:
      POPLAR_SIM_RETURN_IF_ERROR(checkTensor(n->predicate, "WriteUndef"));
      break;
    case Kind::CROSS_REPLICA_REDUCE: {
      const std::string what = absl::StrCat("CrossReplicaReduce '", n->debugName, "' ",
                                            Describe(n->src), " -> ", Describe(n->dst));
      POPLAR_SIM_RETURN_IF_ERROR(checkCopyOperands(n->src, n->dst, what));
      const unsigned r = graph->replicationFactor;
      const unsigned group = n->replicaGroupSize == 0 ? r : n->replicaGroupSize;
      // A multiple of r spans the replicas of several engines
      // (setRuntimeReplicaSubset checks it against the job).
      if (r % group != 0 && group % r != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": a replica group size of ", group,
            " does not divide the graph's replication factor ", r,
            "; use a divisor of it (or 0 for all replicas)"));
      }
      cost = crossReplicaReduceCost(*graph, target, n->src, n->dst, group, &ipus);
      break;
    }
    case Kind::PRINT_TENSOR: {
      POPLAR_SIM_RETURN_IF_ERROR(
          checkTensor(n->predicate, absl::StrCat("PrintTensor '", n->debugName, "'")));
      const uint64_t bytes =
          n->predicate.numElements() * typeSize(n->predicate.elementType());
      steps[id].bytes = bytes;
      cost.hostCycles = target.hostTransferCycles(bytes);
      cost.hostBytesFromDevice = bytes;
      ipus = tensorIPUs(*graph, target, n->predicate);
      break;
    }
  }
  steps[id].cost = cost;
  profile.steps[id].staticCost = cost;
  profile.steps[id].ipus = ipus;
  return id;
}

absl::Status EngineImpl::compile(const std::vector<program::Program>& programs,
                                 const std::vector<std::string>& programNames,
                                 HostThreads* threads) {
  target = graph->target;
  deviceTarget = graph->deviceTarget;
  replicationFactor = graph->replicationFactor;
  POPLAR_SIM_RETURN_IF_ERROR(graph->status);
  POPLAR_SIM_RETURN_IF_ERROR(validateVariables());

  const size_t numCs = graph->computeSets.size();
  TileNeeds needs(target.getNumTiles());
  profile.computeSets.resize(numCs);
  computeSetIPUs_.resize(numCs);
  computeSetReads_.resize(numCs);
  computeSetWrites_.resize(numCs);
  // The analyses read the graph only, so batches of compute sets are
  // analysed on the host threads (an analyser each) and then taken in
  // compute-set order: the profile, the memory needs and the first error
  // are what one thread gives.
  // A HostThreads may report 0 threads, or more than are worth an
  // analyser (each holds counters for every tile): 1 to kMaxAnalysers.
  const unsigned numThreads =
      threads != nullptr && numCs >= kParallelAnalysisMin
          ? std::clamp(threads->numThreads(), 1u, kMaxAnalysers)
          : 1;
  std::vector<ComputeSetAnalyser> analysers;
  analysers.reserve(numThreads);
  for (unsigned t = 0; t < numThreads; ++t) analysers.emplace_back(*graph, target);
  std::vector<absl::StatusOr<ComputeSetAnalysis>> batch;
  for (unsigned first = 0; first < numCs; first += kAnalysisBatch) {
    const unsigned n = static_cast<unsigned>(std::min<size_t>(kAnalysisBatch, numCs - first));
    batch.assign(n, absl::UnknownError("not analysed"));
    // Contiguous shares: graphs alternate kinds of compute sets (a layer's
    // product, then its activation), which shares by k mod n would not
    // balance.
    auto analyseShare = [&](unsigned t) {
      const unsigned end = static_cast<unsigned>(uint64_t{n} * (t + 1) / numThreads);
      for (unsigned i = static_cast<unsigned>(uint64_t{n} * t / numThreads); i < end; ++i) {
        batch[i] = analysers[t].analyse(first + i);
      }
    };
    if (numThreads > 1) {
      threads->parallelFor(numThreads, analyseShare);
    } else {
      analyseShare(0);
    }
    for (unsigned i = 0; i < n; ++i) {
      const unsigned cs = first + i;
      POPLAR_SIM_ASSIGN_OR_RETURN(ComputeSetAnalysis a, std::move(batch[i]));
      ComputeSetProfile& p = profile.computeSets[cs];
      p.name = graph->computeSets[cs].name;
      p.numVertices = static_cast<unsigned>(graph->computeSets[cs].vertices.size());
      p.numTiles = a.numTiles;
      p.staticCost = a.cost;
      p.maxTileCycles = a.maxTileCycles;
      p.meanTileCycles = a.meanTileCycles;
      p.slowestTile = a.slowestTile;
      p.flops = a.flops;
      computeSetIPUs_[cs] = a.ipus;
      computeSetReads_[cs] = std::move(a.readVariables);
      computeSetWrites_[cs] = std::move(a.writtenVariables);
      for (const ComputeSetTileUse& u : a.tiles) {
        needs.vertexState[u.tile] += u.vertexStateBytes;
        p.vertexStateBytes += u.vertexStateBytes;
        needs.exchange[u.tile] = std::max(needs.exchange[u.tile], u.exchangeBufferBytes);
        p.exchangeBufferBytes += u.exchangeBufferBytes;
        std::vector<uint32_t>& ids = needs.types[u.tile];
        for (const uint32_t id : u.vertexTypes) {
          if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
        }
      }
      noteLargestUsers(a, cs, &needs.topUsers);
    }
  }

  for (size_t i = 0; i < programs.size(); ++i) {
    absl::StatusOr<unsigned> root = compileProgram(programs[i]);
    if (!root.ok()) {
      return absl::Status(root.status().code(),
                          absl::StrCat("Program ", i, ": ",
                                       root.status().message()));
    }
    roots.push_back(*root);
    profile.programRoots.push_back(*root);
    profile.programNames.push_back(i < programNames.size()
                                       ? programNames[i]
                                       : absl::StrCat("program", i));
  }
  planLanes();
  planElementwiseChains();
  planBorrowedRecords();

  profile.arch = target.getTargetArchString();
  profile.chip = target.arch().chipName;
  profile.numIPUs = target.getNumIPUs();
  profile.replicationFactor = replicationFactor;
  profile.tilesPerIPU = target.getTilesPerIPU();
  profile.bytesPerTile = target.getBytesPerTile();
  profile.clockHz = target.getTileClockFrequency();
  profile.maxTraceEvents = options.maxTraceEvents;

  absl::Status mem = layOutMemory(needs);
  uint64_t loadBytes = 0;
  for (const TileMemory& m : profile.tileMemory) {
    loadBytes += m.code + m.vertexState + m.constants;
  }
  profile.load.bytes = loadBytes;
  profile.load.cycles = target.hostTransferCycles(loadBytes) +
                        target.secondsToCycles(target.arch().engineLoadSeconds);
  profile.load.seconds = target.cyclesToSeconds(profile.load.cycles);
  if (!mem.ok()) return mem;

  // Every replica has its own device memory and stream connections.
  memory.clear();
  memory.resize(replicationFactor);
  // Host memory for the simulated device memory: with debug.allowOutOfMemory
  // a variable may be larger than the host has (or than a size_t counts).
  std::vector<size_t> bytes(graph->variables.size());
  size_t largest = 0;
  for (size_t v = 0; v < bytes.size(); ++v) {
    const VariableRecord& r = graph->variables[v];
    const size_t size = typeSize(r.type);
    bytes[v] = r.numElements > SIZE_MAX / size ? SIZE_MAX : r.numElements * size;
    if (bytes[v] > bytes[largest]) largest = v;
  }
  for (unsigned replica = 0; replica < replicationFactor; ++replica) {
    ReplicaMemory& m = memory[replica];
    m.streams.resize(graph->streams.size());
    if (!m.variables.allocate(bytes)) {
      const VariableRecord& r = graph->variables[largest];
      memory.clear();
      return absl::ResourceExhaustedError(absl::StrCat(
          "The host cannot allocate the memory of the device's ", bytes.size(),
          " variables; the largest is tensor '", *r.name, "' ", typeName(r.type),
          shapeToString(r.shape), " (", r.numElements, " elements; the simulator keeps "
          "every variable in host memory, once per replica); make it smaller"));
    }
    m.base.assign(bytes.size(), nullptr);
    for (size_t v = 0; v < bytes.size(); ++v) {
      const VariableRecord& r = graph->variables[v];
      char* buffer = m.variables.buffer(v);
      m.base[v] = buffer;
      if (r.isReplicationIndex) {
        storeFromDouble(r.type, buffer, 0, globalReplica(replica));
      } else if (r.isConstant && bytes[v] > 0) {
        std::memcpy(buffer, r.constantData.data(), bytes[v]);
      }
    }
  }
  return absl::OkStatus();
}

void EngineImpl::writeReplicationIndices() {
  for (size_t v = 0; v < graph->variables.size(); ++v) {
    const VariableRecord& r = graph->variables[v];
    if (!r.isReplicationIndex) continue;
    for (unsigned replica = 0; replica < replicationFactor; ++replica) {
      storeFromDouble(r.type, memory[replica].base[v], 0, globalReplica(replica));
    }
  }
}

absl::Status EngineImpl::layOutMemory(const TileNeeds& needs) {
  const unsigned numTiles = target.getNumTiles();
  std::vector<TileMemory>& mem = profile.tileMemory;
  mem.assign(numTiles, TileMemory{});
  // Variables that are never live at once share memory, as Poplar's do
  // (conservatively: see variable_liveness.h); the others each take theirs.
  std::vector<const program::ProgramNode*> programs;
  for (unsigned r : roots) programs.push_back(steps[r].node.get());
  const VariableLifetimes lifetimes = analyseVariableLifetimes(*graph, programs);
  for (size_t i = 0; i < graph->variables.size(); ++i) {
    const VariableRecord& v = graph->variables[i];
    if (!lifetimes.spans[i].alwaysLive) continue;
    const uint64_t es = typeSize(v.type);
    for (const auto& [begin, endTile] : v.mapping.intervals()) {
      const uint64_t bytes = (endTile.first - begin) * es;
      (v.isConstant ? mem[endTile.second].constants
                    : mem[endTile.second].variables) += bytes;
    }
  }
  const std::vector<uint64_t> shared = peakSharedVariableBytes(*graph, lifetimes, numTiles);
  for (unsigned t = 0; t < numTiles; ++t) {
    mem[t].variables += shared[t];
    mem[t].notAlwaysLive = shared[t];
  }
  recordLiveness(lifetimes);
  // An IPU Model that compiles no IPU code has no code in its memory.
  const bool code = target.compilesIPUCode();
  const uint64_t controlCode =
      code ? steps.size() * target.arch().controlCodeBytesPerStep : 0;
  for (unsigned t = 0; t < numTiles; ++t) {
    mem[t].vertexState = needs.vertexState[t];
    mem[t].exchange = needs.exchange[t];
    mem[t].code = controlCode +
                  (code ? needs.types[t].size() * target.arch().codeBytesPerVertexType : 0);
    mem[t].controlCode = controlCode;
  }

  unsigned worst = 0, over = 0;
  for (unsigned t = 0; t < numTiles; ++t) {
    if (mem[t].total() > target.getBytesPerTile()) ++over;
    if (mem[t].total() > mem[worst].total()) worst = t;
  }
  if (over == 0 || options.allowOutOfMemory) return absl::OkStatus();
  return outOfMemory(needs, lifetimes, shared[worst], worst, over);
}

void EngineImpl::recordLiveness(const VariableLifetimes& lifetimes) {
  // variable_liveness.h numbers the Execute, Copy and CrossReplicaReduce
  // steps in program order over all programs; the steps were entered in
  // that same pre-order, so the k-th such step id is position k.
  std::vector<unsigned> memorySteps;
  for (unsigned id = 0; id < steps.size(); ++id) {
    const Kind k = steps[id].kind;
    if (k == Kind::EXECUTE || k == Kind::COPY || k == Kind::CROSS_REPLICA_REDUCE) {
      memorySteps.push_back(id);
    }
  }
  const std::vector<uint64_t> live = liveSharedBytesPerStep(
      *graph, lifetimes, target.getNumTiles(), static_cast<uint32_t>(memorySteps.size()));
  profile.liveness.clear();
  profile.liveness.reserve(memorySteps.size());
  for (size_t k = 0; k < memorySteps.size(); ++k) {
    profile.liveness.push_back(LivenessPoint{memorySteps[k], live[k]});
  }
}

absl::Status EngineImpl::outOfMemory(const TileNeeds& needs, const VariableLifetimes& lifetimes,
                                     uint64_t sharedBytes, unsigned worst, unsigned over) {
  const std::vector<TileMemory>& mem = profile.tileMemory;
  // Name the largest users of the worst tile: the variables that keep their
  // memory one by one, those that share it as one.
  std::vector<std::pair<uint64_t, std::string>> users;
  for (size_t i = 0; i < graph->variables.size(); ++i) {
    const VariableRecord& v = graph->variables[i];
    if (!lifetimes.spans[i].alwaysLive) continue;
    uint64_t bytes = 0;
    v.mapping.forEachPiece(0, v.numElements, [&](int64_t b, int64_t e, unsigned tile) {
      if (tile == worst) bytes += (e - b) * typeSize(v.type);
    });
    if (bytes > 0) {
      users.emplace_back(bytes, absl::StrCat(v.isConstant ? "constant '" : "variable '",
                                             *v.name, "'"));
    }
  }
  if (sharedBytes > 0) {
    users.emplace_back(sharedBytes, "variables sharing memory (the most live at once)");
  }
  // The compute sets' largest users of this tile, in compute set order
  // (kept as they were analysed: see TileTopUsers).
  std::vector<TileTopUsers::User> kept(needs.topUsers.users(worst).begin(),
                                       needs.topUsers.users(worst).end());
  std::sort(kept.begin(), kept.end(),
            [](const TileTopUsers::User& a, const TileTopUsers::User& b) { return a.id < b.id; });
  for (const TileTopUsers::User& u : kept) {
    const std::string& csName = graph->computeSets[u.id / 2].name;
    users.emplace_back(u.bytes, absl::StrCat(u.id % 2 == 0 ? "exchange buffers"
                                                           : "vertex state",
                                             " of compute set '", csName, "'"));
  }
  users.emplace_back(mem[worst].code, "code (estimate)");
  std::stable_sort(users.begin(), users.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> top;
  for (size_t i = 0; i < users.size() && i < TileTopUsers::kKept; ++i) {
    top.push_back(absl::StrCat(users[i].second, ": ", users[i].first, " bytes"));
  }
  const unsigned ipu = target.tileToIPU(worst);
  return absl::ResourceExhaustedError(absl::StrCat(
      "Out of memory on tile ", worst, ": ", mem[worst].total(),
      " bytes used, ", target.getBytesPerTile(), " available (IPU ", ipu,
      ", tile ", worst - ipu * target.getTilesPerIPU(), " of that IPU; ", over,
      " tile(s) over in total). Largest users on that tile: ",
      absl::StrJoin(top, "; "),
      ". Spread these tensors over more tiles (Graph::setTileMapping, "
      "poputil::mapTensorLinearly), make them smaller, or use more IPUs."));
}

}  // namespace internal
}  // namespace poplar_sim
