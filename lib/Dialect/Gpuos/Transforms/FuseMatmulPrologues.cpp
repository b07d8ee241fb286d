//===- FuseMatmulPrologues.cpp - elementwise producers join a matvec ------===//
//
// In topological order: a small-M matmul unit (a matmul, or a task of
// matmuls with their epilogues) takes in an elementwise unit whose every
// result it alone reads, and only as the lhs of its matmuls: `silu(gate) *
// up` becomes the prologue of the down projection. The small-M lowering
// reads the lhs once per K position of a tile (docs/codegen.md, "Small-M
// matmul"), so evaluating the prologue there costs a few instructions per
// K position and saves a task, its output buffer and one dependent hop on
// the device. Each tile evaluates the whole lhs, so the prologue's work
// (ops x M x K) is bounded like a tile's.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"
#include "gpuos/Dialect/Gpuos/Transforms/Passes.h"

namespace gpuos {
#define GEN_PASS_DEF_GPUOSFUSEMATMULPROLOGUES
#include "gpuos/Dialect/Gpuos/Passes.h.inc"
} // namespace gpuos

using namespace mlir;
using namespace gpuos;
using namespace gpuos::fusion;

namespace {
/// The small-M matmuls of a matmul unit's op (a matmul, or a task holding
/// some), and where `value`, one of the op's operands, goes in them: true
/// when every use of it (of the task argument bound to it) is the lhs of
/// one of those matmuls, and the unit has one.
bool readsOnlyAsSmallLhs(Operation *unit, Value value) {
  auto smallLhs = [](OpOperand &use) {
    auto matmul = dyn_cast<MatmulOp>(use.getOwner());
    if (!matmul || use.getOperandNumber() != 0)
      return false;
    ArrayRef<int64_t> shape =
        cast<StridedTensorType>(matmul.getResult().getType()).getShape();
    return shape.size() >= 2 && shape[shape.size() - 2] != kDynamic &&
           shape[shape.size() - 2] <= kSmallMatmulM;
  };
  auto task = dyn_cast<TaskOp>(unit);
  if (!task)
    return isa<MatmulOp>(unit) && unit->getOperand(1) != value &&
           smallLhs(unit->getOpOperand(0));
  bool any = false;
  for (auto [input, arg] : llvm::zip(task.getInputs(), task.getBodyBlock().getArguments())) {
    if (input != value)
      continue;
    for (OpOperand &use : arg.getUses()) {
      if (!smallLhs(use))
        return false;
      any = true;
    }
  }
  return any;
}

/// Ops of an elementwise unit that cost work per element (views and
/// constants are index arithmetic).
int64_t computeOps(Operation *op) {
  auto task = dyn_cast<TaskOp>(op);
  if (!task)
    return 1;
  int64_t ops = 0;
  for (Operation &inner : task.getBodyBlock().without_terminator())
    if (!isViewOrConstant(&inner))
      ++ops;
  return ops;
}

struct FuseMatmulPrologues
    : gpuos::impl::GpuosFuseMatmulProloguesBase<FuseMatmulPrologues> {
  void runOnOperation() override {
    if (failed(fuseGraph(getOperation(), [&](FusionGraph &fg) { fuse(fg); })))
      signalPassFailure();
  }

  void fuse(FusionGraph &fg) {
    SmallVector<UnitInfo> units = classifyUnits(fg);
    for (unsigned node = 0; node < fg.size(); ++node) {
      Operation *consumer = fg.op(node);
      ArrayRef<int64_t> space = units[node].space;
      if (space.size() < 2)
        continue;
      for (Value operand : consumer->getOperands()) {
        std::optional<unsigned> producer = fg.producer(operand);
        if (!producer || !fg.isAlone(*producer) ||
            units[*producer].cls != UnitClass::Elementwise ||
            units[*producer].priority != units[node].priority)
          continue;
        Operation *op = fg.op(*producer);
        // Every result read by this consumer alone (not a graph output),
        // only as the lhs of its small-M matmuls.
        bool onlyLhs = llvm::all_of(op->getResults(), [&](Value result) {
          return llvm::all_of(result.getUsers(),
                              [&](Operation *user) { return user == consumer; }) &&
                 readsOnlyAsSmallLhs(consumer, result);
        });
        // The prologue's work per tile: its ops over the lhs (M x K).
        ArrayRef<int64_t> lhs = units[*producer].space;
        int64_t elements = 1;
        for (int64_t size : lhs)
          elements *= size;
        if (!onlyLhs || computeOps(op) * elements > kTileMaxWork ||
            !fg.readsDirectly(node, *producer) ||
            fg.wouldCreateCycle({*producer, node}))
          continue;
        fg.merge(*producer, node);
      }
    }
  }
};
} // namespace
