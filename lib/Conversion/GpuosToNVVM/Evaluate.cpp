//===- Evaluate.cpp - a task value at an index ----------------------------===//
//
// eval(v, index) emits the computation of value `v` at `index` for every
// lane and returns one compute value per lane. Views compose into the
// index: broadcast drops and zeroes dims, transpose permutes, slice scales
// and offsets, reshape relinearizes; only leaves (task inputs and constant
// tables) touch memory. Results are memoized per (value, index) within the
// current region, so a value used twice at one index is computed once.
//
//===----------------------------------------------------------------------===//

#include "ScalarMath.h"
#include "TaskEmitter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/TypeSwitch.h"
#include <numeric>

using namespace mlir;
using namespace gpuos;
using namespace gpuos::codegen;

/// Divisibility we claim for 0: a large power of two (0 is a multiple of
/// everything, and alignment proofs only ask about powers of two).
static constexpr int64_t kZeroDivisor = int64_t(1) << 40;

static int64_t divisorOf(int64_t value) {
  return value == 0 ? kZeroDivisor : std::abs(value);
}

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

Value TaskEmitter::idxConst(int64_t value) {
  return arith::ConstantOp::create(b, b.getIntegerAttr(idxTy, value));
}

Value TaskEmitter::idxAdd(Value lhs, Value rhs) {
  return b.createOrFold<arith::AddIOp>(lhs, rhs);
}

Value TaskEmitter::idxMul(Value lhs, int64_t factor) {
  if (factor == 1)
    return lhs;
  return b.createOrFold<arith::MulIOp>(lhs, idxConst(factor));
}

Value TaskEmitter::laneValue(const DimIndex &dim, unsigned lane) {
  if (!dim.isAffine())
    return dim.perLane[lane];
  if (dim.coef == 0 || lane == 0)
    return dim.base;
  return idxAdd(dim.base, idxConst(dim.coef * lane));
}

DimIndex TaskEmitter::constDim(int64_t value) {
  DimIndex dim;
  dim.base = idxConst(value);
  dim.divisor = divisorOf(value);
  return dim;
}

bool TaskEmitter::isLaneUniform(const Index &index) const {
  return llvm::all_of(index, [](const DimIndex &dim) {
    return dim.isAffine() && dim.coef == 0;
  });
}

