//===- TaskEmitter.cpp - the skeleton of a task function ------------------===//
//
//   args (generic) -> addrspace(1); buffer i = inttoptr(load i64 args[i])
//   tile -> tile coordinates (row-major over ceil(shape / tile)) -> origin
//   for e = tid * L; e < tile elements; e += blockDim * L:   (L = lanes)
//     local = delinearize(e) over the tile; global = origin + local
//     if global is inside the shape: store every result at global
//
// With L > 1 the loop is emitted twice, behind a run-time check that the
// buffers accessed with vectors are 16-byte aligned; the second copy uses
// scalar accesses only, so any element-aligned address works. That copy
// handles one element per iteration (L = 1): misaligned views are rare, and
// a copy of L lanes would make the function, and ptxas' time, nearly twice
// as large (docs/results/compile.md).
//
//===----------------------------------------------------------------------===//

#include "TaskEmitter.h"
#include "RowEmitter.h"
#include "ScalarMath.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace gpuos;
using namespace gpuos::codegen;

/// Largest element offset reachable in a view, plus one.
static int64_t spanOf(StridedTensorType type) {
  int64_t span = 1;
  for (auto [size, stride] :
       llvm::zip(type.getShape(), type.getEffectiveStrides()))
    span += (size - 1) * stride;
  return span;
}

/// 32-bit index arithmetic is cheaper on the GPU; use it when every offset
/// and every iteration position of the task fits.
static bool fitsInI32(TaskOp task, const TaskABI &abi) {
  constexpr int64_t limit = int64_t(1) << 30; // headroom for lane offsets
  for (StridedTensorType type : abi.buffers)
    if (spanOf(type) >= limit)
      return false;
  bool fits = true;
  task.getBodyBlock().walk([&](Operation *op) {
    for (Value value : op->getResults())
      if (auto type = dyn_cast<StridedTensorType>(value.getType()))
        if (type.getNumElements().value_or(limit) >= limit)
          fits = false;
  });
  return fits;
}

TaskEmitter::TaskEmitter(TaskOp task, const TaskABI &abi,
                         LLVM::LLVMFuncOp func, const LowerTasksOptions &options)
    : task(task), abi(abi), func(func), options(options),
      b(task.getLoc(), func.getContext()) {
  idxTy = fitsInI32(task, abi) ? b.getI32Type() : b.getI64Type();
  info.kind = abi.kind;
  info.blockSize = options.blockSize;
  vectorized.assign(abi.buffers.size(), false);
}

void TaskEmitter::loadArguments(Value args) {
  auto globalPtr = LLVM::LLVMPointerType::get(b.getContext(), 1);
  // docs/abi.md: the argument block is in device global memory, read-only
  // while the task runs.
  Value block = LLVM::AddrSpaceCastOp::create(b, globalPtr, args);
  for (auto [index, type] : llvm::enumerate(abi.buffers)) {
    Value slot = LLVM::GEPOp::create(b, globalPtr, b.getI64Type(), block,
                                     ArrayRef<LLVM::GEPArg>{int32_t(index)});
    Value address = LLVM::LoadOp::create(b, b.getI64Type(), slot,
                                         /*alignment=*/8, /*isVolatile=*/false,
                                         /*isNonTemporal=*/false,
                                         /*isInvariant=*/true);
    MemoryLeaf leaf;
    leaf.ptr = LLVM::IntToPtrOp::create(b, globalPtr, address);
    leaf.elementType = type.getElementType();
    leaf.strides = type.getEffectiveStrides();
    leaf.bufferIndex = index;
    buffers.push_back(leaf);
  }
}

