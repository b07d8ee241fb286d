//===- AssignPriorities.cpp - graph priority and critical-path order ------===//
//
// Tasks without a priority take the graph's. Each top-level op gets an
// estimated cost; a task's critical path is its cost plus the largest
// critical path among its consumers. The body is reordered by that number,
// largest first and stable, which is a topological order because every
// cost is at least 1. Tasks keep the number as `gpuos.critical_path`, for
// the manifest and the runtime to break ties between ready tasks.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"
#include "gpuos/Dialect/Gpuos/Transforms/Passes.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>

namespace gpuos {
#define GEN_PASS_DEF_GPUOSASSIGNPRIORITIES
#include "gpuos/Dialect/Gpuos/Passes.h.inc"
} // namespace gpuos

using namespace mlir;
using namespace gpuos;
using namespace gpuos::fusion;

static constexpr StringLiteral kCriticalPathAttr = "gpuos.critical_path";

/// Elements of `value`; a dynamic dimension counts 64.
static uint64_t elements(Value value) {
  uint64_t count = 1;
  for (int64_t dim : cast<StridedTensorType>(value.getType()).getShape())
    count = llvm::SaturatingMultiply<uint64_t>(count,
                                               dim == kDynamic ? 64 : dim);
  return count;
}

/// Work of one micro-op: result elements, times K for a matmul; input
/// elements for reductions, softmax and norms; nothing for views and
/// constants.
static uint64_t opCost(Operation *op) {
  if (isViewOrConstant(op) || op->getNumResults() == 0)
    return 0;
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    ArrayRef<int64_t> lhs =
        cast<StridedTensorType>(matmul.getLhs().getType()).getShape();
    int64_t k = matmul.getTransposeLhs() ? lhs[lhs.size() - 2] : lhs.back();
    return llvm::SaturatingMultiply<uint64_t>(elements(matmul.getResult()),
                                              k == kDynamic ? 64 : k);
  }
  if (isReductionAnchor(op))
    return elements(op->getOperand(0));
  return elements(op->getResult(0));
}

static uint64_t unitCost(Operation *op) {
  uint64_t cost = 0;
  if (auto task = dyn_cast<TaskOp>(op)) {
    for (Operation &inner : task.getBodyBlock().without_terminator())
      cost = llvm::SaturatingAdd(cost, opCost(&inner));
  } else {
    cost = opCost(op);
  }
  // At least 1, so a producer always outranks its consumers; at most
  // INT64_MAX, so the attribute holds it.
  return std::clamp<uint64_t>(cost, 1, uint64_t(1) << 62);
}

namespace {
struct AssignPriorities
    : gpuos::impl::GpuosAssignPrioritiesBase<AssignPriorities> {
  void runOnOperation() override {
    GraphOp graph = getOperation();
    Block &body = graph.getBodyBlock();
    if (failed(sortGraph(graph, "ordered")))
      return signalPassFailure();
    FusionGraph fg(body);
    SmallVector<uint64_t> path(fg.size(), 0);
    for (unsigned node = fg.size(); node-- > 0;) {
      uint64_t longest = 0;
      for (unsigned next : fg.successors(node))
        longest = std::max(longest, path[next]);
      path[node] = llvm::SaturatingAdd(unitCost(fg.op(node)), longest);
    }

    Builder builder(&getContext());
    PriorityAttr priority = graph.getPriorityAttr();
    for (unsigned node = 0; node < fg.size(); ++node) {
      auto task = dyn_cast<TaskOp>(fg.op(node));
      if (!task)
        continue;
      if (priority && !task.getPriorityAttr())
        task.setPriorityAttr(priority);
      task->setAttr(kCriticalPathAttr,
                    builder.getI64IntegerAttr(static_cast<int64_t>(
                        std::min<uint64_t>(path[node], INT64_MAX))));
    }

    SmallVector<unsigned> order(fg.size());
    for (unsigned node = 0; node < fg.size(); ++node)
      order[node] = node;
    llvm::stable_sort(order, [&](unsigned a, unsigned b) {
      return path[a] > path[b];
    });
    Operation *terminator = body.getTerminator();
    for (unsigned node : order)
      fg.op(node)->moveBefore(terminator);
  }
};
} // namespace
