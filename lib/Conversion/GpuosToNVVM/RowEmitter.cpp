//===- RowEmitter.cpp - block-cooperative row reductions ------------------===//

#include "RowEmitter.h"
#include "BlockFold.h"
#include "ScalarMath.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include <algorithm>

using namespace mlir;
using namespace gpuos;
using namespace gpuos::codegen;

static constexpr int64_t kEntryBytes = 16;
/// Elements of a row a thread may hold on the straight-line path: a few
/// rows' worth of registers (each live row value takes this many).
static constexpr int64_t kMaxStraightElements = 16;
/// Shared memory a staged link's row may take (docs/codegen.md, "Staged
/// links"); longer rows evaluate each link from the task's inputs.
static constexpr int64_t kMaxStageBytes = 32 * 1024;

/// Row ops whose result is a full row a later link can read.
static bool isLink(Operation *op) {
  return isa<SoftmaxOp, LayerNormOp, RmsNormOp>(op);
}

/// The operand a row op reduces along its innermost axis, or null.
static Value rowOperand(Operation *op) {
  auto innermost = [](Value input, int64_t axis) {
    return axis == cast<StridedTensorType>(input.getType()).getRank() - 1;
  };
  if (Value input = innermostRowInput(op))
    return input;
  if (auto reduce = dyn_cast<ReduceOp>(op))
    return reduce.getAxes().size() == 1 &&
                   innermost(reduce.getInput(), reduce.getAxes()[0])
               ? reduce.getInput()
               : Value();
  if (auto argmax = dyn_cast<ArgmaxOp>(op))
    return innermost(argmax.getInput(), argmax.getAxis()) ? argmax.getInput()
                                                          : Value();
  return Value();
}

/// The row ops of the task and the row shape they share, or failure when
/// the task does not fit the row strategy.
static LogicalResult analyze(TaskOp task, const TaskABI &abi,
                             SmallVectorImpl<Operation *> &ops,
                             SmallVectorImpl<int64_t> &shape) {
  for (Operation &op : task.getBodyBlock().without_terminator()) {
    Value input = rowOperand(&op);
    if (!input)
      continue;
    ArrayRef<int64_t> inputShape =
        cast<StridedTensorType>(input.getType()).getShape();
    if (ops.empty())
      shape.assign(inputShape.begin(), inputShape.end());
    else if (ArrayRef<int64_t>(shape) != inputShape)
      return failure(); // rows of different shapes: reduce serially
    ops.push_back(&op);
  }
  if (ops.empty() || shape.empty() || shape.back() < 1)
    return failure();
  ArrayRef<int64_t> full = shape, rows = full.drop_back();
  SmallVector<int64_t> keep(rows);
  keep.push_back(1);
  auto rowShaped = [&](ArrayRef<int64_t> s) {
    return s == full || s == rows || s == ArrayRef<int64_t>(keep);
  };
  for (Value result : task.getResults())
    if (!rowShaped(cast<StridedTensorType>(result.getType()).getShape()))
      return failure();
  ArrayRef<int64_t> iter = abi.iterShape;
  if (!rowShaped(iter))
    return failure();
  // A tile must hold whole rows.
  if (iter == full && abi.tile.back() != full.back())
    return failure();
  return success();
}

bool RowEmitter::applies(TaskEmitter &t) {
  SmallVector<Operation *> ops;
  SmallVector<int64_t> shape;
  return succeeded(analyze(t.task, t.abi, ops, shape));
}

RowEmitter::RowEmitter(TaskEmitter &task) : t(task), b(task.b) {
  SmallVector<int64_t> shape;
  (void)analyze(t.task, t.abi, rowOps, shape);
  rowShape.assign(shape.begin(), shape.end() - 1);
  rowLength = shape.back();
  Type element =
      cast<StridedTensorType>(rowOperand(rowOps.front()).getType()).getElementType();
  rowLanes = std::min<unsigned>(8, 16 / storageBytes(element));
  while (rowLanes > 1 && rowLength % rowLanes != 0)
    rowLanes /= 2;
  // Values that wait for some row op's statistics.
  for (Operation &op : t.task.getBodyBlock().without_terminator())
    if (llvm::is_contained(rowOps, &op) ||
        llvm::any_of(op.getOperands(),
                     [&](Value v) { return rowDependent.contains(v); }))
      rowDependent.insert(op.getResults().begin(), op.getResults().end());
  // A warp per row: short rows (straight-line chunks at any block size),
  // or a tile of at least a row per warp (rows in parallel beat a block
  // that walks them one by one, two barriers each).
  for (size_t axis = 0; axis < rowShape.size(); ++axis)
    rowsPerTile *= t.abi.tile[axis];
  warpRows = rowLength <= 32 * kMaxStraightElements ||
             rowsPerTile >= t.options.blockSize / 32;
}

