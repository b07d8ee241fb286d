//===- TopologicalSort.cpp - order graph bodies def-before-use ------------===//
//
// Kahn's algorithm over the ops of one graph body, taking ready ops in
// their written order. mlir::sortTopologically rescans the unsorted ops
// after each pick, which is quadratic on bodies written in reverse; front-ends
// emit graphs of 10^5 ops, so this stays linear.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"
#include "gpuos/Dialect/Gpuos/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"
#include <queue>

namespace gpuos {
#define GEN_PASS_DEF_GPUOSTOPOLOGICALSORT
#include "gpuos/Dialect/Gpuos/Passes.h.inc"
} // namespace gpuos

using namespace mlir;
using namespace gpuos;

/// Reorders the non-terminator ops of `block` so producers precede their
/// users; independent ops keep their written order. Fails on a cycle.
LogicalResult gpuos::fusion::sortGraphBody(Block &block) {
  SmallVector<Operation *> ops;
  llvm::DenseMap<Operation *, unsigned> position;
  for (Operation &op : block.without_terminator()) {
    position[&op] = ops.size();
    ops.push_back(&op);
  }
  // pending[i]: operands of ops[i] produced by not-yet-placed ops here.
  SmallVector<unsigned> pending(ops.size(), 0);
  for (auto [index, op] : llvm::enumerate(ops))
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp();
          producer && position.count(producer))
        ++pending[index];

  // Min-heap on written position, so the order is stable.
  std::priority_queue<unsigned, std::vector<unsigned>, std::greater<>> ready;
  for (unsigned i = 0; i < ops.size(); ++i)
    if (pending[i] == 0)
      ready.push(i);

  Operation *terminator = block.mightHaveTerminator() ? &block.back() : nullptr;
  unsigned placed = 0;
  while (!ready.empty()) {
    Operation *op = ops[ready.top()];
    ready.pop();
    if (terminator)
      op->moveBefore(terminator);
    else
      op->moveBefore(&block, block.end());
    ++placed;
    // One decrement per use, matching the per-operand count above.
    for (OpOperand &use : op->getUses()) {
      auto it = position.find(use.getOwner());
      if (it != position.end() && --pending[it->second] == 0)
        ready.push(it->second);
    }
  }
  return success(placed == ops.size());
}

LogicalResult gpuos::fusion::sortGraph(GraphOp graph, StringRef done) {
  if (succeeded(sortGraphBody(graph.getBodyBlock())))
    return success();
  return graph.emitOpError() << "body has a cycle and cannot be " << done;
}

namespace {
struct GpuosTopologicalSort
    : gpuos::impl::GpuosTopologicalSortBase<GpuosTopologicalSort> {
  void runOnOperation() override {
    if (failed(fusion::sortGraph(getOperation(), "ordered")))
      signalPassFailure();
  }
};
} // namespace
