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
/// Whether nodes are ancestors of one node (its transitive producers), by a
/// backward search from it that stops at kSearchLimit steps (then: unknown,
/// which callers treat as "no").
class Ancestors {
public:
  Ancestors(FusionGraph &fg, unsigned node) : fg(fg), mark(fg.size(), false) {
    SmallVector<unsigned> stack(fg.predecessors(node).begin(),
                                fg.predecessors(node).end());
    while (!stack.empty() && steps < FusionGraph::kSearchLimit) {
      unsigned n = stack.pop_back_val();
      ++steps;
      if (mark[n])
        continue;
      mark[n] = true;
      stack.append(fg.predecessors(n).begin(), fg.predecessors(n).end());
    }
    complete = stack.empty();
  }

  /// `value` is ready no later than the node's inputs: a graph input, a
  /// node's ancestor, or a view or constant of such values.
  bool readyBefore(Value value) {
    std::optional<unsigned> producer = fg.producer(value);
    if (!producer)
      return true; // a graph input
    if (mark[*producer])
      return true;
    Operation *op = fg.op(*producer);
    if (!isViewOrConstant(op) || !complete)
      return false;
    return llvm::all_of(op->getOperands(),
                        [&](Value operand) { return readyBefore(operand); });
  }

private:
  FusionGraph &fg;
  SmallVector<bool> mark;
  unsigned steps = 0;
  bool complete = false;
};

struct FuseMatmulEpilogues
    : gpuos::impl::GpuosFuseMatmulEpiloguesBase<FuseMatmulEpilogues> {
  void runOnOperation() override {
    GraphOp graph = getOperation();
    Block &body = graph.getBodyBlock();
    if (failed(sortGraph(graph, "fused")))
      return signalPassFailure();
    FusionGraph fg(body);
    SmallVector<UnitInfo> units = classifyUnits(fg);
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
            fg.resultsIfMerged(leader, node) > kMaxTaskResults)
          continue;
        // Every value the unit reads from outside the group must be ready
        // before the matmul's inputs are.
        Ancestors before(fg, matmul);
        bool ready = llvm::all_of(op->getOperands(), [&](Value other) {
          std::optional<unsigned> from = fg.producer(other);
          return (from && fg.find(*from) == leader) || before.readyBefore(other);
        });
        if (!ready || fg.wouldCreateCycle({leader, node}))
          continue;
        unsigned merged = fg.merge(leader, node);
        matmulOf[merged] = matmul;
        break;
      }
    }

    outlineMultiNodeGroups(graph, fg);
  }
};
} // namespace