//===----------------------------------------------------------------------===//
// Block-wide reductions
//===----------------------------------------------------------------------===//

void RowEmitter::barrier() { NVVM::Barrier0Op::create(b); }

Value RowEmitter::shuffleXor(Value value, int offset) {
  return codegen::shuffleXor(b, value, offset);
}

Value RowEmitter::sharedSlot(unsigned offsetBytes, Value entry) {
  Type i32 = b.getI32Type();
  Value byte = arith::AddIOp::create(
      b, intConstant(b, i32, offsetBytes),
      arith::MulIOp::create(b, entry, intConstant(b, i32, kEntryBytes)));
  return LLVM::GEPOp::create(b, sharedBase.getType(), b.getI8Type(), sharedBase,
                             ValueRange{byte});
}

unsigned RowEmitter::storeWarpTotals(ValueRange totals) {
  // Two slots in turn: the next statistic writes the other one while slow
  // threads may still read this one, so one barrier per statistic suffices
  // (docs/codegen.md, rows).
  unsigned slot = nextSlot;
  nextSlot ^= 1;
  unsigned base = slot * 32 * kEntryBytes;
  Value leader = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, laneId,
                                       intConstant(b, b.getI32Type(), 0));
  {
    auto ifOp = scf::IfOp::create(b, leader, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    for (auto [k, total] : llvm::enumerate(totals))
      LLVM::StoreOp::create(b, total, sharedSlot(base + 8 * k, warpId),
                            /*alignment=*/8);
  }
  barrier();
  return base;
}

Value RowEmitter::blockReduce(Value partial, Fold fold, Value identity) {
  Value value = foldWarp(b, partial, fold, foldWidth());
  if (warpRows) // every lane holds the warp's (the row's) result
    return value;
  unsigned base = storeWarpTotals(value);
  // Every thread folds the warp totals in warp order: the same result
  // everywhere, and deterministic for a given block size.
  return foldStoredTotals(
      b, value.getType(), fold, identity, numWarps,
      [&](Value warp) { return sharedSlot(base, warp); }, /*alignment=*/8);
}

std::pair<Value, Value> RowEmitter::blockFoldPair(Value first, Value second,
                                                  Value initFirst, Value initSecond,
                                                  PairFold fold) {
  for (int offset = foldWidth() / 2; offset >= 1; offset /= 2)
    std::tie(first, second) =
        fold(first, second, shuffleXor(first, offset), shuffleXor(second, offset));
  if (warpRows)
    return {first, second};
  unsigned base = storeWarpTotals({first, second});
  // In warp order from the identities, as foldStoredTotals does for one.
  Type i32 = b.getI32Type();
  auto loop = scf::ForOp::create(b, intConstant(b, i32, 0), numWarps,
                                 intConstant(b, i32, 1), ValueRange{initFirst, initSecond});
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value w = loop.getInductionVar();
  Value storedFirst = LLVM::LoadOp::create(b, first.getType(), sharedSlot(base, w), 8);
  Value storedSecond = LLVM::LoadOp::create(b, second.getType(), sharedSlot(base + 8, w), 8);
  auto [a, c] = fold(loop.getRegionIterArgs()[0], loop.getRegionIterArgs()[1], storedFirst,
                     storedSecond);
  scf::YieldOp::create(b, ValueRange{a, c});
  b.setInsertionPointAfter(loop);
  return {loop.getResult(0), loop.getResult(1)};
}

//===----------------------------------------------------------------------===//
// Per-row statistics
//===----------------------------------------------------------------------===//

Index RowEmitter::rowIndex(Value j) {
  Index index;
  for (Value row : currentRow) {
    DimIndex dim;
    dim.base = row;
    index.push_back(dim);
  }
  DimIndex last;
  last.base = j;
  last.coef = 1;
  last.divisor = rowLanes; // j starts at tid * lanes and steps by a multiple
  index.push_back(last);
  return index;
}