TaskEmitter::MemoKey TaskEmitter::memoKey(Value value,
                                          const Index &index) const {
  // Each dim is tagged: an affine one by its base (a constant base by its
  // value: constDim and broadcastIndex make a new constant each time, and
  // the same element must hit the same entry) and lane coefficient, an
  // explicit one by its lanes.
  enum : uintptr_t { kExplicit, kAffineValue, kAffineConstant };
  MemoKey key{reinterpret_cast<uintptr_t>(value.getAsOpaquePointer()), lanes};
  for (const DimIndex &dim : index) {
    if (dim.isAffine()) {
      if (std::optional<int64_t> c = getConstantIntValue(dim.base)) {
        key.push_back(kAffineConstant);
        key.push_back(static_cast<uintptr_t>(*c));
      } else {
        key.push_back(kAffineValue);
        key.push_back(reinterpret_cast<uintptr_t>(dim.base.getAsOpaquePointer()));
      }
      key.push_back(static_cast<uintptr_t>(dim.coef));
      continue;
    }
    key.push_back(kExplicit);
    for (Value lane : dim.perLane)
      key.push_back(reinterpret_cast<uintptr_t>(lane.getAsOpaquePointer()));
  }
  return key;
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

FailureOr<Lanes> TaskEmitter::eval(Value value, const Index &index) {
  MemoKey key = memoKey(value, index);
  for (auto &scope : llvm::reverse(memo))
    if (auto it = scope.find(key); it != scope.end())
      return it->second;

  // Each producer or view on a chain is one more nested eval (1 to 2.5 KiB
  // of stack): a long hand-written chain would overflow the stack. Fused
  // tasks stay far below (kMaxTaskComputeOps in the fusion passes).
  if (evalDepth >= kMaxEvalDepth) {
    Operation *op = value.getDefiningOp();
    InFlightDiagnostic diag =
        task.emitOpError()
        << "body is too deep to lower: a value depends on a chain of more "
           "than "
        << kMaxEvalDepth
        << " ops and views; split the task or shorten the chain";
    diag.attachNote(op ? op->getLoc() : value.getLoc())
        << "the chain is this deep here";
    return failure();
  }

  ++evalDepth;
  FailureOr<Lanes> result = failure();
  Lanes staged = stagedValue ? stagedValue(value, index) : Lanes();
  if (!staged.empty()) {
    result = std::move(staged);
  } else if (auto arg = dyn_cast<BlockArgument>(value)) {
    result = load(buffers[arg.getArgNumber()], index);
  } else {
    result = evalOp(value.getDefiningOp(), index);
  }
  --evalDepth;
  if (succeeded(result))
    memo.back()[key] = *result;
  return result;
}

FailureOr<Lanes> TaskEmitter::evalOp(Operation *op, const Index &index) {
  if (auto constant = dyn_cast<ConstantOp>(op))
    return evalConstant(constant, index);
  if (op->hasTrait<OpTrait::Elementwise>())
    return evalElementwise(op, index);
  if (op->hasTrait<OpTrait::View>())
    return evalView(op, index);
  return llvm::TypeSwitch<Operation *, FailureOr<Lanes>>(op)
      .Case([&](ConcatOp op) { return evalConcat(op, index); })
      .Case([&](ReduceOp op) { return evalReduce(op, index); })
      .Case([&](ArgmaxOp op) { return evalArgmax(op, index); })
      .Case([&](SoftmaxOp op) { return evalSoftmax(op, index); })
      .Case([&](LayerNormOp op) { return evalLayerNorm(op, index); })
      .Case([&](RmsNormOp op) { return evalRmsNorm(op, index); })
      .Case([&](MatmulOp op) { return evalMatmul(op, index); })
      .Default([&](Operation *op) -> FailureOr<Lanes> {
        return op->emitOpError("is not lowered to NVVM yet");
      });
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<StridedTensorType>(value.getType()).getShape();
}

static Type elementTypeOf(Value value) {
  return cast<StridedTensorType>(value.getType()).getElementType();
}

Index TaskEmitter::broadcastIndex(const Index &index,
                                  ArrayRef<int64_t> resultShape,
                                  ArrayRef<int64_t> operandShape) {
  size_t lead = resultShape.size() - operandShape.size();
  Index result;
  for (auto [axis, size] : llvm::enumerate(operandShape)) {
    if (size == 1 && resultShape[lead + axis] != 1)
      result.push_back(constDim(0)); // a stretched dim reads element 0
    else
      result.push_back(index[lead + axis]);
  }
  return result;
}

FailureOr<Lanes> TaskEmitter::evalElementwise(Operation *op,
                                              const Index &index) {
  ArrayRef<int64_t> resultShape = shapeOf(op->getResult(0));
  SmallVector<Lanes> operands;
  for (Value operand : op->getOperands()) {
    FailureOr<Lanes> values =
        eval(operand, broadcastIndex(index, resultShape, shapeOf(operand)));
    if (failed(values))
      return failure();
    operands.push_back(std::move(*values));
  }
  // select's element type is its branches'; every other op's is its first
  // operand's (cast converts from it).
  Type elementType = elementTypeOf(op->getOperand(isa<SelectOp>(op) ? 1 : 0));
  Lanes result;
  for (unsigned lane = 0; lane < lanes; ++lane) {
    // Lanes with the same operands (broadcast values) share one result.
    if (lane > 0 && llvm::all_of(operands, [&](const Lanes &values) {
          return values[lane] == values[lane - 1];
        })) {
      result.push_back(result.back());
      continue;
    }
    SmallVector<Value> args;
    for (const Lanes &values : operands)
      args.push_back(values[lane]);
    Value value = emitElementwise(b, op, args, elementType);
    if (!value)
      return op->emitOpError("has no NVVM lowering for its element types");
    result.push_back(value);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

/// Linear (row-major) position of `index` in `shape` for one lane.
static Value linearize(TaskEmitter &, llvm::function_ref<Value(unsigned)> dim,
                       ArrayRef<int64_t> shape,
                       llvm::function_ref<Value(Value, int64_t)> mul,
                       llvm::function_ref<Value(Value, Value)> add,
                       Value zero) {
  Value linear = zero;
  int64_t stride = 1;
  for (int64_t axis = shape.size() - 1; axis >= 0; --axis) {
    linear = add(linear, mul(dim(axis), stride));
    stride *= shape[axis];
  }
  return linear;
}

Index TaskEmitter::sliceOperandIndex(SliceOp slice, const Index &index) {
  Index operand;
  for (auto [dim, start, step] :
       llvm::zip(index, slice.getStarts(), slice.getSteps())) {
    DimIndex mapped;
    if (dim.isAffine()) {
      mapped.base = idxAdd(idxConst(start), idxMul(dim.base, step));
      mapped.coef = dim.coef * step;
      mapped.divisor = std::gcd(divisorOf(start), dim.divisor * step);
    } else {
      for (Value lane : dim.perLane)
        mapped.perLane.push_back(idxAdd(idxConst(start), idxMul(lane, step)));
    }
    operand.push_back(mapped);
  }
  return operand;
}

FailureOr<Lanes> TaskEmitter::evalView(Operation *op, const Index &index) {
  Value input = op->getOperand(0);
  ArrayRef<int64_t> inShape = shapeOf(input);
  if (auto broadcast = dyn_cast<BroadcastOp>(op))
    return eval(input, broadcastIndex(index, broadcast.getShape(), inShape));

  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    Index operand(inShape.size());
    for (auto [axis, from] : llvm::enumerate(transpose.getPermutation()))
      operand[from] = index[axis];
    return eval(input, operand);
  }

  if (auto slice = dyn_cast<SliceOp>(op))
    return eval(input, sliceOperandIndex(slice, index));

  auto reshape = cast<ReshapeOp>(op);
  ArrayRef<int64_t> outShape = reshape.getShape();
  if (outShape == inShape)
    return eval(input, index);
  auto mul = [&](Value v, int64_t c) { return idxMul(v, c); };
  auto add = [&](Value x, Value y) { return idxAdd(x, y); };
  Value zero = idxConst(0);
  // Delinearizes `linear` over the operand shape (unsigned: indices are
  // non-negative).
  auto delinearize = [&](Value linear) {
    SmallVector<Value> dims(inShape.size());
    for (int64_t axis = inShape.size() - 1; axis >= 0; --axis) {
      Value size = idxConst(inShape[axis]);
      dims[axis] = axis == 0 ? linear
                             : b.createOrFold<arith::RemUIOp>(linear, size);
      linear = b.createOrFold<arith::DivUIOp>(linear, size);
    }
    return dims;
  };
  if (inShape.empty()) // a reshape of one element reads it
    return eval(input, Index{});

  // Lane 0's linear position, its divisibility, and the lane coefficient.
  bool affine = llvm::all_of(index, [](const DimIndex &d) { return d.isAffine(); });
  if (affine) {
    int64_t coef = 0, divisor = kZeroDivisor, stride = 1;
    for (int64_t axis = outShape.size() - 1; axis >= 0; --axis) {
      coef += index[axis].coef * stride;
      divisor = std::gcd(divisor, index[axis].divisor * stride);
      stride *= outShape[axis];
    }
    Value linear = linearize(
        *this, [&](unsigned axis) { return index[axis].base; }, outShape, mul,
        add, zero);
    int64_t inner = inShape.back();
    // The lanes stay in one operand row when a result row lies inside one
    // (its size divides the operand's), or when the chunk is aligned to a
    // multiple that divides the operand row.
    int64_t span = coef * lanes;
    bool sameRow = coef == 0 ||
                   (!outShape.empty() && coef == index.back().coef &&
                    inner % outShape.back() == 0) ||
                   (span > 0 && divisor % span == 0 && inner % span == 0);
    if (sameRow) {
      SmallVector<Value> dims = delinearize(linear);
      Index operand;
      for (auto [axis, value] : llvm::enumerate(dims)) {
        DimIndex dim;
        dim.base = value;
        if (axis + 1 == inShape.size()) {
          dim.coef = coef;
          dim.divisor = std::gcd(divisor, inner);
        }
        operand.push_back(dim);
      }
      return eval(input, operand);
    }
  }
  // General case: every lane relinearizes on its own.
  Index operand(inShape.size());
  for (unsigned lane = 0; lane < lanes; ++lane) {
    Value linear = linearize(
        *this, [&](unsigned axis) { return laneValue(index[axis], lane); },
        outShape, mul, add, zero);
    for (auto [axis, value] : llvm::enumerate(delinearize(linear)))
      operand[axis].perLane.push_back(value);
  }
  return eval(input, operand);
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

FailureOr<Lanes> TaskEmitter::evalConstant(ConstantOp op, const Index &index) {
  auto type = cast<StridedTensorType>(op.getType());
  Type elementType = type.getElementType();
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense)
    return op.emitOpError("with a non-dense (resource) value is not lowered "
                          "to NVVM yet; use a dense<...> literal");
  if (dense.isSplat())
    return Lanes(lanes, scalarConstant(b, dense.getSplatValue<Attribute>(),
                                       elementType));

  // A table in global memory, read like an input buffer.
  auto module = func->getParentOfType<gpu::GPUModuleOp>();
  Type storage = storageType(elementType);
  int64_t count = dense.getNumElements();
  auto flatType = RankedTensorType::get({count}, storage);
  DenseElementsAttr flat;
  if (elementType.isInteger(1)) {
    SmallVector<int8_t> bytes;
    for (bool bit : dense.getValues<bool>())
      bytes.push_back(bit ? 1 : 0);
    flat = DenseElementsAttr::get(flatType, ArrayRef<int8_t>(bytes));
  } else {
    flat = dense.reshape(flatType);
  }
  std::string name = ("__gpuos_const_" + abi.kind + "_" +
                      Twine(constantCounter++)).str();
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto global = LLVM::GlobalOp::create(
        b, LLVM::LLVMArrayType::get(storage, count), /*isConstant=*/true,
        LLVM::Linkage::Internal, name, flat, /*alignment=*/16,
        /*addrSpace=*/1);
    (void)global;
  }
  MemoryLeaf leaf;
  leaf.ptr = LLVM::AddressOfOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext(), 1), name);
  leaf.elementType = elementType;
  leaf.strides = rowMajorStrides(type.getShape());
  return load(leaf, index);
}

