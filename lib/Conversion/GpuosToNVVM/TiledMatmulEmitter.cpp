//===- TiledMatmulEmitter.cpp - matmul tiles staged in shared memory ------===//

#include "TiledMatmulEmitter.h"
#include "ScalarMath.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace gpuos;
using namespace gpuos::codegen;

TiledMatmulEmitter::TiledMatmulEmitter(TaskEmitter &task) : t(task), b(task.b) {
  ArrayRef<int64_t> iter = t.abi.iterShape;
  rank = iter.size();
  m = iter[rank - 2];
  n = iter[rank - 1];
  tm = t.abi.tile[rank - 2];
  tn = t.abi.tile[rank - 1];
  int64_t offset = 0;
  for (auto op : t.task.getBodyBlock().getOps<MatmulOp>()) {
    Plan plan;
    plan.op = op;
    plan.k = matmulK(op);
    plan.productsOffset = offset;
    offset += llvm::alignTo(tm * tn * 4, 16);
    plans.push_back(plan);
  }
  // One stage area, reused matmul after matmul: all of K when it fits
  // beside the products, else the largest power of two that does.
  stageOffset = offset;
  int64_t perK = (tm + tn) * 4, room = kTiledMaxShared - offset, stage = 0;
  for (Plan &plan : plans) {
    plan.chunk = plan.k * perK <= room ? plan.k : floorPow2(std::max<int64_t>(1, room / perK));
    stage = std::max(stage, plan.chunk * perK);
  }
  sharedBytes = offset + stage;
}

bool TiledMatmulEmitter::applies(TaskEmitter &t) {
  if (!t.isF32MatmulTask())
    return false;
  ArrayRef<int64_t> tile = t.abi.tile;
  int64_t rank = tile.size();
  for (int64_t axis = 0; axis + 2 < rank; ++axis)
    if (tile[axis] != 1)
      return false;
  TiledMatmulEmitter emitter(t);
  if (emitter.sharedBytes > kTiledMaxShared)
    return false;
  // K = 0 (an empty product) keeps the serial loop: no chunk to step by.
  return llvm::all_of(emitter.plans, [](const Plan &plan) {
    return plan.k > 0 && plan.chunk >= std::min(plan.k, kTiledMinChunk);
  });
}

Value TiledMatmulEmitter::sharedF32(int64_t offset, Value element) {
  Value byte = t.idxAdd(t.idxConst(offset), t.idxMul(element, 4));
  return LLVM::GEPOp::create(b, sharedBase.getType(), b.getI8Type(), sharedBase,
                             ValueRange{byte});
}

Value TiledMatmulEmitter::loadShared(int64_t offset, Value element) {
  return LLVM::LoadOp::create(b, b.getF32Type(), sharedF32(offset, element), 4);
}