FailureOr<SmallVector<Value>> RowEmitter::forEachChunk(ValueRange init,
                                                        ChunkStep step) {
  if (straight) {
    SmallVector<Value> accs(init.begin(), init.end());
    for (auto [j, valid] : chunks) {
      FailureOr<SmallVector<Value>> next = step(j, valid, accs);
      if (failed(next))
        return failure();
      accs = std::move(*next);
    }
    return accs;
  }
  // The loop: each iteration takes loopUnroll() chunks, `stride` apart, so
  // their loads are in flight together (a one-chunk body waited a memory
  // latency per chunk; docs/codegen.md has the H200 figures).
  // Chunks past the row read its last chunk and are masked, as on the
  // straight-line path.
  unsigned unroll = loopUnroll();
  Value lower = t.idxMul(rowThread, rowLanes);
  Value stride = t.idxMul(warpRows ? t.idxConst(rowGroupSize()) : t.blockDim, rowLanes);
  Value loopStep = unroll > 1 ? t.idxMul(stride, int64_t(unroll)) : stride;
  auto loop = scf::ForOp::create(b, lower, t.idxConst(rowLength), loopStep, init);
  OpBuilder::InsertionGuard guard(b);
  // Without accumulators the loop comes with its (empty) yield.
  if (init.empty())
    b.setInsertionPoint(loop.getBody()->getTerminator());
  else
    b.setInsertionPointToStart(loop.getBody());
  t.pushScope();
  SmallVector<Value> accs(loop.getRegionIterArgs());
  Value j = loop.getInductionVar(), last = t.idxConst(rowLength - rowLanes);
  for (unsigned k = 0; k < unroll; ++k) {
    Value valid;
    if (k > 0) { // the first chunk is in the row: the loop's bound
      j = t.idxAdd(j, stride);
      valid = arith::CmpIOp::create(b, arith::CmpIPredicate::ule, j, last);
    }
    Value at = valid ? Value(arith::MinUIOp::create(b, j, last)) : j;
    chunkStarts.insert(at); // this thread's chunks (staged links)
    if (valid)
      chunkValid[at] = valid;
    FailureOr<SmallVector<Value>> next = step(at, valid, accs);
    if (failed(next)) {
      t.popScope();
      return failure();
    }
    accs = std::move(*next);
  }
  t.popScope();
  if (!init.empty())
    scf::YieldOp::create(b, accs);
  return SmallVector<Value>(loop.getResults());
}

unsigned RowEmitter::loopUnroll() const {
  // Rows short enough for the straight-line path take the loop only at
  // other block sizes and for misaligned buffers: one chunk an iteration
  // keeps that copy small. Longer rows:
  // chunks per thread at the tuned block size, up to 8 (32 f32 in flight
  // per thread and pass: a 16384-wide row is two iterations, not four).
  if (straightChunks() != 0)
    return 1;
  int64_t perChunk = rowGroupSize() * rowLanes;
  return unsigned(std::clamp<int64_t>(llvm::divideCeil(rowLength, perChunk), 1, 8));
}

Value RowEmitter::foldChunk(const Lanes &values, Value acc, Value identity, Fold fold,
                           Value valid) {
  Value partial = identity;
  for (Value value : values)
    partial = fold(partial, value);
  if (valid) // a chunk past the row's end adds the identity
    partial = arith::SelectOp::create(b, valid, partial, identity);
  return fold(acc, partial);
}

FailureOr<Value> RowEmitter::rowReduce(Value identity, Term term, Fold fold) {
  FailureOr<SmallVector<Value>> acc = forEachChunk(
      identity,
      [&](Value j, Value valid, ValueRange accs) -> FailureOr<SmallVector<Value>> {
        FailureOr<Lanes> values = term(rowIndex(j));
        if (failed(values))
          return failure();
        return SmallVector<Value>{foldChunk(*values, accs[0], identity, fold, valid)};
      });
  if (failed(acc))
    return failure();
  return blockReduce((*acc)[0], fold, identity);
}

bool RowEmitter::isSiblingReduce(Operation *op) const {
  return isa<ReduceOp>(op) && !rowDependent.contains(rowOperand(op));
}

LogicalResult RowEmitter::rowReduceSiblings(ArrayRef<Operation *> ops) {
  // Each reduce's kind, element type and identity, looked up once.
  struct Sibling {
    ReduceOp op;
    ReductionKind kind;
    Type element;
    Value identity;
    Value combine(ImplicitLocOpBuilder &b, Value acc, Value v) const {
      return reductionCombine(b, kind, acc, v, element);
    }
  };
  SmallVector<Sibling> siblings;
  for (Operation *op : ops) {
    auto reduce = cast<ReduceOp>(op);
    Type element = cast<StridedTensorType>(reduce.getInput().getType()).getElementType();
    siblings.push_back({reduce, reduce.getKind(), element,
                        reductionIdentity(b, reduce.getKind(), element)});
  }
  SmallVector<Value> identities;
  for (const Sibling &sibling : siblings)
    identities.push_back(sibling.identity);
  FailureOr<SmallVector<Value>> accs = forEachChunk(
      identities,
      [&](Value j, Value valid, ValueRange accs) -> FailureOr<SmallVector<Value>> {
        SmallVector<Value> next;
        for (auto [sibling, acc] : llvm::zip(siblings, accs)) {
          // One load of a shared operand: eval's memo serves the others.
          FailureOr<Lanes> values = t.eval(sibling.op.getInput(), rowIndex(j));
          if (failed(values))
            return failure();
          auto fold = [&](Value x, Value y) { return sibling.combine(b, x, y); };
          next.push_back(foldChunk(*values, acc, sibling.identity, fold, valid));
        }
        return next;
      });
  if (failed(accs))
    return failure();
  for (auto [sibling, acc] : llvm::zip(siblings, *accs)) {
    auto fold = [&](Value x, Value y) { return sibling.combine(b, x, y); };
    Value result = blockReduce(acc, fold, sibling.identity);
    if (sibling.kind == ReductionKind::mean)
      result = arith::DivFOp::create(b, result,
                                     floatConstant(b, result.getType(), double(rowLength)));
    t.stats[{sibling.op, 0}] = result;
  }
  return success();
}

