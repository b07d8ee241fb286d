//===- TaskEmitter.cpp - the skeleton of a task function ------------------===//
//
//   args (generic) -> addrspace(1); buffer i = inttoptr(load i64 args[i])
//   tile -> tile coordinates (row-major over ceil(shape / tile)) -> origin
//   for e = tid * L; e < tile elements; e += blockDim * L:   (L = lanes)
//     local = delinearize(e) over the tile; global = origin + local
//     if global is inside the shape: store every result at global
//
// Pure elementwise tasks whose tile divides the shape run U copies of the
// body per iteration (unroll-and-jam): copy k handles e + k * blockDim * L,
// all copies are evaluated (loads and compute) before any stores, and
// inputs are read with invariant loads (ld.global.nc; outputs never alias
// inputs, docs/abi.md), so each thread has U independent 16-byte loads in
// flight instead of one: memory-level parallelism for bandwidth-bound
// chains. The unrolled loop runs while all U copies are inside the tile; a
// one-copy loop finishes the rest (at other block sizes).
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
#include "MatvecEmitter.h"
#include "RowEmitter.h"
#include "TiledMatmulEmitter.h"
#include "ScalarMath.h"
#include "gpuos/Dialect/Gpuos/IR/Shapes.h"
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

bool TaskEmitter::evictsFirst() const {
  if (!options.backgroundEvictFirst)
    return false;
  TaskOp op = task; // the generated accessors are not const
  PriorityAttr priority = op.getPriorityAttr();
  if (!priority)
    if (auto graph = op->getParentOfType<GraphOp>())
      priority = graph.getPriorityAttr();
  return priority && priority.getLevel() == PriorityClass::background;
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

LogicalResult
TaskEmitter::emitVectorOrScalar(function_ref<LogicalResult(bool)> emit,
                                Value also) {
  // The vector version first: it tells which buffers need alignment.
  Block *body = b.getInsertionBlock();
  Block::iterator before = b.getInsertionPoint();
  Operation *previous = before == body->begin() ? nullptr : &*std::prev(before);
  // Each copy evaluates in a memo scope of its own: the first one's values
  // end up in the then-branch, where the second cannot use them.
  pushScope();
  LogicalResult vectorCopy = emit(/*vectors=*/true);
  popScope();
  if (failed(vectorCopy))
    return failure();
  bool vectors = llvm::is_contained(vectorized, true);
  if (!vectors && !also)
    return success();
  // Move what it made into the then-branch of the alignment check.
  SmallVector<Operation *> emitted;
  for (Operation &op : llvm::make_range(
           previous ? std::next(previous->getIterator()) : body->begin(),
           b.getInsertionPoint()))
    emitted.push_back(&op);
  Value condition = vectors ? alignmentCheck() : also;
  if (vectors && also)
    condition = arith::AndIOp::create(b, also, condition);
  auto ifOp = scf::IfOp::create(b, condition, /*withElseRegion=*/true);
  for (Operation *op : emitted)
    op->moveBefore(ifOp.thenBlock()->getTerminator());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.elseBlock()->getTerminator());
  pushScope();
  LogicalResult scalarCopy = emit(/*vectors=*/false);
  popScope();
  return scalarCopy;
}

FailureOr<SmallVector<Value>>
gpuos::codegen::emitGuarded(ImplicitLocOpBuilder &b, Value cond, ArrayRef<Value> zeros,
        function_ref<FailureOr<SmallVector<Value>>()> then) {
  if (!cond)
    return then();
  SmallVector<Type> types;
  for (Value zero : zeros)
    types.push_back(zero.getType());
  auto ifOp = scf::IfOp::create(b, types, cond, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  FailureOr<SmallVector<Value>> values = then();
  if (failed(values))
    return failure();
  scf::YieldOp::create(b, *values);
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b, zeros);
  return SmallVector<Value>(ifOp.getResults());
}

Value TaskEmitter::sharedMemoryBase() {
  static constexpr StringLiteral kSharedName = "__gpuos_shared";
  auto module = func->getParentOfType<gpu::GPUModuleOp>();
  if (!module.lookupSymbol(kSharedName)) {
    // extern __shared__, aliased by any other extern shared array.
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                           /*isConstant=*/false, LLVM::Linkage::External,
                           kSharedName, Attribute(), /*alignment=*/16,
                           /*addrSpace=*/3);
  }
  return LLVM::AddressOfOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext(), 3), kSharedName);
}

