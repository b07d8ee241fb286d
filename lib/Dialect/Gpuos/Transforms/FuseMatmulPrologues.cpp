//===- FuseMatmulPrologues.cpp - elementwise producers join a matvec ------===//
//
// In topological order: a matmul unit (a matmul, or a task of matmuls
// with their epilogues) takes in an elementwise unit whose every result it
// alone reads, and only as the lhs of matmuls whose small-M lowering
// stages it: `silu(gate) * up` becomes the prologue of the down
// projection. The lowering evaluates a staged lhs once per tile into
// shared memory (docs/codegen.md, "Small-M matmul", phase 0), which saves
// a task, its output buffer and one dependent hop on the device. An lhs it
// would not stage would be evaluated per K position or per output element,
// slower than a task of its own, so only staged ones join; the prologue's
// work (ops x M x K) is bounded like a tile's.
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
/// A matmul the small-M lowering takes and whose lhs it stages in shared
/// memory (docs/codegen.md, "Small-M matmul"): M <= 16, its result the
/// consumer's iteration space `space`, f16/bf16/f32 operands (computed in
/// f32), column groups within a warp (N a multiple of 8 for a [K, N]
/// weight), and an lhs of at most kMaxStagedLhsBytes as f32. Otherwise the
/// lowering would evaluate the prologue per K position of every column
/// group (slower than a task of its own, measured) or per output element.
bool takesStagedLhs(MatmulOp matmul, ArrayRef<int64_t> space) {
  auto shapeOf = [](Value v) { return cast<StridedTensorType>(v.getType()).getShape(); };
  auto f32Compute = [](Value v) {
    Type type = cast<StridedTensorType>(v.getType()).getElementType();
    return type.isF32() || type.isF16() || type.isBF16();
  };
  ArrayRef<int64_t> result = shapeOf(matmul.getResult()), lhs = shapeOf(matmul.getLhs());
  if (result.size() < 2 || result != space || llvm::is_contained(lhs, kDynamic) ||
      llvm::is_contained(result, kDynamic) || !f32Compute(matmul.getLhs()) ||
      !f32Compute(matmul.getRhs()) || !f32Compute(matmul.getResult()))
    return false;
  int64_t m = result[result.size() - 2], n = result.back();
  int64_t k = matmul.getTransposeLhs() ? lhs[lhs.size() - 2] : lhs.back();
  return m <= kSmallMatmulM && (matmul.getTransposeRhs() || n % 8 == 0) &&
         m * k * 4 <= kMaxStagedLhsBytes;
}

/// True when `unit` (a matmul or a task, of iteration space `space`)
/// reads `value`, one of its operands, only as the lhs of matmuls that
/// stage it (every use of the task argument bound to it).
bool readsOnlyAsStagedLhs(Operation *unit, Value value, ArrayRef<int64_t> space) {
  auto stagedLhs = [&](OpOperand &use) {
    auto matmul = dyn_cast<MatmulOp>(use.getOwner());
    return matmul && use.getOperandNumber() == 0 && takesStagedLhs(matmul, space);
  };
  auto task = dyn_cast<TaskOp>(unit);
  if (!task)
    return isa<MatmulOp>(unit) && unit->getOperand(1) != value &&
           stagedLhs(unit->getOpOperand(0));
  bool any = false;
  for (auto [input, arg] : llvm::zip(task.getInputs(), task.getBodyBlock().getArguments())) {
    if (input != value)
      continue;
    for (OpOperand &use : arg.getUses()) {
      if (!stagedLhs(use))
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
                 readsOnlyAsStagedLhs(consumer, result, space);
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