FailureOr<Value> RowEmitter::rowArgmax(Value input) {
  Type element = cast<StridedTensorType>(input.getType()).getElementType();
  Type i64 = b.getI64Type();
  Value initV = reductionIdentity(b, ReductionKind::max, element);
  Value initI = arith::ConstantOp::create(
      b, b.getI64IntegerAttr(std::numeric_limits<int64_t>::max()));
  FailureOr<SmallVector<Value>> best = forEachChunk(
      ValueRange{initV, initI},
      [&](Value j, Value valid, ValueRange accs) -> FailureOr<SmallVector<Value>> {
        FailureOr<Lanes> values = t.eval(input, rowIndex(j));
        if (failed(values))
          return failure();
        Value bestV = accs[0], bestIndex = accs[1];
        Value position = j.getType().isInteger(64)
                             ? j
                             : Value(arith::ExtUIOp::create(b, i64, j));
        for (auto [lane, held] : llvm::enumerate(*values)) {
          Value at = arith::AddIOp::create(b, position, intConstant(b, i64, lane));
          // Compared as the graph's f16/bf16 values (Reductions.cpp too).
          Value value = roundToElement(b, held, element);
          Value takes = emitArgmaxTakes(b, value, at, bestV, bestIndex);
          if (valid)
            takes = arith::AndIOp::create(b, takes, valid);
          bestV = arith::SelectOp::create(b, takes, value, bestV);
          bestIndex = arith::SelectOp::create(b, takes, at, bestIndex);
        }
        return SmallVector<Value>{bestV, bestIndex};
      });
  if (failed(best))
    return failure();
  auto pick = [&](Value v, Value i, Value otherV, Value otherI) {
    Value takes = emitArgmaxTakes(b, otherV, otherI, v, i);
    return std::pair(arith::SelectOp::create(b, takes, otherV, v).getResult(),
                     arith::SelectOp::create(b, takes, otherI, i).getResult());
  };
  return blockFoldPair((*best)[0], (*best)[1], initV, initI, pick).second;
}

LogicalResult RowEmitter::rowSoftmaxStats(Operation *op) {
  Value input = rowOperand(op);
  Type element = cast<StridedTensorType>(input.getType()).getElementType();
  Type type = computeType(element);
  Value negInf = reductionIdentity(b, ReductionKind::max, element);
  Value zero = floatConstant(b, type, 0.0);
  // The exponents' offset: the max, or 0 while the max is -inf (nothing
  // but -inf seen yet), where exp(-inf - -inf) would be NaN; every term
  // seen is then exp(-inf) = 0 either way.
  auto offset = [&](Value max) -> Value {
    Value none = arith::CmpFOp::create(b, arith::CmpFPredicate::OEQ, max, negInf);
    return arith::SelectOp::create(b, none, zero, max);
  };
  auto maxFold = [&](Value x, Value y) -> Value { return arith::MaximumFOp::create(b, x, y); };
  auto addFold = [&](Value x, Value y) -> Value { return arith::AddFOp::create(b, x, y); };
  // (max, sum of exp(x - max)) and (otherMax, otherSum) as one pair.
  auto merge = [&](Value max, Value sum, Value otherMax, Value otherSum) {
    Value merged = arith::MaximumFOp::create(b, max, otherMax);
    Value at = offset(merged);
    Value scaled = arith::MulFOp::create(b, sum, emitExp(b, arith::SubFOp::create(b, max, at)));
    Value otherScaled =
        arith::MulFOp::create(b, otherSum, emitExp(b, arith::SubFOp::create(b, otherMax, at)));
    return std::pair(merged, Value(arith::AddFOp::create(b, scaled, otherScaled)));
  };
  FailureOr<SmallVector<Value>> partial = forEachChunk(
      ValueRange{negInf, zero},
      [&](Value j, Value valid, ValueRange accs) -> FailureOr<SmallVector<Value>> {
        FailureOr<Lanes> values = t.eval(input, rowIndex(j));
        if (failed(values))
          return failure();
        // A chunk past the row's end counts as -inf and adds 0.
        Value max = foldChunk(*values, accs[0], negInf, maxFold, valid);
        Value at = offset(max);
        Lanes terms;
        for (Value value : *values)
          terms.push_back(emitExp(b, arith::SubFOp::create(b, value, at)));
        Value rescaled =
            arith::MulFOp::create(b, accs[1], emitExp(b, arith::SubFOp::create(b, accs[0], at)));
        return SmallVector<Value>{max, foldChunk(terms, rescaled, zero, addFold, valid)};
      });
  if (failed(partial))
    return failure();
  auto [max, sum] = blockFoldPair((*partial)[0], (*partial)[1], negInf, zero, merge);
  t.stats[{op, 0}] = max;
  t.stats[{op, 1}] = sum;
  return success();
}