LogicalResult TaskEmitter::emitTileResults(int64_t tileElements) {
  // A tile with fewer lanes of work than the tuned block has threads (a
  // [4, 8] tile is 8 threads of 4 lanes) would run its whole epilogue in a
  // few threads of one warp while the others wait at the final barrier.
  // Then: one lane a thread, and the results spread over `parts` groups of
  // threads (group g stores results g, g + parts, ...), as many as the
  // tuned block holds for them.
  unsigned results = task.getNumResults();
  int64_t perThread = llvm::divideCeil(tileElements, lanes);
  if (results == 0 || perThread >= options.blockSize)
    return emitSimpleLoop(idxMul(threadId, lanes), tileElements);
  lanes = 1;
  unsigned parts = std::min<int64_t>(
      {results, kMaxResultParts,
       floorPow2(std::max<int64_t>(1, options.blockSize / tileElements))});
  if (parts == 1)
    return emitSimpleLoop(threadId, tileElements);
  // Group g: threads g * size .. (g + 1) * size - 1 (size = blockDim /
  // parts; a block of at least 32 threads gives every group one).
  Value size = b.createOrFold<arith::DivUIOp>(blockDim, idxConst(parts));
  Value group = b.createOrFold<arith::DivUIOp>(threadId, size);
  Value local = b.createOrFold<arith::RemUIOp>(threadId, size);
  auto cases = scf::IndexSwitchOp::create(
      b, TypeRange(), arith::IndexCastOp::create(b, b.getIndexType(), group),
      llvm::to_vector(llvm::seq<int64_t>(0, parts)), parts);
  LogicalResult result = success();
  for (unsigned part = 0; part < parts; ++part) {
    Block &block = cases.getCaseRegions()[part].emplaceBlock();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&block);
    if (succeeded(result))
      result = emitSimpleLoop(local, tileElements, size, part, parts);
    scf::YieldOp::create(b);
  }
  Block &fallback = cases.getDefaultRegion().emplaceBlock();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&fallback);
  scf::YieldOp::create(b);
  return result;
}

bool TaskEmitter::isF32MatmulTask() {
  ArrayRef<int64_t> iter = abi.iterShape;
  if (iter.size() < 2 || llvm::is_contained(iter, kDynamic))
    return false;
  auto shapeOf = [](Value value) {
    return cast<StridedTensorType>(value.getType()).getShape();
  };
  for (Value result : task.getResults())
    if (shapeOf(result) != iter)
      return false;
  auto f32Compute = [](Value value) {
    return computeType(cast<StridedTensorType>(value.getType()).getElementType()).isF32();
  };
  bool any = false;
  for (auto matmul : task.getBodyBlock().getOps<MatmulOp>()) {
    any = true;
    if (shapeOf(matmul.getResult()) != iter || !f32Compute(matmul.getLhs()) ||
        !f32Compute(matmul.getRhs()) || !f32Compute(matmul.getResult()))
      return false;
  }
  return any;
}