/// Results other than the first must cover the same iteration space, or be
/// its rows reduced (the last dim dropped or kept as 1): those are stored by
/// the thread that handles element 0 of the row.
static LogicalResult checkResultShapes(TaskOp task, const TaskABI &abi) {
  ArrayRef<int64_t> shape = abi.iterShape;
  for (Value result : task.getResults().drop_front()) {
    ArrayRef<int64_t> other = cast<StridedTensorType>(result.getType()).getShape();
    if (other == shape)
      continue;
    bool rowReduced =
        !shape.empty() &&
        (other == shape.drop_back() ||
         (other.size() == shape.size() && other.drop_back() == shape.drop_back() &&
          other.back() == 1));
    if (!rowReduced)
      return task.emitOpError()
             << "result #" << cast<OpResult>(result).getResultNumber()
             << " has shape " << formatShape(other)
             << ", which is neither the iteration space "
             << formatShape(shape)
             << " nor its rows reduced; split the task";
  }
  return success();
}

LogicalResult TaskEmitter::chooseLanes() {
  maxLanes = 1;
  if (abi.iterShape.empty())
    return success();
  auto first = cast<StridedTensorType>(task.getResult(0).getType());
  unsigned candidate =
      std::min<unsigned>(8, 16 / storageBytes(first.getElementType()));
  int64_t inner = abi.iterShape.back(), tileInner = abi.tile.back();
  // A thread's chunk must never straddle a row or the shape's edge.
  while (candidate > 1 && (inner % candidate != 0 || tileInner % candidate != 0))
    candidate /= 2;
  maxLanes = std::max(1u, candidate);
  return success();
}

Value TaskEmitter::alignmentCheck() {
  Value bits;
  for (auto [index, leaf] : llvm::enumerate(buffers)) {
    if (!vectorized[index])
      continue;
    Value address = LLVM::PtrToIntOp::create(b, b.getI64Type(), leaf.ptr);
    bits = bits ? Value(arith::OrIOp::create(b, bits, address)) : address;
  }
  Value low = arith::AndIOp::create(b, bits, intConstant(b, b.getI64Type(), 15));
  return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, low,
                               intConstant(b, b.getI64Type(), 0));
}

LogicalResult TaskEmitter::emitElement(ArrayRef<Value> global) {
  Index iteration;
  for (auto [axis, value] : llvm::enumerate(global)) {
    DimIndex dim;
    dim.base = value;
    if (axis + 1 == global.size()) {
      // origin and local offsets of the last dim are multiples of lanes.
      dim.coef = 1;
      dim.divisor = lanes;
    }
    iteration.push_back(dim);
  }
  auto yield = cast<YieldOp>(task.getBodyBlock().getTerminator());
  for (auto [index, value] : llvm::enumerate(yield.getValues())) {
    const MemoryLeaf &out = buffers[abi.numInputs + index];
    ArrayRef<int64_t> shape = cast<StridedTensorType>(value.getType()).getShape();
    if (shape == ArrayRef<int64_t>(abi.iterShape)) {
      FailureOr<Lanes> values = eval(value, iteration);
      if (failed(values))
        return failure();
      store(out, iteration, *values);
      continue;
    }
    // A reduced row: the thread holding element 0 of the row stores it.
    Value first = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                        global.back(), idxConst(0));
    auto ifOp = scf::IfOp::create(b, first, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    unsigned savedLanes = lanes;
    lanes = 1;
    pushScope();
    Index reduced(iteration.begin(), iteration.end() - 1);
    for (DimIndex &dim : reduced)
      dim.coef = 0;
    if (shape.size() == abi.iterShape.size())
      reduced.push_back(constDim(0));
    FailureOr<Lanes> values = eval(value, reduced);
    if (succeeded(values))
      store(out, reduced, *values);
    popScope();
    lanes = savedLanes;
    if (failed(values))
      return failure();
  }
  return success();
}