LogicalResult RowEmitter::computeStats(Operation *op) {
  if (isa<ArgmaxOp>(op)) {
    FailureOr<Value> index = rowArgmax(rowOperand(op));
    if (failed(index))
      return failure();
    t.stats[{op, 0}] = *index;
    return success();
  }
  if (isa<SoftmaxOp>(op) && !straight)
    return rowSoftmaxStats(op);
  return t.rowStatistics(op, rowLength,
                         [&](Value identity, TaskEmitter::Term term, TaskEmitter::Fold fold) {
                           return rowReduce(identity, term, fold);
                         });
}

//===----------------------------------------------------------------------===//
// Look-ahead
//===----------------------------------------------------------------------===//

LogicalResult RowEmitter::preload(Value value, const Index &index) {
  if (!rowDependent.contains(value))
    return failure(failed(t.eval(value, index)));
  // Through elementwise ops to the parts that do not wait for a statistic.
  // A norm's value (its statistics come from an earlier stage) also reads
  // its weight and bias, at the column (Reductions.cpp); anything else
  // built on a row op stops the walk.
  Operation *op = value.getDefiningOp();
  assert(op && "rowDependent holds op results only");
  if (isa<RmsNormOp, LayerNormOp>(op)) {
    for (Value affine : op->getOperands().drop_front())
      if (failed(preload(affine, Index{index.back()})))
        return failure();
    return success();
  }
  if (!op->hasTrait<OpTrait::Elementwise>())
    return success();
  ArrayRef<int64_t> shape =
      cast<StridedTensorType>(value.getType()).getShape();
  for (Value operand : op->getOperands())
    if (failed(preload(operand, t.broadcastIndex(
                                    index, shape,
                                    cast<StridedTensorType>(operand.getType())
                                        .getShape()))))
      return failure();
  return success();
}

