//===- FuseMatmulPrologues.cpp - elementwise producers join a matvec ------===//
//
// In topological order: a matmul unit (a matmul, or a task of matmuls
// with their epilogues) takes in an elementwise unit whose every result it
// alone reads, and only as the lhs of matmuls whose small-M lowering
// stages it: `silu(gate) * up` becomes the prologue of the down
// projection (also through views only the matmul reads, such as the
// reshape of a split projection, gpuos-split-k). A softmax along K (and
// with `norms` rms_norm, layer_norm) with its own prologue joins the same
// way when the matmul reads it directly: decode's attention weights become
// the prologue of P x V. The lowering evaluates a
// staged lhs once per tile into
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

/// A matmul the small-M lowering takes (docs/codegen.md, "Small-M
/// matmul"): M <= 16, its result the consumer's iteration space `space`,
/// f16/bf16/f32 operands (computed in f32), column groups within a warp
/// (N a multiple of 8 for a [K, N] weight).
bool lowersAsMatvec(MatmulOp matmul, ArrayRef<int64_t> space) {
  auto f32Compute = [](Value v) {
    Type type = typeOf(v).getElementType();
    return type.isF32() || type.isF16() || type.isBF16();
  };
  ArrayRef<int64_t> result = typeOf(matmul.getResult()).getShape();
  if (result.size() < 2 || result != space || llvm::is_contained(result, kDynamic) ||
      llvm::is_contained(typeOf(matmul.getLhs()).getShape(), kDynamic) ||
      !f32Compute(matmul.getLhs()) || !f32Compute(matmul.getRhs()) ||
      !f32Compute(matmul.getResult()))
    return false;
  return result.end()[-2] <= kSmallMatmulM &&
         (matmul.getTransposeRhs() || result.back() % 8 == 0);
}

/// The row op of a unit that is one (softmax over the last axis; with
/// `norms` also layer_norm, rms_norm), alone or a task of it and its elementwise
/// prologue (gpuos-fuse-reductions) whose one result it is; or null. The
/// lowering stages such an lhs too when its rows run along K: each tile
/// folds its rows' statistics from the staged input (docs/codegen.md,
/// "Small-M matmul", phase 0).
Operation *rowOpOf(Operation *unit, bool norms) {
  auto isRowOp = [&](Operation *op) {
    return innermostRowInput(op) && (norms || isa<SoftmaxOp>(op));
  };
  auto task = dyn_cast<TaskOp>(unit);
  if (!task)
    return isRowOp(unit) ? unit : nullptr;
  if (task.getNumResults() != 1)
    return nullptr;
  Operation *row = task.getBodyBlock().getTerminator()->getOperand(0).getDefiningOp();
  if (!row || !isRowOp(row))
    return nullptr;
  for (Operation &op : task.getBodyBlock().without_terminator())
    if (&op != row && !isElementwiseOp(&op) && !isViewOrConstant(&op))
      return nullptr;
  return row;
}

/// Bytes of the lhs of `matmul` staged as [M][K] f32.
int64_t stagedBytes(MatmulOp matmul) {
  ArrayRef<int64_t> lhs = typeOf(matmul.getLhs()).getShape();
  int64_t m = typeOf(matmul.getResult()).getShape().end()[-2];
  int64_t k = matmul.getTransposeLhs() ? lhs.end()[-2] : lhs.back();
  return llvm::alignTo(m * k * 4, 16);
}

/// The matmuls of a consumer unit: the op itself, or a task's.
SmallVector<MatmulOp> matmulsOf(Operation *unit) {
  if (auto matmul = dyn_cast<MatmulOp>(unit))
    return {matmul};
  SmallVector<MatmulOp> matmuls;
  if (auto task = dyn_cast<TaskOp>(unit))
    for (Operation &op : task.getBodyBlock())
      if (auto matmul = dyn_cast<MatmulOp>(op))
        matmuls.push_back(matmul);
  return matmuls;
}

/// What stands for `value`, one of `unit`'s operands, where `unit`'s
/// matmuls read it: the value itself for a matmul, the body arguments
/// bound to it for a task.
SmallVector<Value> boundTo(Operation *unit, Value value) {
  auto task = dyn_cast<TaskOp>(unit);
  if (!task)
    return {value};
  SmallVector<Value> args;
  for (auto [input, arg] : llvm::zip(task.getInputs(), task.getBodyBlock().getArguments()))
    if (input == value)
      args.push_back(arg);
  return args;
}

/// Shared memory the lowering of `unit` uses before any prologue is
/// staged, when every matmul of it lowers as a matvec: the partials (at
/// most 8 x M x tn f32 per [K, N] weight, M x tn <= 256 by the tile rule;
/// M x tn per [N, K] one) and the lhs values it computes already.
std::optional<int64_t> matvecSharedBytes(Operation *unit, ArrayRef<int64_t> space) {
  int64_t bytes = 0;
  DenseSet<Value> computed;
  for (MatmulOp matmul : matmulsOf(unit)) {
    if (!lowersAsMatvec(matmul, space))
      return std::nullopt;
    bytes += matmul.getTransposeRhs() ? 1024 : 8192;
    // A lhs the unit computes itself (a task's prologue); a plain
    // matmul's lhs comes from outside.
    Operation *def = matmul.getLhs().getDefiningOp();
    if (def && def->getParentOp() == unit && !def->hasTrait<gpuos::OpTrait::View>() &&
        computed.insert(matmul.getLhs()).second)
      bytes += stagedBytes(matmul);
  }
  return bytes;
}