LogicalResult TaskEmitter::emitElementLoop(bool vectors) {
  allowVector = vectors;
  // The scalar fallback of a vectorized loop runs one lane (see the top).
  lanes = vectors ? maxLanes : 1;
  int64_t tileElements = 1;
  for (int64_t size : abi.tile)
    tileElements *= size;
  Value lower = idxMul(threadId, lanes);
  Value step = idxMul(blockDim, lanes);
  auto loop = scf::ForOp::create(b, lower, idxConst(tileElements), step);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  pushScope();
  // Position inside the tile, then in the iteration space.
  Value linear = loop.getInductionVar();
  SmallVector<Value> global(abi.tile.size());
  Value inBounds;
  for (int64_t axis = abi.tile.size() - 1; axis >= 0; --axis) {
    Value size = idxConst(abi.tile[axis]);
    Value local = axis == 0 ? linear
                            : b.createOrFold<arith::RemUIOp>(linear, size);
    linear = b.createOrFold<arith::DivUIOp>(linear, size);
    global[axis] = idxAdd(tileOrigin[axis], local);
    // Only dims the tile does not divide have partial (edge) tiles.
    if (abi.iterShape[axis] % abi.tile[axis] != 0) {
      Value inside = arith::CmpIOp::create(b, arith::CmpIPredicate::ult,
                                           global[axis],
                                           idxConst(abi.iterShape[axis]));
      inBounds = inBounds ? Value(arith::AndIOp::create(b, inBounds, inside))
                          : inside;
    }
  }
  LogicalResult result = success();
  if (inBounds) {
    auto ifOp = scf::IfOp::create(b, inBounds, /*withElseRegion=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
    pushScope();
    result = emitElement(global);
    popScope();
  } else {
    result = emitElement(global);
  }
  popScope();
  return result;
}

LogicalResult TaskEmitter::emit() {
  bool rows = RowEmitter::applies(*this);
  if (!rows && failed(checkResultShapes(task, abi)))
    return failure();
  if (failed(chooseLanes()))
    return failure();
  Block *entry = func.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  memo.clear();
  pushScope();
  loadArguments(entry->getArgument(0));

  auto index = [&](Value i32) -> Value {
    return idxTy.isInteger(32) ? i32
                               : Value(arith::ExtUIOp::create(b, idxTy, i32));
  };
  threadId = index(NVVM::ThreadIdXOp::create(b, b.getI32Type()));
  blockDim = index(NVVM::BlockDimXOp::create(b, b.getI32Type()));
  tileArg = index(entry->getArgument(1));
  // Tiles are numbered row-major over ceil(shape / tile) (docs/abi.md).
  Value rest = tileArg;
  tileOrigin.assign(abi.tile.size(), Value());
  for (int64_t axis = abi.tile.size() - 1; axis >= 0; --axis) {
    Value count = idxConst(abi.tilesPerDim[axis]);
    Value coord = axis == 0 ? rest : b.createOrFold<arith::RemUIOp>(rest, count);
    rest = b.createOrFold<arith::DivUIOp>(rest, count);
    tileOrigin[axis] = idxMul(coord, abi.tile[axis]);
  }

  LogicalResult result = success();
  if (rows) {
    result = RowEmitter(*this).emit();
  } else if (maxLanes > 1) {
    // Emit the vector version first: it tells which buffers need alignment.
    Block *body = b.getInsertionBlock();
    size_t opsBefore = body->getOperations().size();
    result = emitElementLoop(/*vectors=*/true);
    if (succeeded(result) && llvm::is_contained(vectorized, true)) {
      // Move the loop into the then-branch of the alignment check.
      SmallVector<Operation *> loopOps;
      for (Operation &op : llvm::drop_begin(body->getOperations(), opsBefore))
        loopOps.push_back(&op);
      Value aligned = alignmentCheck();
      auto ifOp = scf::IfOp::create(b, aligned, /*withElseRegion=*/true);
      for (Operation *op : loopOps)
        op->moveBefore(ifOp.thenBlock()->getTerminator());
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
      result = emitElementLoop(/*vectors=*/false);
    }
  } else {
    result = emitElementLoop(/*vectors=*/false);
  }
  popScope();
  if (failed(result))
    return failure();
  LLVM::ReturnOp::create(b, ValueRange{});

  info.lanes = maxLanes;
  info.vectorBuffers.assign(vectorized.begin(), vectorized.end());
  return success();
}