bool TaskEmitter::atCurrentIteration(const Index &index) const {
  if (currentIteration.size() != index.size())
    return false;
  for (auto [dim, iter] : llvm::zip(index, currentIteration))
    if (!dim.isAffine() || !iter.isAffine() || dim.base != iter.base ||
        dim.coef != iter.coef)
      return false;
  return true;
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

Index TaskEmitter::iterationIndex(ArrayRef<Value> global) {
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
  return iteration;
}

LogicalResult TaskEmitter::emitElement(ArrayRef<Value> global, unsigned part,
                                       unsigned parts) {
  Index iteration = iterationIndex(global);
  currentIteration = iteration;
  auto yield = cast<YieldOp>(task.getBodyBlock().getTerminator());
  for (auto [index, value] : llvm::enumerate(yield.getValues())) {
    if (index % parts != part)
      continue;
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

/// Copies per iteration at most. 8 made a one-input chain use 126 registers
/// and spill under the limit of 128 (ptxas schedules every load first and
/// keeps each copy's address live); 4 keeps 64 bytes per thread in flight.
static constexpr int64_t kMaxUnroll = 4;

unsigned TaskEmitter::chooseUnroll() {
  // Only bodies of elementwise ops, views and constants: a reduction or
  // matmul copied U times costs code size and registers for no gain.
  bool elementwise = true;
  task.getBodyBlock().walk([&](Operation *op) {
    if (isa<ReduceOp, ArgmaxOp, SoftmaxOp, LayerNormOp, RmsNormOp, MatmulOp>(op))
      elementwise = false;
  });
  if (!elementwise || abi.iterShape.empty())
    return 1;
  for (Value result : task.getResults())
    if (cast<StridedTensorType>(result.getType()).getShape() !=
        ArrayRef<int64_t>(abi.iterShape))
      return 1;
  // No edge tiles: every copy's index is then inside the shape.
  int64_t tileElements = 1;
  for (auto [size, tile] : llvm::zip(abi.iterShape, abi.tile)) {
    if (size % tile != 0)
      return 1;
    tileElements *= tile;
  }
  // Up to kMaxUnroll chunks in flight per stream, fewer when many inputs or
  // outputs each hold U * L live values (register limit 128 per thread),
  // and no more copies than the tile has elements for at the tuned block
  // size. Streams: outputs, and inputs as large as the iteration space
  // (a broadcast row or scalar is read from cache).
  int64_t space = 1;
  for (int64_t size : abi.iterShape)
    space *= size;
  unsigned inputStreams = 0;
  for (unsigned i = 0; i < abi.numInputs; ++i)
    if (abi.buffers[i].getNumElements().value_or(space) >= space)
      ++inputStreams;
  unsigned streams = std::max(inputStreams, abi.getNumOutputs());
  int64_t unroll = kMaxUnroll / std::max(1u, streams);
  int64_t perCopy = options.blockSize * maxLanes;
  unroll = std::min<int64_t>(unroll, llvm::divideCeil(tileElements, perCopy));
  return unroll < 2 ? 1 : unsigned(llvm::bit_floor(uint64_t(unroll)));
}

/// Tile-local linear position -> task-space position per axis.
static SmallVector<Value> tilePosition(ImplicitLocOpBuilder &b,
                                       ArrayRef<int64_t> tile,
                                       ArrayRef<Value> origin, Value linear,
                                       function_ref<Value(int64_t)> constant,
                                       function_ref<Value(Value, Value)> add) {
  SmallVector<Value> global(tile.size());
  for (int64_t axis = tile.size() - 1; axis >= 0; --axis) {
    Value size = constant(tile[axis]);
    Value local = axis == 0 ? linear
                            : b.createOrFold<arith::RemUIOp>(linear, size);
    linear = b.createOrFold<arith::DivUIOp>(linear, size);
    global[axis] = add(origin[axis], local);
  }
  return global;
}

LogicalResult TaskEmitter::emitUnrolledLoop(unsigned unroll) {
  // e advances by unroll * copyStep while all copies e + k * copyStep lie
  // inside the tile; the remainder (none when blockDim * L * unroll divides
  // the tile, as at the tuned block size) runs the ordinary body, one copy
  // per iteration. No conditions inside the unrolled body: every load can
  // be issued before the first compute.
  int64_t tileElements = 1;
  for (int64_t size : abi.tile)
    tileElements *= size;
  Value copyStep = idxMul(blockDim, lanes);
  Value lastCopy = b.createOrFold<arith::MulIOp>(copyStep, idxConst(unroll - 1));
  // Signed bounds: the upper one is negative when one round overshoots the
  // tile (tileElements < 2^30 and copyStep <= 8192: no overflow).
  Value upper = arith::SubIOp::create(b, idxConst(tileElements), lastCopy);
  Value lower = idxMul(threadId, lanes);
  Value step = b.createOrFold<arith::MulIOp>(copyStep, idxConst(unroll));
  auto main = scf::ForOp::create(b, lower, upper, step, ValueRange{lower});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(main.getBody());
    Value first = main.getInductionVar();
    auto yield = cast<YieldOp>(task.getBodyBlock().getTerminator());
    auto constant = [&](int64_t v) { return idxConst(v); };
    auto add = [&](Value x, Value y) { return idxAdd(x, y); };
    // Phase 1: every copy's loads and compute; phase 2: the stores.
    SmallVector<Index, 8> indices;
    SmallVector<SmallVector<Lanes>, 8> values;
    for (unsigned k = 0; k < unroll; ++k) {
      Value linear = k == 0 ? first
                            : idxAdd(first, b.createOrFold<arith::MulIOp>(
                                                copyStep, idxConst(k)));
      indices.push_back(iterationIndex(
          tilePosition(b, abi.tile, tileOrigin, linear, constant, add)));
      pushScope();
      SmallVector<Lanes> copy;
      for (Value value : yield.getValues()) {
        FailureOr<Lanes> lanesOf = eval(value, indices.back());
        if (failed(lanesOf)) {
          popScope();
          return failure();
        }
        copy.push_back(*lanesOf);
      }
      popScope();
      values.push_back(std::move(copy));
    }
    for (unsigned k = 0; k < unroll; ++k)
      for (auto [index, lanesOf] : llvm::enumerate(values[k]))
        store(buffers[abi.numInputs + index], indices[k], lanesOf);
    scf::YieldOp::create(b, ValueRange{idxAdd(first, step)});
  }
  return emitSimpleLoop(main.getResult(0), tileElements);
}

/// Input bytes of a tile from which the tile's streamed inputs are
/// prefetched in bulk (below that the threads' own loads are as early).
static constexpr int64_t kMinPrefetchBytes = 16384;

void TaskEmitter::emitTilePrefetch() {
  if (abi.iterShape.empty())
    return;
  int64_t tileElements = 1, space = 1;
  for (auto [size, tile] : llvm::zip(abi.iterShape, abi.tile)) {
    tileElements *= tile;
    space *= size;
  }
  // Tile t covers elements [t T, (t + 1) T) of a dense row-major buffer of
  // the iteration shape when every axis after the first one the tile cuts
  // is whole and, unless that axis is the outermost, the tile divides it
  // (tiles are numbered row-major over ceil(shape / tile), docs/abi.md: a
  // partial tile inside would shift every later tile's start).
  size_t first = 0;
  while (first + 1 < abi.tile.size() && abi.tile[first] == 1)
    ++first;
  for (size_t k = first + 1; k < abi.tile.size(); ++k)
    if (abi.tile[k] != abi.iterShape[k])
      return;
  if (first > 0 && abi.iterShape[first] % abi.tile[first] != 0)
    return;
  // Streams: inputs of the iteration shape, dense and row-major, that the
  // body reads only at the iteration index (elementwise ops, or yielded as
  // they are). A broadcast row, a strided buffer or one read through a
  // view (a transpose of a square input keeps its shape) is not one chunk
  // per tile.
  Block &body = task.getBodyBlock();
  SmallVector<int64_t> dense = rowMajorStrides(abi.iterShape);
  SmallVector<unsigned> streams;
  int64_t bytes = 0;
  for (unsigned i = 0; i < abi.numInputs; ++i) {
    if (abi.buffers[i].getShape() != ArrayRef<int64_t>(abi.iterShape))
      continue;
    if (!llvm::all_of(body.getArgument(i).getUsers(), [](Operation *user) {
          return isa<YieldOp>(user) ||
                 user->hasTrait<gpuos::OpTrait::Elementwise>();
        }))
      continue;
    // Dense row-major (an axis of size 1 may have any stride).
    bool rowMajor = true;
    for (auto [size, stride, want] : llvm::zip(abi.iterShape, buffers[i].strides, dense))
      rowMajor = rowMajor && (size == 1 || stride == want);
    if (!rowMajor)
      continue;
    streams.push_back(i);
    bytes += tileElements * storageBytes(abi.buffers[i].getElementType());
  }
  if (bytes < kMinPrefetchBytes)
    return;
  // Tile t < numTiles starts inside the buffer (t T < elements, by the
  // rule above), so begin < end and the size is positive.
  // Thread 0 asks for each stream's chunk with one cp.async.bulk.prefetch
  // (to L2, no registers, no completion to wait for): the tile's whole
  // input is requested at once, not 16 bytes per thread and copy as the
  // loop's loads ask. The chunk is widened to 16-byte boundaries (never
  // past a page the buffer's first or last byte is on) and clipped at the
  // buffer's end.
  Type i64 = b.getI64Type();
  auto i64Const = [&](int64_t v) { return intConstant(b, i64, v); };
  Value lead = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, threadId,
                                     idxConst(0));
  auto ifOp = scf::IfOp::create(b, lead, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  Value tile = idxTy.isInteger(64)
                   ? tileArg
                   : Value(arith::ExtUIOp::create(b, i64, tileArg));
  auto globalPtr = LLVM::LLVMPointerType::get(b.getContext(), 1);
  for (unsigned i : streams) {
    int64_t elem = storageBytes(abi.buffers[i].getElementType());
    Value base = LLVM::PtrToIntOp::create(b, i64, buffers[i].ptr);
    Value begin = arith::AddIOp::create(
        b, base, arith::MulIOp::create(b, tile, i64Const(tileElements * elem)));
    Value end = arith::MinUIOp::create(
        b, arith::AddIOp::create(b, begin, i64Const(tileElements * elem)),
        arith::AddIOp::create(b, base, i64Const(space * elem)));
    begin = arith::AndIOp::create(b, begin, i64Const(~int64_t(15)));
    end = arith::AndIOp::create(b, arith::AddIOp::create(b, end, i64Const(15)),
                                i64Const(~int64_t(15)));
    Value size = arith::TruncIOp::create(b, b.getI32Type(),
                                         arith::SubIOp::create(b, end, begin));
    NVVM::CpAsyncBulkPrefetchOp::create(
        b, LLVM::IntToPtrOp::create(b, globalPtr, begin), size, l2Policy);
  }
}

LogicalResult TaskEmitter::emitElementLoop(bool vectors) {
  allowVector = vectors;
  // The scalar fallback of a vectorized loop runs one lane (see the top).
  lanes = vectors ? maxLanes : 1;
  if (vectors)
    if (unsigned unroll = chooseUnroll(); unroll > 1) {
      info.unroll = unroll;
      return emitUnrolledLoop(unroll);
    }
  int64_t tileElements = 1;
  for (int64_t size : abi.tile)
    tileElements *= size;
  return emitSimpleLoop(idxMul(threadId, lanes), tileElements);
}

LogicalResult TaskEmitter::emitSimpleLoop(Value lower, int64_t tileElements,
                                          Value step, unsigned part,
                                          unsigned parts) {
  if (!step)
    step = idxMul(blockDim, lanes);
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
    result = emitElement(global, part, parts);
    popScope();
  } else {
    result = emitElement(global, part, parts);
  }
  popScope();
  return result;
}

LogicalResult TaskEmitter::emit() {
  // A row op that is a small-M matmul's lhs is that matmul's prologue:
  // the matvec strategy stages its rows, where the row strategy would
  // evaluate the matmul per element.
  bool rowPrologues = false;
  task.getBodyBlock().walk([&](MatmulOp matmul) { rowPrologues |= bool(rowPrologue(matmul)); });
  bool matvec = rowPrologues && MatvecEmitter::applies(*this);
  bool rows = !matvec && RowEmitter::applies(*this);
  if (!matvec && !rows && !rowPrologues) // not asked twice
    matvec = MatvecEmitter::applies(*this);
  bool tiled = !rows && !matvec && TiledMatmulEmitter::applies(*this);
  if (!rows && !matvec && !tiled && failed(checkResultShapes(task, abi)))
    return failure();
  if (failed(chooseLanes()))
    return failure();
  Block *entry = func.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  memo.clear();
  pushScope();
  loadArguments(entry->getArgument(0));
  if (evictsFirst())
    l2Policy = inlinePtx(b.getI64Type(), {},
                         "createpolicy.fractional.L2::evict_first.b64 $0, 1.0;",
                         "=l", /*hasSideEffects=*/false);

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
  } else if (matvec) {
    result = MatvecEmitter(*this).emit();
  } else if (tiled) {
    result = TiledMatmulEmitter(*this).emit();
  } else if (maxLanes > 1) {
    if (options.bulkPrefetch)
      emitTilePrefetch();
    result = emitVectorOrScalar(
        [&](bool vectors) { return emitElementLoop(vectors); });
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