/// True when `unit` (a matmul or a task, of iteration space `space`)
/// reads `value`, one of its operands, and only as the lhs of small-M
/// matmuls.
bool readsOnlyAsStagedLhs(Operation *unit, Value value, ArrayRef<int64_t> space) {
  bool any = false;
  for (Value bound : boundTo(unit, value))
    for (OpOperand &use : bound.getUses()) {
      if (!isa<TaskOp>(unit) && use.getOwner() != unit)
        continue; // a plain matmul: only its own uses count
      auto matmul = dyn_cast<MatmulOp>(use.getOwner());
      if (!matmul || use.getOperandNumber() != 0 || !lowersAsMatvec(matmul, space))
        return false;
      any = true;
    }
  return any;
}

/// What `value` views, through a chain of single-operand views that only
/// `consumer` reads (each view read by the next or by `consumer`); `value`
/// itself when it is not such a view.
Value throughViews(Value value, Operation *consumer) {
  Value viewed = value;
  Operation *reader = consumer;
  while (llvm::all_of(viewed.getUsers(), [&](Operation *user) { return user == reader; })) {
    Operation *def = viewed.getDefiningOp();
    if (!def || !def->hasTrait<gpuos::OpTrait::View>() || def->getNumOperands() != 1 ||
        def->getBlock() != consumer->getBlock())
      return viewed; // the end of the chain, which `reader` alone reads
    reader = def;
    viewed = def->getOperand(0);
  }
  return value;
}

struct FuseMatmulPrologues
    : gpuos::impl::GpuosFuseMatmulProloguesBase<FuseMatmulPrologues> {
  using GpuosFuseMatmulProloguesBase::GpuosFuseMatmulProloguesBase;
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
      // Every matmul of the consumer lowers as a matvec, and every lhs the
      // consumer takes in is staged: its partials and staged lhs values
      // stay within the lowering's shared memory (MatvecEmitter.cpp).
      // Otherwise a prologue would be evaluated per K position of every
      // column group (slower than a task of its own, measured) or per
      // output element.
      std::optional<int64_t> shared = matvecSharedBytes(consumer, space);
      if (!shared)
        continue;
      for (Value operand : consumer->getOperands()) {
        // The lhs may reach the consumer through views that only it reads
        // (the reshape of gpuos-split-k): the task evaluates them on the
        // staged values, which are computed at any index.
        Value produced = throughViews(operand, consumer);
        std::optional<unsigned> producer = fg.producer(produced);
        if (!producer || !fg.isAlone(*producer) ||
            units[*producer].priority != units[node].priority)
          continue;
        Operation *op = fg.op(*producer);
        // An elementwise unit, or a row op with its rows along the K of
        // the matmuls reading it directly (staged with its statistics).
        bool row = units[*producer].cls == UnitClass::Reduction && rowOpOf(op, norms) &&
                   produced == operand &&
                   llvm::none_of(matmulsOf(consumer), [&](MatmulOp matmul) {
                     return matmul.getTransposeLhs() &&
                            llvm::is_contained(boundTo(consumer, operand), matmul.getLhs());
                   });
        if (units[*producer].cls != UnitClass::Elementwise && !row)
          continue;
        // Every result read by this consumer alone (not a graph output),
        // only as the lhs of its small-M matmuls.
        bool onlyLhs = llvm::all_of(op->getResults(), [&](Value result) {
          if (result == produced && produced != operand)
            return readsOnlyAsStagedLhs(consumer, operand, space);
          return llvm::all_of(result.getUsers(),
                              [&](Operation *user) { return user == consumer; }) &&
                 readsOnlyAsStagedLhs(consumer, result, space);
        });
        // The prologue's work per tile: its ops over the lhs (M x K).
        ArrayRef<int64_t> lhs = units[*producer].space;
        int64_t elements = 1;
        for (int64_t size : lhs)
          elements *= size;
        auto task = dyn_cast<TaskOp>(op);
        int64_t ops = task ? computeOpCount(task.getBodyBlock()) : 1;
        if (!onlyLhs || ops * elements > kTileMaxWork)
          continue;
        // One staged copy per distinct value read (its readers agree on
        // M x K: the value is their lhs).
        int64_t staged = 0;
        for (Value result : op->getResults())
          for (MatmulOp matmul : matmulsOf(consumer))
            if (llvm::is_contained(boundTo(consumer, result == produced ? operand : result),
                                   matmul.getLhs())) {
              int64_t m = typeOf(matmul.getResult()).getShape().end()[-2];
              staged += stagedBytes(matmul) + (row ? rowStatBytes(m) : 0);
              break;
            }
        // The views between join too: outside the group they would be a
        // path out of it and back.
        SmallVector<unsigned> members = {*producer, node};
        for (Value view = operand; view != produced; view = view.getDefiningOp()->getOperand(0))
          members.push_back(*fg.producer(view));
        if (*shared + staged > kMatvecSharedBytes || !fg.readsDirectly(node, *producer) ||
            !fg.withinOpCap(members) || fg.wouldCreateCycle(members))
          continue;
        for (unsigned member : ArrayRef(members).drop_front())
          fg.merge(*producer, member);
        *shared += staged;
      }
    }
  }
};
} // namespace
