//===- FuseMatmulEpilogues.cpp - elementwise consumers join their matmul --===//
//
// In topological order: an elementwise unit that is still alone, whose
// iteration space is a matmul unit's result shape and which reads that
// matmul's group directly, joins it as an epilogue (bias, activation,
// residual, scale, cast), when every other value it reads is ready no later
// than the matmul's inputs: a graph input, a view or constant of such
// values, or a value the matmul already depends on. Otherwise the matmul
// would wait for it (`silu(gate) * up` joining `gate` would serialize the
// independent `up` before it). The lowering evaluates the epilogue at each
// output element, reading the small-M products from shared memory.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"
#include "gpuos/Dialect/Gpuos/Transforms/Passes.h"

namespace gpuos {
#define GEN_PASS_DEF_GPUOSFUSEMATMULEPILOGUES
#include "gpuos/Dialect/Gpuos/Passes.h.inc"
} // namespace gpuos

using namespace mlir;
using namespace gpuos;
using namespace gpuos::fusion;

namespace {
/// "Is this value ready before that node's inputs?". Whether node n depends
/// on producer p is a search between them only (nodes are numbered in
/// topological order, so every path from p to n stays inside (p, n)):
/// backward from n and forward from p at once, one expansion each in turn,
/// until they meet (yes) or either side runs out (no). Its cost follows the
/// smaller of the two cones: a residual produced just before the matmul
/// costs a few steps, and so does a producer with few consumers far above
/// it. Past kSearchLimit steps it answers "no", which only forgoes a merge.
class ReadyBefore {
public:
  explicit ReadyBefore(FusionGraph &fg)
      : fg(fg), back(fg.size(), 0), fwd(fg.size(), 0) {}

  /// `value` is a graph input, a value `node` depends on, or a view or
  /// constant of such values (looked through with a worklist: a chain of
  /// views may be as long as the graph).
  bool operator()(Value value, unsigned node) {
    SmallVector<Value> todo = {value};
    DenseSet<Value> seen = {value}; // a diamond of views: each value once
    while (!todo.empty()) {
      std::optional<unsigned> producer = fg.producer(todo.pop_back_val());
      if (!producer)
        continue; // a graph input
      Operation *op = fg.op(*producer);
      if (isViewOrConstant(op)) {
        for (Value operand : op->getOperands())
          if (seen.insert(operand).second)
            todo.push_back(operand);
      } else if (!dependsOn(node, *producer))
        return false;
    }
    return true;
  }

private:
  bool dependsOn(unsigned node, unsigned ancestor) {
    if (ancestor >= node)
      return false;
    if (++epoch == 0) { // wrapped: stale marks could read as current
      std::fill(back.begin(), back.end(), 0);
      std::fill(fwd.begin(), fwd.end(), 0);
      epoch = 1;
    }
    SmallVector<unsigned> up = {node}, down = {ancestor};
    back[node] = fwd[ancestor] = epoch;
    for (unsigned steps = 0; !up.empty() && !down.empty(); ++steps) {
      if (steps == FusionGraph::kSearchLimit)
        return false;
      bool upTurn = steps % 2 == 0;
      SmallVector<unsigned> &frontier = upTurn ? up : down;
      SmallVector<unsigned> &mine = upTurn ? back : fwd;
      SmallVector<unsigned> &theirs = upTurn ? fwd : back;
      unsigned at = frontier.pop_back_val();
      for (unsigned next : upTurn ? fg.predecessors(at) : fg.successors(at)) {
        if (next <= ancestor || next >= node)
          continue; // outside (ancestor, node), unless it is the other end
        if (theirs[next] == epoch)
          return true;
        if (mine[next] != epoch) {
          mine[next] = epoch;
          frontier.push_back(next);
        }
      }
      // The ends themselves: n's predecessor p, or p's successor n.
      if (upTurn ? llvm::is_contained(fg.predecessors(at), ancestor)
                 : llvm::is_contained(fg.successors(at), node))
        return true;
    }
    return false;
  }

  FusionGraph &fg;
  SmallVector<unsigned> back, fwd;
  unsigned epoch = 0;
};

struct FuseMatmulEpilogues
    : gpuos::impl::GpuosFuseMatmulEpiloguesBase<FuseMatmulEpilogues> {
  void runOnOperation() override {
    if (failed(fuseGraph(getOperation(), [&](FusionGraph &fg) { fuse(fg); })))
      signalPassFailure();
  }

  void fuse(FusionGraph &fg) {
    SmallVector<UnitInfo> units = classifyUnits(fg);
    ReadyBefore readyBefore(fg);
    // For the representative of each matmul group: its matmul node.
    SmallVector<int> matmulOf(fg.size(), -1);

    for (unsigned node = 0; node < fg.size(); ++node) {
      const UnitInfo &unit = units[node];
      if (unit.cls == UnitClass::Matmul) {
        matmulOf[node] = node;
        continue;
      }
      if (unit.cls != UnitClass::Elementwise || !fg.isAlone(node))
        continue;
      Operation *op = fg.op(node);
      for (Value operand : op->getOperands()) {
        std::optional<unsigned> producer = fg.producer(operand);
        if (!producer)
          continue;
        unsigned leader = fg.find(*producer);
        if (matmulOf[leader] < 0)
          continue;
        unsigned matmul = matmulOf[leader];
        if (units[matmul].space != unit.space ||
            units[matmul].priority != unit.priority ||
            !fg.readsDirectly(node, leader) ||
            fg.resultsIfMerged(leader, node) > kMaxTaskResults ||
            !fg.withinOpCap({leader, node}))
          continue;
        // Every value the unit reads from outside the group must be ready
        // before the matmul's inputs are.
        bool ready = llvm::all_of(op->getOperands(), [&](Value other) {
          std::optional<unsigned> from = fg.producer(other);
          return (from && fg.find(*from) == leader) || readyBefore(other, matmul);
        });
        if (!ready || fg.wouldCreateCycle({leader, node}))
          continue;
        unsigned merged = fg.merge(leader, node);
        matmulOf[merged] = matmul;
        break;
      }
    }
  }
};
} // namespace
