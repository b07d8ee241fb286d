//===- Partition.cpp - every op into a task -------------------------------===//
//
// The last task-forming pass: compute ops outside tasks become tasks of
// their own, tasks that read views or constants take them in, and what is
// left (views and constants the graph yields) becomes tasks too, so a graph
// body ends as tasks and its yield.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"
#include "gpuos/Dialect/Gpuos/Transforms/Passes.h"

namespace gpuos {
#define GEN_PASS_DEF_GPUOSPARTITION
#include "gpuos/Dialect/Gpuos/Passes.h.inc"
} // namespace gpuos

using namespace mlir;
using namespace gpuos;
using namespace gpuos::fusion;

/// Re-outlines `task` alone, which clones the views and constants it reads
/// into its body; kind, tile, priority and attributes stay.
static void absorbViews(TaskOp task, KindNamer &namer) {
  bool readsViews = llvm::any_of(task.getInputs(), [](Value input) {
    Operation *def = input.getDefiningOp();
    return def && isViewOrConstant(def);
  });
  if (!readsViews)
    return;
  OutlineOptions options;
  options.kind = task.getKind().str();
  options.tile = SmallVector<int64_t>(task.getTile());
  options.priority = task.getPriorityAttr();
  options.attrs.append(task->getDiscardableAttrs().begin(),
                       task->getDiscardableAttrs().end());
  outlineGroup({task.getOperation()}, namer, options);
}

/// A copy of the view or constant `def` just before `user`, reading copies
/// of the ones in `shared` it reads in turn.
static Value privateCopy(Operation *def, Operation *user,
                         const DenseSet<Operation *> &shared) {
  OpBuilder builder(user);
  Operation *copy = builder.clone(*def);
  for (OpOperand &operand : copy->getOpOperands())
    if (Operation *below = operand.get().getDefiningOp();
        below && shared.contains(below))
      operand.set(privateCopy(below, copy, shared));
  return copy->getResult(0);
}

namespace {
struct Partition : gpuos::impl::GpuosPartitionBase<Partition> {
  void runOnOperation() override {
    GraphOp graph = getOperation();
    Block &body = graph.getBodyBlock();
    if (failed(sortGraph(graph, "partitioned")))
      return signalPassFailure();
    KindNamer namer(graph);
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      if (!isViewOrConstant(&op))
        ops.push_back(&op);
    // Outlining erases only the outlined op and views or constants.
    for (Operation *op : ops) {
      if (auto task = dyn_cast<TaskOp>(op))
        absorbViews(task, namer);
      else
        outlineGroup({op}, namer);
    }
    eraseDeadViewsAndConstants(body);

    // Left: views and constants the graph yields (and the views they read,
    // which their tasks clone).
    Operation *yield = body.getTerminator();
    SmallVector<Operation *> yielded;
    for (Operation &op : body.without_terminator())
      if (isViewOrConstant(&op) && llvm::is_contained(op.getUsers(), yield))
        yielded.push_back(&op);
    // A yielded view of another yielded view reads its own copy of it, so
    // that outlining the other does not make it read that task's output
    // (a dependent hop for a view of the graph's inputs).
    DenseSet<Operation *> yieldedSet(yielded.begin(), yielded.end());
    for (Operation *op : yielded)
      for (OpOperand &operand : op->getOpOperands())
        if (Operation *def = operand.get().getDefiningOp();
            def && yieldedSet.contains(def))
          operand.set(privateCopy(def, op, yieldedSet));
    for (Operation *op : yielded)
      outlineGroup({op}, namer);
    eraseDeadViewsAndConstants(body);
    (void)sortGraphBody(body);
  }
};
} // namespace