//===----------------------------------------------------------------------===//
// Concat
//===----------------------------------------------------------------------===//

FailureOr<Lanes> TaskEmitter::evalConcat(ConcatOp op, const Index &index) {
  int64_t axis = op.getAxis();
  SmallVector<int64_t> offsets{0};
  for (Value input : op.getInputs())
    offsets.push_back(offsets.back() + shapeOf(input)[axis]);
  const DimIndex &along = index[axis];
  // Position of lane `lane` inside operand `i`, clamped so every operand can
  // be read; the select below keeps the one that holds the element.
  auto clamp = [&](Value position, unsigned i) {
    Value local = b.createOrFold<arith::SubIOp>(position, idxConst(offsets[i]));
    local = b.createOrFold<arith::MaxSIOp>(local, idxConst(0));
    return b.createOrFold<arith::MinSIOp>(
        local, idxConst(offsets[i + 1] - offsets[i] - 1));
  };
  bool uniform = along.isAffine() && along.coef == 0;
  // Operands with elements: an empty one holds no element to select, and
  // its clamp would read element -1 of a buffer that has none.
  SmallVector<unsigned> filled;
  for (unsigned i = 0, e = op.getInputs().size(); i < e; ++i)
    if (offsets[i + 1] > offsets[i])
      filled.push_back(i);
  if (filled.empty()) { // the concat has no element: this never runs
    Type elementType = elementTypeOf(op.getResult());
    return Lanes(lanes, scalarConstant(b, b.getZeroAttr(elementType),
                                       elementType));
  }
  SmallVector<Lanes> values;
  for (unsigned i : filled) {
    Value input = op.getInputs()[i];
    Index operand = index;
    DimIndex mapped;
    if (uniform) {
      mapped.base = clamp(along.base, i);
    } else {
      for (unsigned lane = 0; lane < lanes; ++lane)
        mapped.perLane.push_back(clamp(laneValue(along, lane), i));
    }
    operand[axis] = mapped;
    FailureOr<Lanes> lanesOf = eval(input, operand);
    if (failed(lanesOf))
      return failure();
    values.push_back(std::move(*lanesOf));
  }
  Lanes result;
  for (unsigned lane = 0; lane < lanes; ++lane) {
    Value position = laneValue(along, lane);
    Value chosen = values.back()[lane];
    for (int64_t k = values.size() - 2; k >= 0; --k) {
      Value inside = b.createOrFold<arith::CmpIOp>(
          arith::CmpIPredicate::slt, position,
          idxConst(offsets[filled[k] + 1]));
      chosen = b.createOrFold<arith::SelectOp>(inside, values[k][lane], chosen);
    }
    result.push_back(chosen);
  }
  return result;
}