LogicalResult RowEmitter::preloadStage(unsigned stage) {
  // Stages: the row ops in body order (each reads its operand at the row
  // index), then the stores of the full rows.
  SmallVector<Value> roots;
  if (stage < rowOps.size()) {
    roots.push_back(rowOperand(rowOps[stage]));
  } else if (stage == rowOps.size()) {
    auto yield = cast<YieldOp>(t.task.getBodyBlock().getTerminator());
    for (Value value : yield.getValues()) {
      auto shape = cast<StridedTensorType>(value.getType()).getShape();
      if (shape.size() == rowShape.size() + 1 && shape.back() == rowLength)
        roots.push_back(value);
    }
  }
  for (auto [j, valid] : chunks) {
    Index index = rowIndex(j);
    for (Value root : roots)
      if (failed(preload(root, index)))
        return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Rows
//===----------------------------------------------------------------------===//

LogicalResult RowEmitter::emitRow(ArrayRef<Value> row) {
  currentRow.assign(row.begin(), row.end());
  chunks.clear();
  if (straight) {
    // Chunk k of this thread starts at (position + k * group) * lanes
    // (group: the block's tuned size, or 32 lanes). A chunk that can lie
    // past the row reads the row's last chunk instead (always in bounds,
    // and as aligned as any chunk) and is masked.
    int64_t group = rowGroupSize();
    Value first = t.idxMul(rowThread, rowLanes);
    Value last = t.idxConst(rowLength - rowLanes);
    for (unsigned k = 0, n = straightChunks(); k < n; ++k) {
      Value j = t.idxAdd(first, t.idxConst(int64_t(k) * group * rowLanes));
      if (int64_t(k + 1) * group * rowLanes <= rowLength) {
        chunks.push_back({j, Value()});
        continue;
      }
      Value valid = arith::CmpIOp::create(b, arith::CmpIPredicate::ule, j, last);
      chunks.push_back({arith::MinUIOp::create(b, j, last), valid});
    }
  }
  t.statRow.assign(row.begin(), row.end());
  t.stats.clear();
  staged = Value();
  chunkStarts.clear();
  chunkValid.clear();
  for (auto [k, op] : llvm::enumerate(rowOps)) {
    // Straight-line: the next stage's loads go out before this one's block
    // reduction, so their latency hides behind its barrier (docs/codegen.md,
    // "Look-ahead").
    if (straight && failed(preloadStage(k + 1)))
      return failure();
    // Loop path: a reduce the previous one's pass already folded.
    if (!straight && t.stats.count({op, 0}))
      continue;
    if (!straight && isSiblingReduce(op)) {
      SmallVector<Operation *> siblings;
      for (Operation *later : ArrayRef(rowOps).drop_front(k))
        if (isSiblingReduce(later))
          siblings.push_back(later);
      if (siblings.size() > 1) {
        if (failed(rowReduceSiblings(siblings)))
          return failure();
        continue;
      }
    }
    if (failed(computeStats(op)))
      return failure();
    // Loop path: a link that a later row op reads goes to shared memory.
    if (!straight && stageLinks && isLink(op) && readLater(k) &&
        failed(stageLink(op)))
      return failure();
  }

  auto yield = cast<YieldOp>(t.task.getBodyBlock().getTerminator());
  SmallVector<std::pair<unsigned, Value>> fullRow, reduced;
  for (auto [index, value] : llvm::enumerate(yield.getValues())) {
    auto shape = cast<StridedTensorType>(value.getType()).getShape();
    if (shape.size() == rowShape.size() + 1 && shape.back() == rowLength)
      fullRow.push_back({index, value});
    else
      reduced.push_back({index, value});
  }
  LogicalResult result = success();
  if (!fullRow.empty()) {
    FailureOr<SmallVector<Value>> stored = forEachChunk(
        ValueRange{},
        [&](Value j, Value valid, ValueRange) -> FailureOr<SmallVector<Value>> {
          Index index = rowIndex(j);
          SmallVector<Lanes> values;
          for (auto [slot, value] : fullRow) {
            FailureOr<Lanes> lanes = t.eval(value, index);
            if (failed(lanes))
              return failure();
            values.push_back(std::move(*lanes));
          }
          OpBuilder::InsertionGuard guard(b);
          // A chunk past the row's end, or a lane without a row, stores
          // nothing.
          Value stores = valid;
          if (rowMask)
            stores = stores ? Value(arith::AndIOp::create(b, stores, rowMask)) : rowMask;
          if (stores)
            b.setInsertionPointToStart(
                scf::IfOp::create(b, stores, /*withElseRegion=*/false).thenBlock());
          for (auto [entry, lanes] : llvm::zip(fullRow, values))
            t.store(t.buffers[t.abi.numInputs + entry.first], index, lanes);
          return SmallVector<Value>();
        });
    if (failed(stored))
      result = failure();
  }
  if (succeeded(result) && !reduced.empty()) {
    Value first = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, rowThread,
                                        t.idxConst(0));
    if (rowMask)
      first = arith::AndIOp::create(b, first, rowMask);
    auto ifOp = scf::IfOp::create(b, first, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    unsigned savedLanes = t.lanes;
    t.lanes = 1;
    t.pushScope();
    for (auto [slot, value] : reduced) {
      Index index;
      for (Value rowValue : currentRow) {
        DimIndex dim;
        dim.base = rowValue;
        index.push_back(dim);
      }
      if (cast<StridedTensorType>(value.getType()).getRank() > int64_t(rowShape.size()))
        index.push_back(t.constDim(0)); // keepdim
      FailureOr<Lanes> values = t.eval(value, index);
      if (failed(values)) {
        result = failure();
        break;
      }
      t.store(t.buffers[t.abi.numInputs + slot], index, *values);
    }
    t.popScope();
    t.lanes = savedLanes;
  }
  t.stats.clear();
  staged = Value();
  return result;
}

bool RowEmitter::readLater(unsigned k) const {
  // The values computed from row op k's result, in body order.
  llvm::DenseSet<Value> from{rowOps[k]->getResult(0)};
  for (Operation *op = rowOps[k]->getNextNode(); op; op = op->getNextNode())
    if (llvm::any_of(op->getOperands(), [&](Value v) { return from.contains(v); }))
      from.insert(op->getResults().begin(), op->getResults().end());
  return llvm::any_of(ArrayRef(rowOps).drop_front(k + 1), [&](Operation *later) {
    return from.contains(rowOperand(later));
  });
}

Value RowEmitter::stagedSlot(Value j, unsigned lane) {
  Type i32 = b.getI32Type();
  Value at = j.getType().isInteger(32) ? j : Value(arith::TruncIOp::create(b, i32, j));
  if (lane)
    at = arith::AddIOp::create(b, at, intConstant(b, i32, lane));
  int64_t bytes = storageBytes(stageType);
  Value byte = arith::AddIOp::create(b, intConstant(b, i32, kRowSharedBytes),
                                     arith::MulIOp::create(b, at, intConstant(b, i32, bytes)));
  return LLVM::GEPOp::create(b, sharedBase.getType(), b.getI8Type(), sharedBase,
                             ValueRange{byte});
}

LogicalResult RowEmitter::stageLink(Operation *op) {
  Value value = op->getResult(0);
  unsigned alignment = unsigned(storageBytes(stageType));
  // Evaluated from the link before it (still staged), written over it:
  // each thread at its own chunks, which every pass visits alike.
  FailureOr<SmallVector<Value>> done = forEachChunk(
      ValueRange{},
      [&](Value j, Value valid, ValueRange) -> FailureOr<SmallVector<Value>> {
        FailureOr<Lanes> lanes = t.eval(value, rowIndex(j));
        if (failed(lanes))
          return failure();
        OpBuilder::InsertionGuard guard(b);
        // A chunk past the row's end is another thread's (the row's last):
        // no store. (Its staged loads read the spare chunk: loadStaged.)
        if (valid)
          b.setInsertionPointToStart(
              scf::IfOp::create(b, valid, /*withElseRegion=*/false).thenBlock());
        for (auto [lane, lv] : llvm::enumerate(*lanes))
          LLVM::StoreOp::create(b, lv, stagedSlot(j, lane), alignment);
        return SmallVector<Value>();
      });
  if (failed(done))
    return failure();
  staged = value;
  return success();
}

Lanes RowEmitter::loadStaged(Value value, const Index &index) {
  if (!staged || value != staged || index.size() != currentRow.size() + 1)
    return {};
  for (auto [dim, row] : llvm::zip(ArrayRef(index).drop_back(), currentRow))
    if (!dim.isAffine() || dim.base != row || dim.coef != 0)
      return {};
  // One of this thread's chunks (rowIndex(j) in a pass): element j + lane
  // at lane `lane`. Another position of the row (a view that shifts it)
  // may be another thread's part, written without a barrier between.
  const DimIndex &last = index.back();
  if (!last.isAffine() || last.coef != 1 || !chunkStarts.contains(last.base))
    return {};
  // A chunk past the row's end reads the spare chunk after the row (its
  // values are masked): the row's last chunk is another thread's, which
  // may be writing it.
  Value start = last.base;
  if (Value valid = chunkValid.lookup(start))
    start = arith::SelectOp::create(b, valid, start, t.idxConst(rowLength));
  Lanes lanes;
  unsigned alignment = unsigned(storageBytes(stageType));
  for (unsigned lane = 0; lane < t.lanes; ++lane)
    lanes.push_back(LLVM::LoadOp::create(b, stageType, stagedSlot(start, lane), alignment));
  return lanes;
}

LogicalResult RowEmitter::emitRows(bool vectors) {
  t.allowVector = vectors;
  t.lanes = rowLanes;
  nextSlot = 0;
  // Warp mode: warp w takes rows w, w + numWarps, ... (with several rows a
  // warp, its lanes' rows w * k + slot, then numWarps * k further, ...).
  int64_t perWarp = rowsPerWarp();
  auto loop = warpRows ? scf::ForOp::create(b, t.idxMul(rowWarp, perWarp),
                                            t.idxConst(rowsPerTile),
                                            t.idxMul(rowWarps, perWarp))
                       : scf::ForOp::create(b, t.idxConst(0),
                                            t.idxConst(rowsPerTile), t.idxConst(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  t.pushScope();
  Value linear = loop.getInductionVar();
  rowMask = Value();
  auto maskRow = [&](Value inside) {
    rowMask = rowMask ? Value(arith::AndIOp::create(b, rowMask, inside)) : inside;
  };
  if (perWarp > 1) {
    linear = t.idxAdd(linear, rowSlot);
    if (rowsPerTile % perWarp != 0) {
      maskRow(arith::CmpIOp::create(b, arith::CmpIPredicate::ult, linear,
                                    t.idxConst(rowsPerTile)));
      linear = arith::MinUIOp::create(b, linear, t.idxConst(rowsPerTile - 1));
    }
  }
  SmallVector<Value> row(rowShape.size());
  Value inBounds;
  for (int64_t axis = rowShape.size() - 1; axis >= 0; --axis) {
    Value size = t.idxConst(t.abi.tile[axis]);
    Value local = axis == 0 ? linear : b.createOrFold<arith::RemUIOp>(linear, size);
    linear = b.createOrFold<arith::DivUIOp>(linear, size);
    row[axis] = t.idxAdd(t.tileOrigin[axis], local);
    if (rowShape[axis] % t.abi.tile[axis] != 0) {
      Value inside = arith::CmpIOp::create(b, arith::CmpIPredicate::ult, row[axis],
                                           t.idxConst(rowShape[axis]));
      if (perWarp > 1) { // per lane: clamped and masked
        maskRow(inside);
        row[axis] = arith::MinUIOp::create(b, row[axis], t.idxConst(rowShape[axis] - 1));
        continue;
      }
      // The same for every thread: barriers inside stay uniform.
      inBounds = inBounds ? Value(arith::AndIOp::create(b, inBounds, inside)) : inside;
    }
  }
  LogicalResult result = success();
  if (inBounds) {
    auto ifOp = scf::IfOp::create(b, inBounds, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    t.pushScope();
    result = emitRow(row);
    t.popScope();
  } else {
    result = emitRow(row);
  }
  // With an odd number of block folds per row (the slots this row's body
  // took: a softmax takes one on the loop path, two on the straight-line
  // path), the next row's first one would reuse the slot this row's last one
  // is still being read from.
  if (nextSlot != 0 && !warpRows)
    barrier();
  t.popScope();
  return result;
}

LogicalResult RowEmitter::emitAligned() {
  if (rowLanes == 1)
    return emitRows(/*vectors=*/false);
  return t.emitVectorOrScalar([&](bool vectors) { return emitRows(vectors); });
}

int64_t RowEmitter::rowGroupSize() const {
  if (!warpRows)
    return t.options.blockSize;
  uint64_t chunks = uint64_t(llvm::divideCeil(rowLength, rowLanes));
  return int64_t(std::min<uint64_t>(32, llvm::bit_ceil(chunks)));
}

unsigned RowEmitter::straightChunks() const {
  int64_t perChunk = rowGroupSize() * rowLanes;
  int64_t count = llvm::divideCeil(rowLength, perChunk);
  return count * rowLanes <= kMaxStraightElements ? unsigned(count) : 0;
}

LogicalResult RowEmitter::emit() {
  t.info.sharedBytes = kRowSharedBytes;
  t.info.strategy = "rows";
  t.maxLanes = rowLanes;
  // Staged links: block rows of a chain whose link rows fit the budget.
  Type element =
      cast<StridedTensorType>(rowOperand(rowOps.front()).getType()).getElementType();
  Type compute = computeType(element);
  // The row and a spare chunk after it (masked chunks read it).
  int64_t stageBytes =
      isa<FloatType>(compute) ? (rowLength + rowLanes) * storageBytes(compute) : 0;
  // One slot width for the buffer: every link of the compute type it is
  // sized by (a hand-written task may chain f64 and f32 rows).
  auto sameCompute = [&](Operation *op) {
    return !isLink(op) ||
           computeType(cast<StridedTensorType>(op->getResult(0).getType())
                           .getElementType()) == compute;
  };
  stageLinks = !warpRows && stageBytes > 0 && stageBytes <= kMaxStageBytes &&
               llvm::count_if(rowOps, isLink) >= 2 &&
               llvm::all_of(rowOps, sameCompute);
  if (stageLinks) {
    stageType = compute;
    t.info.sharedBytes += stageBytes;
    t.stagedValue = [this](Value value, const Index &index) {
      return loadStaged(value, index);
    };
  }
  sharedBase = t.sharedMemoryBase();
  Type i32 = b.getI32Type();
  Value tid = NVVM::ThreadIdXOp::create(b, i32);
  laneId = arith::AndIOp::create(b, tid, intConstant(b, i32, 31));
  warpId = arith::ShRUIOp::create(b, tid, intConstant(b, i32, 5));
  numWarps = arith::ShRUIOp::create(b, NVVM::BlockDimXOp::create(b, i32),
                                    intConstant(b, i32, 5));

  rowThread = t.threadId;
  LogicalResult result = success();
  if (warpRows) {
    // Straight-line at any block size: a row's group is 32 lanes or fewer.
    Value five = t.idxConst(5);
    Value lane = arith::AndIOp::create(b, t.threadId, t.idxConst(31));
    int64_t group = rowGroupSize();
    rowThread = arith::AndIOp::create(b, lane, t.idxConst(group - 1));
    rowSlot = arith::ShRUIOp::create(b, lane, t.idxConst(llvm::Log2_64(group)));
    rowWarp = arith::ShRUIOp::create(b, t.threadId, five);
    rowWarps = arith::ShRUIOp::create(b, t.blockDim, five);
    t.info.sharedBytes = 0;
    straight = straightChunks() != 0;
    result = emitAligned();
    straight = false;
  } else if (straightChunks() == 0) {
    result = emitAligned();
  } else {
    // The straight-line copy at the tuned block size with aligned buffers
    // (vector accesses), the loop otherwise: at other block sizes, and for
    // misaligned buffers, which PyTorch's allocations rarely make (a scalar
    // straight-line copy of its own made ptxas compile row chains' code
    // three times instead of twice).
    Value tuned = arith::CmpIOp::create(
        b, arith::CmpIPredicate::eq, NVVM::BlockDimXOp::create(b, i32),
        intConstant(b, i32, t.options.blockSize));
    Value warps = numWarps;
    result = t.emitVectorOrScalar(
        [&](bool vectors) {
          if (!vectors)
            return emitRows(/*vectors=*/false);
          numWarps = intConstant(b, i32, t.options.blockSize / 32); // unrolls
          straight = true;
          LogicalResult emitted = emitRows(/*vectors=*/rowLanes > 1);
          straight = false;
          numWarps = warps;
          return emitted;
        },
        tuned);
  }
  // Shared memory is free again when the function returns.
  if (!warpRows)
    barrier();
  t.stagedValue = nullptr;
  return result;
}