LogicalResult TiledMatmulEmitter::stageOperand(const Plan &plan, bool isLhs, Value k0) {
  MatmulOp op = plan.op;
  int64_t kc = plan.chunk;
  // Outer: the lhs's rows or the rhs's columns of the tile.
  int64_t outer = isLhs ? tm : tn, bound = isLhs ? m : n;
  Value origin = t.tileOrigin[isLhs ? rank - 2 : rank - 1];
  // Consecutive threads walk the operand's contiguous axis: K for an
  // [M, K] lhs and an [N, K] (transposed) rhs, else the outer axis.
  bool kFast = isLhs ? !op.getTransposeLhs() : op.getTransposeRhs();
  int64_t total = outer * kc;
  int64_t copies = std::clamp<int64_t>(
      llvm::divideCeil(total, t.options.blockSize), 1, kTiledStageCopies);
  int64_t base = stageOffset + (isLhs ? 0 : tm * kc * 4);
  auto cmp = [&](arith::CmpIPredicate pred, Value lhs, Value rhs) {
    return b.createOrFold<arith::CmpIOp>(pred, lhs, rhs);
  };

  Value step = t.idxMul(t.blockDim, copies);
  auto loop = scf::ForOp::create(b, t.threadId, t.idxConst(total), step);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  // Every copy's load first (all in flight), then the stores.
  SmallVector<Value> elements, values, valid;
  Value zero = floatConstant(b, b.getF32Type(), 0.0);
  for (int64_t copy = 0; copy < copies; ++copy) {
    Value element = t.idxAdd(loop.getInductionVar(), t.idxMul(t.blockDim, copy));
    Value inTile = cmp(arith::CmpIPredicate::ult, element, t.idxConst(total));
    Value o = b.createOrFold<arith::DivUIOp>(element, t.idxConst(kFast ? kc : outer));
    Value kk = b.createOrFold<arith::RemUIOp>(element, t.idxConst(kFast ? kc : outer));
    if (!kFast)
      std::swap(o, kk);
    DimIndex outerDim, kDim;
    outerDim.base = t.idxAdd(origin, o);
    kDim.base = t.idxAdd(k0, kk);
    Value inRange = arith::AndIOp::create(
        b, inTile,
        arith::AndIOp::create(
            b, cmp(arith::CmpIPredicate::ult, outerDim.base, t.idxConst(bound)),
            cmp(arith::CmpIPredicate::ult, kDim.base, t.idxConst(plan.k))));
    t.pushScope();
    FailureOr<SmallVector<Value>> value =
        emitGuarded(b, inRange, {zero}, [&]() -> FailureOr<SmallVector<Value>> {
          FailureOr<Lanes> lanes = t.eval(isLhs ? op.getLhs() : op.getRhs(),
                                          t.tileOperandIndex(op, isLhs, outerDim, kDim));
          if (failed(lanes))
            return failure();
          return SmallVector<Value>{lanes->front()};
        });
    t.popScope();
    if (failed(value))
      return failure();
    // Stage layout: lhs [tm][kc], rhs [kc][tn].
    Value slot = isLhs ? t.idxAdd(t.idxMul(o, kc), kk) : t.idxAdd(t.idxMul(kk, tn), o);
    elements.push_back(slot);
    values.push_back(value->front());
    valid.push_back(inTile);
  }
  for (int64_t copy = 0; copy < copies; ++copy) {
    auto store = scf::IfOp::create(b, valid[copy], /*withElseRegion=*/false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(store.thenBlock());
    LLVM::StoreOp::create(b, values[copy], sharedF32(base, elements[copy]), 4);
  }
  return success();
}

void TiledMatmulEmitter::foldChunk(const Plan &plan) {
  // A thread folds one column of up to `rowsPer` rows (a "unit"): each K
  // position is one rhs load for all of them, and the lhs rows are read
  // four K positions at a time with 16-byte loads (the stage's rows are
  // 16-byte aligned when kc % 4 == 0); the lanes of a warp read
  // consecutive columns of one rhs row and the same lhs words (a
  // broadcast).
  int64_t kc = plan.chunk;
  int64_t rowsPer = std::clamp<int64_t>(
      llvm::divideCeil(tm * tn, t.options.blockSize), 1, kTiledFoldRows);
  int64_t rowGroups = llvm::divideCeil(tm, rowsPer);
  int64_t lhsBase = stageOffset, rhsBase = stageOffset + tm * kc * 4;
  auto units = scf::ForOp::create(b, t.threadId, t.idxConst(rowGroups * tn), t.blockDim);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(units.getBody());
  Value unit = units.getInductionVar();
  Value col = b.createOrFold<arith::RemUIOp>(unit, t.idxConst(tn));
  Value firstRow = t.idxMul(b.createOrFold<arith::DivUIOp>(unit, t.idxConst(tn)), rowsPer);
  // Per row: its product entry, its first lhs element in the stage.
  SmallVector<Value> entries, lhsRows, valid, accs;
  Value zero = floatConstant(b, b.getF32Type(), 0.0);
  for (int64_t i = 0; i < rowsPer; ++i) {
    Value row = t.idxAdd(firstRow, t.idxConst(i));
    Value inTile = b.createOrFold<arith::CmpIOp>(arith::CmpIPredicate::ult, row,
                                                 t.idxConst(tm));
    // Rows past the tile fold the last row's stage (read-only here) but
    // neither read nor write the products.
    row = arith::SelectOp::create(b, inTile, row, t.idxConst(tm - 1));
    Value entry = t.idxAdd(t.idxMul(row, tn), col);
    entries.push_back(entry);
    lhsRows.push_back(t.idxMul(row, kc));
    valid.push_back(inTile);
    accs.push_back(emitGuarded(b, inTile, {zero}, [&]() -> FailureOr<SmallVector<Value>> {
                     return SmallVector<Value>{loadShared(plan.productsOffset, entry)};
                   })->front());
  }
  int64_t step = kc % 4 == 0 ? 4 : 1;
  auto kLoop = scf::ForOp::create(b, t.idxConst(0), t.idxConst(kc), t.idxConst(step), accs);
  {
    OpBuilder::InsertionGuard body(b);
    b.setInsertionPointToStart(kLoop.getBody());
    Value k = kLoop.getInductionVar();
    SmallVector<Value> next(kLoop.getRegionIterArgs());
    SmallVector<Value> rhs, lanes;
    for (int64_t u = 0; u < step; ++u) {
      rhs.push_back(loadShared(rhsBase, t.idxAdd(t.idxMul(t.idxAdd(k, t.idxConst(u)), tn), col)));
      lanes.push_back(arith::ConstantOp::create(b, b.getI32IntegerAttr(u)));
    }
    for (int64_t i = 0; i < rowsPer; ++i) {
      Value element = t.idxAdd(lhsRows[i], k);
      if (step == 1) {
        next[i] = LLVM::FMAOp::create(b, loadShared(lhsBase, element), rhs[0], next[i]);
        continue;
      }
      Value lhs = LLVM::LoadOp::create(b, VectorType::get({step}, b.getF32Type()),
                                       sharedF32(lhsBase, element), 16);
      for (int64_t u = 0; u < step; ++u)
        next[i] = LLVM::FMAOp::create(b, LLVM::ExtractElementOp::create(b, lhs, lanes[u]),
                                      rhs[u], next[i]);
    }
    scf::YieldOp::create(b, next);
  }
  for (int64_t i = 0; i < rowsPer; ++i) {
    auto store = scf::IfOp::create(b, valid[i], /*withElseRegion=*/false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(store.thenBlock());
    LLVM::StoreOp::create(b, kLoop.getResult(i), sharedF32(plan.productsOffset, entries[i]), 4);
  }
}

LogicalResult TiledMatmulEmitter::emitProducts(const Plan &plan) {
  {
    // Zero the products; the first chunk's barrier orders it.
    auto zero = scf::ForOp::create(b, t.threadId, t.idxConst(tm * tn), t.blockDim);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(zero.getBody());
    LLVM::StoreOp::create(b, floatConstant(b, b.getF32Type(), 0.0),
                          sharedF32(plan.productsOffset, zero.getInductionVar()), 4);
  }
  auto chunks = scf::ForOp::create(b, t.idxConst(0), t.idxConst(plan.k), t.idxConst(plan.chunk));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(chunks.getBody());
  Value k0 = chunks.getInductionVar();
  if (failed(stageOperand(plan, /*isLhs=*/true, k0)) ||
      failed(stageOperand(plan, /*isLhs=*/false, k0)))
    return failure();
  NVVM::Barrier0Op::create(b);
  foldChunk(plan);
  // The next chunk's stage, or the element loop, reads what others wrote.
  NVVM::Barrier0Op::create(b);
  return success();
}

const TiledMatmulEmitter::Plan *TiledMatmulEmitter::planOf(MatmulOp op) const {
  for (const Plan &plan : plans)
    if (plan.op == op)
      return &plan;
  return nullptr;
}

Lanes TiledMatmulEmitter::precomputed(MatmulOp op, const Index &index) {
  const Plan *plan = planOf(op);
  if (!plan || !t.atCurrentIteration(index))
    return {};
  if (index[rank - 2].coef != 0)
    return {};
  Value row = arith::SubIOp::create(b, index[rank - 2].base, t.tileOrigin[rank - 2]);
  Value col = arith::SubIOp::create(b, index[rank - 1].base, t.tileOrigin[rank - 1]);
  Value first = t.idxAdd(t.idxMul(row, tn), col);
  Lanes result;
  for (unsigned lane = 0; lane < t.lanes; ++lane)
    result.push_back(loadShared(
        plan->productsOffset, t.idxAdd(first, t.idxConst(index[rank - 1].coef * lane))));
  return result;
}

LogicalResult TiledMatmulEmitter::emit() {
  t.info.sharedBytes = sharedBytes;
  t.info.strategy = "tiled";
  sharedBase = t.sharedMemoryBase();
  t.allowVector = false;
  t.lanes = 1;
  for (const Plan &plan : plans)
    if (failed(emitProducts(plan)))
      return failure();
  int64_t tileElements = 1;
  for (int64_t size : t.abi.tile)
    tileElements *= size;
  t.precomputedMatmul = [this](MatmulOp op, const Index &index) {
    return precomputed(op, index);
  };
  LogicalResult result = t.emitVectorOrScalar([&](bool vectors) {
    t.allowVector = vectors;
    t.lanes = vectors ? t.maxLanes : 1;
    return t.emitTileResults(tileElements);
  });
  t.precomputedMatmul = nullptr;
  // The next tile of this block reuses shared memory.
  NVVM::Barrier0Op::create(b);
  return result;
}
