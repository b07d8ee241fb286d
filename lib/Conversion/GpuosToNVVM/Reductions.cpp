//===- Reductions.cpp - reduce, argmax, softmax, norms, matmul ------------===//
//
// Each of these evaluates one result element from many operand elements.
// Inside a row task (RowEmitter) the statistics of the current row were
// computed cooperatively by the whole block and are looked up with
// rowStat(); otherwise the thread computes them itself with a sequential
// loop (serialReduce): correct for any axes and tiles, and fused with the
// producers, but it repeats the row's work for every element it serves.
//
// Accumulation runs in the compute type: f32 for f16/bf16/f32, f64 for
// f64, the integer's width for integers (sums wrap like the interpreter's).
//
//===----------------------------------------------------------------------===//

#include "ScalarMath.h"
#include "TaskEmitter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace gpuos;
using namespace gpuos::codegen;

static StridedTensorType typeOf(Value value) {
  return cast<StridedTensorType>(value.getType());
}

FailureOr<SmallVector<Value>>
TaskEmitter::serialReduce(const Index &index, ArrayRef<int64_t> axes,
                          ArrayRef<int64_t> sizes, ArrayRef<Value> init,
                          Step step, bool uniform) {
  unsigned savedLanes = lanes;
  if (uniform)
    lanes = 1;
  SmallVector<Value> accs;
  for (Value value : init)
    accs.append(lanes, value);

  // Nested loops, outermost axis first, each carrying the accumulators.
  // The innermost runs `unroll` steps per iteration: their loads do not
  // depend on the accumulators, so they are all in flight before the first
  // fold instead of one memory latency per step (a 64-step dot product of
  // an attention score waited 64 L2 round trips).
  Index full = index;
  std::function<FailureOr<SmallVector<Value>>(size_t, ValueRange)> nest =
      [&](size_t depth, ValueRange current) -> FailureOr<SmallVector<Value>> {
    if (depth == axes.size())
      return step(full, SmallVector<Value>(current));
    // At most 8 values per operand in flight (u * lanes): more spill.
    int64_t unroll = 1;
    if (depth + 1 == axes.size())
      for (int64_t u : {8, 4, 2})
        if (sizes[depth] % u == 0 && u * lanes <= 8) {
          unroll = u;
          break;
        }
    auto loop = scf::ForOp::create(b, idxConst(0), idxConst(sizes[depth]),
                                   idxConst(unroll), current);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    pushScope();
    FailureOr<SmallVector<Value>> next =
        SmallVector<Value>(loop.getRegionIterArgs());
    for (int64_t u = 0; u < unroll && succeeded(next); ++u) {
      DimIndex dim;
      dim.base = u ? idxAdd(loop.getInductionVar(), idxConst(u))
                   : loop.getInductionVar();
      full[axes[depth]] = dim;
      next = nest(depth + 1, *next);
    }
    popScope();
    if (failed(next))
      return failure();
    scf::YieldOp::create(b, *next);
    return SmallVector<Value>(loop.getResults());
  };
  FailureOr<SmallVector<Value>> result = nest(0, accs);
  lanes = savedLanes;
  if (failed(result) || !uniform)
    return result;
  // Replicate the single lane: [acc * lanes + lane].
  SmallVector<Value> replicated;
  for (Value value : *result)
    replicated.append(lanes, value);
  return replicated;
}

Value TaskEmitter::rowStat(Operation *op, unsigned stage, const Index &index) {
  auto it = stats.find({op, stage});
  if (it == stats.end() || index.size() < statRow.size())
    return Value();
  // The statistic belongs to the row being processed: the index must name it.
  for (auto [dim, row] : llvm::zip(index, statRow))
    if (!dim.isAffine() || dim.coef != 0 || dim.base != row)
      return Value();
  return it->second;
}

LogicalResult TaskEmitter::rowStatistics(Operation *op, int64_t rowLength,
                                         RowFold rowFold) {
  Value input = op->getOperand(0);
  Type element = typeOf(input).getElementType();
  Type type = computeType(element);
  Value n = isa<FloatType>(type) ? floatConstant(b, type, double(rowLength)) : Value();
  auto x = [&](const Index &index) { return eval(input, index); };
  auto add = [&](Value acc, Value v) -> Value {
    return isa<FloatType>(type) ? Value(arith::AddFOp::create(b, acc, v))
                                : Value(arith::AddIOp::create(b, acc, v));
  };
  auto map = [&](const Index &index, llvm::function_ref<Value(Value)> f) -> FailureOr<Lanes> {
    FailureOr<Lanes> values = x(index);
    if (failed(values))
      return failure();
    for (Value &value : *values)
      value = f(value);
    return values;
  };
  auto setStat = [&](unsigned stage, FailureOr<Value> value) {
    if (succeeded(value))
      stats[{op, stage}] = *value;
    return success(succeeded(value));
  };
  Value zero = isa<FloatType>(type) ? floatConstant(b, type, 0.0) : Value();

  if (isa<SoftmaxOp>(op)) {
    FailureOr<Value> max = rowFold(
        reductionIdentity(b, ReductionKind::max, element), x,
        [&](Value acc, Value v) -> Value { return arith::MaximumFOp::create(b, acc, v); });
    if (failed(setStat(0, max)))
      return failure();
    return setStat(1, rowFold(
                          zero,
                          [&](const Index &index) {
                            return map(index, [&](Value v) {
                              return emitExp(b, arith::SubFOp::create(b, v, *max));
                            });
                          },
                          add));
  }
  // The norms' scale: rsqrt(mean((x - center)^2) + eps), center null for
  // rms_norm.
  auto inverseRms = [&](Value center, APFloat epsilon) -> FailureOr<Value> {
    FailureOr<Value> squares = rowFold(
        zero,
        [&](const Index &index) {
          return map(index, [&](Value v) -> Value {
            Value d = center ? Value(arith::SubFOp::create(b, v, center)) : v;
            return arith::MulFOp::create(b, d, d);
          });
        },
        add);
    if (failed(squares))
      return failure();
    Value eps = floatConstant(b, type, epsilon.convertToDouble());
    return emitNormScale(b,
                         arith::AddFOp::create(b, arith::DivFOp::create(b, *squares, n), eps));
  };
  if (auto norm = dyn_cast<LayerNormOp>(op)) {
    FailureOr<Value> sum = rowFold(zero, x, add);
    if (failed(sum))
      return failure();
    Value mean = arith::DivFOp::create(b, *sum, n);
    stats[{op, 0}] = mean;
    return setStat(1, inverseRms(mean, norm.getEpsilon()));
  }
  if (auto norm = dyn_cast<RmsNormOp>(op))
    return setStat(0, inverseRms(Value(), norm.getEpsilon()));
  auto reduce = cast<ReduceOp>(op);
  ReductionKind kind = reduce.getKind();
  FailureOr<Value> result = rowFold(
      reductionIdentity(b, kind, element), x,
      [&](Value acc, Value v) { return reductionCombine(b, kind, acc, v, element); });
  if (succeeded(result) && kind == ReductionKind::mean)
    result = Value(arith::DivFOp::create(b, *result, n));
  return setStat(0, result);
}

/// Lane `lane` of accumulator `acc` in the flat layout of serialReduce.
static Value accAt(ArrayRef<Value> accs, unsigned acc, unsigned lanes,
                   unsigned lane) {
  return accs[acc * lanes + lane];
}

//===----------------------------------------------------------------------===//
// reduce
//===----------------------------------------------------------------------===//

FailureOr<Lanes> TaskEmitter::evalReduce(ReduceOp op, const Index &index) {
  StridedTensorType input = typeOf(op.getInput());
  Type element = input.getElementType();
  SmallVector<int64_t> axes(op.getAxes());
  llvm::sort(axes);
  if (Value stat = rowStat(op, 0, index))
    return Lanes(lanes, stat);

  // Operand index: reduced axes are placeholders, the others come from the
  // result index (at the same position with keepdim, compacted without).
  Index operand;
  SmallVector<int64_t> sizes;
  int64_t count = 1;
  unsigned next = 0;
  for (int64_t axis = 0; axis < input.getRank(); ++axis) {
    if (llvm::is_contained(axes, axis)) {
      operand.push_back(DimIndex());
      sizes.push_back(input.getDimSize(axis));
      count *= input.getDimSize(axis);
      if (op.getKeepdim())
        ++next;
      continue;
    }
    operand.push_back(index[next++]);
  }
  ReductionKind kind = op.getKind();
  FailureOr<SmallVector<Value>> accs = serialReduce(
      operand, axes, sizes, {reductionIdentity(b, kind, element)},
      [&](const Index &full, ArrayRef<Value> current)
          -> FailureOr<SmallVector<Value>> {
        FailureOr<Lanes> values = eval(op.getInput(), full);
        if (failed(values))
          return failure();
        SmallVector<Value> out;
        for (unsigned lane = 0; lane < lanes; ++lane)
          out.push_back(reductionCombine(b, kind, current[lane],
                                         (*values)[lane], element));
        return out;
      },
      isLaneUniform(operand));
  if (failed(accs))
    return failure();
  Lanes result(accs->begin(), accs->end());
  if (kind == ReductionKind::mean) {
    Value n = floatConstant(b, computeType(element), double(count));
    for (Value &value : result)
      value = arith::DivFOp::create(b, value, n);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// argmax
//===----------------------------------------------------------------------===//

FailureOr<Lanes> TaskEmitter::evalArgmax(ArgmaxOp op, const Index &index) {
  if (Value stat = rowStat(op, 0, index))
    return Lanes(lanes, stat);
  StridedTensorType input = typeOf(op.getInput());
  Type element = input.getElementType();
  int64_t axis = op.getAxis();
  Index operand;
  unsigned next = 0;
  for (int64_t d = 0; d < input.getRank(); ++d) {
    if (d == axis) {
      operand.push_back(DimIndex());
      if (op.getKeepdim())
        ++next;
      continue;
    }
    operand.push_back(index[next++]);
  }
  Type i64 = b.getI64Type();
  FailureOr<SmallVector<Value>> accs = serialReduce(
      operand, {axis}, {input.getDimSize(axis)},
      {reductionIdentity(b, ReductionKind::max, element), intConstant(b, i64, 0)},
      [&](const Index &full, ArrayRef<Value> current)
          -> FailureOr<SmallVector<Value>> {
        FailureOr<Lanes> values = eval(op.getInput(), full);
        if (failed(values))
          return failure();
        Value position = full[axis].base;
        if (!position.getType().isInteger(64))
          position = arith::ExtUIOp::create(b, i64, position);
        SmallVector<Value> bestValues, bestIndices;
        for (unsigned lane = 0; lane < lanes; ++lane) {
          Value best = accAt(current, 0, lanes, lane);
          Value bestIndex = accAt(current, 1, lanes, lane);
          // Compared as the graph's f16/bf16 values: rounded (ties among
          // values that round alike go to the first).
          Value value = roundToElement(b, (*values)[lane], element);
          Value takes = emitArgmaxTakes(b, value, position, best, bestIndex);
          bestValues.push_back(arith::SelectOp::create(b, takes, value, best));
          bestIndices.push_back(
              arith::SelectOp::create(b, takes, position, bestIndex));
        }
        bestValues.append(bestIndices);
        return bestValues;
      },
      isLaneUniform(operand));
  if (failed(accs))
    return failure();
  return Lanes(accs->begin() + lanes, accs->end());
}

//===----------------------------------------------------------------------===//
// softmax and the norms
//===----------------------------------------------------------------------===//

/// Folds the row of op input `input` along `axis` (serialReduce): each
/// lane's accumulator starts at `init` and becomes step(acc, x, lane).
FailureOr<SmallVector<Value>>
TaskEmitter::foldRow(const Index &operand, int64_t axis, int64_t size,
                     Value input, Value init,
                     llvm::function_ref<Value(Value, Value, unsigned)> step) {
  return serialReduce(
      operand, {axis}, {size}, {init},
      [&](const Index &full,
          ArrayRef<Value> current) -> FailureOr<SmallVector<Value>> {
        FailureOr<Lanes> x = eval(input, full);
        if (failed(x))
          return failure();
        SmallVector<Value> out;
        for (unsigned lane = 0; lane < current.size(); ++lane)
          out.push_back(step(current[lane], (*x)[lane], lane));
        return out;
      },
      isLaneUniform(operand));
}

/// `index` with dim `axis` turned into a placeholder for serialReduce.
static Index withPlaceholder(const Index &index, int64_t axis) {
  Index result = index;
  result[axis] = DimIndex();
  return result;
}

FailureOr<Lanes> TaskEmitter::evalSoftmax(SoftmaxOp op, const Index &index) {
  StridedTensorType input = typeOf(op.getInput());
  Type element = input.getElementType();
  Type type = computeType(element);
  int64_t axis = op.getAxis();
  int64_t size = input.getDimSize(axis);
  Index operand = withPlaceholder(index, axis);

  Lanes maxima(lanes), sums(lanes);
  Value maxStat = rowStat(op, 0, index), sumStat = rowStat(op, 1, index);
  if (maxStat && sumStat) {
    maxima.assign(lanes, maxStat);
    sums.assign(lanes, sumStat);
  } else {
    FailureOr<SmallVector<Value>> max =
        foldRow(operand, axis, size, op.getInput(),
                reductionIdentity(b, ReductionKind::max, element),
                [&](Value acc, Value x, unsigned) -> Value {
                  return arith::MaximumFOp::create(b, acc, x);
                });
    if (failed(max))
      return failure();
    maxima.assign(max->begin(), max->end());
    FailureOr<SmallVector<Value>> sum =
        foldRow(operand, axis, size, op.getInput(), floatConstant(b, type, 0.0),
                [&](Value acc, Value x, unsigned lane) -> Value {
                  Value e =
                      emitExp(b, arith::SubFOp::create(b, x, maxima[lane]));
                  return arith::AddFOp::create(b, acc, e);
                });
    if (failed(sum))
      return failure();
    sums.assign(sum->begin(), sum->end());
  }
  FailureOr<Lanes> x = eval(op.getInput(), index);
  if (failed(x))
    return failure();
  Lanes result;
  for (unsigned lane = 0; lane < lanes; ++lane) {
    Value e = emitExp(b, arith::SubFOp::create(b, (*x)[lane], maxima[lane]));
    result.push_back(arith::DivFOp::create(b, e, sums[lane]));
  }
  return result;
}

FailureOr<Lanes> TaskEmitter::evalLayerNorm(LayerNormOp op,
                                            const Index &index) {
  StridedTensorType input = typeOf(op.getInput());
  Type type = computeType(input.getElementType());
  int64_t axis = input.getRank() - 1, size = input.getDimSize(axis);
  Value n = floatConstant(b, type, double(size));
  Index operand = withPlaceholder(index, axis);

  Lanes means(lanes), inverse(lanes);
  Value meanStat = rowStat(op, 0, index), invStat = rowStat(op, 1, index);
  if (meanStat && invStat) {
    means.assign(lanes, meanStat);
    inverse.assign(lanes, invStat);
  } else {
    FailureOr<SmallVector<Value>> sum =
        foldRow(operand, axis, size, op.getInput(), floatConstant(b, type, 0.0),
                [&](Value acc, Value x, unsigned) -> Value {
                  return arith::AddFOp::create(b, acc, x);
                });
    if (failed(sum))
      return failure();
    for (unsigned lane = 0; lane < lanes; ++lane)
      means[lane] = arith::DivFOp::create(b, (*sum)[lane], n);
    // Two-pass variance: the mean first, then the squared deviations.
    FailureOr<SmallVector<Value>> squares = foldRow(
        operand, axis, size, op.getInput(), floatConstant(b, type, 0.0),
        [&](Value acc, Value x, unsigned lane) -> Value {
          Value d = arith::SubFOp::create(b, x, means[lane]);
          return arith::AddFOp::create(b, acc, arith::MulFOp::create(b, d, d));
        });
    if (failed(squares))
      return failure();
    Value eps = floatConstant(b, type, op.getEpsilon().convertToDouble());
    for (unsigned lane = 0; lane < lanes; ++lane) {
      Value variance = arith::DivFOp::create(b, (*squares)[lane], n);
      inverse[lane] = emitNormScale(b, arith::AddFOp::create(b, variance, eps));
    }
  }
  FailureOr<Lanes> x = eval(op.getInput(), index);
  if (failed(x))
    return failure();
  Index lastDim{index.back()};
  Lanes weight, bias;
  if (op.getWeight()) {
    FailureOr<Lanes> w = eval(op.getWeight(), lastDim);
    if (failed(w))
      return failure();
    weight = *w;
  }
  if (op.getBias()) {
    FailureOr<Lanes> bb = eval(op.getBias(), lastDim);
    if (failed(bb))
      return failure();
    bias = *bb;
  }
  Lanes result;
  for (unsigned lane = 0; lane < lanes; ++lane) {
    Value y = arith::MulFOp::create(
        b, arith::SubFOp::create(b, (*x)[lane], means[lane]), inverse[lane]);
    if (!weight.empty())
      y = arith::MulFOp::create(b, y, weight[lane]);
    if (!bias.empty())
      y = arith::AddFOp::create(b, y, bias[lane]);
    result.push_back(y);
  }
  return result;
}

FailureOr<Lanes> TaskEmitter::evalRmsNorm(RmsNormOp op, const Index &index) {
  StridedTensorType input = typeOf(op.getInput());
  Type type = computeType(input.getElementType());
  int64_t axis = input.getRank() - 1, size = input.getDimSize(axis);
  Index operand = withPlaceholder(index, axis);
  Lanes inverse(lanes);
  if (Value stat = rowStat(op, 0, index)) {
    inverse.assign(lanes, stat);
  } else {
    FailureOr<SmallVector<Value>> squares = foldRow(
        operand, axis, size, op.getInput(), floatConstant(b, type, 0.0),
        [&](Value acc, Value x, unsigned) -> Value {
          return arith::AddFOp::create(b, acc, arith::MulFOp::create(b, x, x));
        });
    if (failed(squares))
      return failure();
    Value n = floatConstant(b, type, double(size));
    Value eps = floatConstant(b, type, op.getEpsilon().convertToDouble());
    for (unsigned lane = 0; lane < lanes; ++lane)
      inverse[lane] = emitNormScale(
          b, arith::AddFOp::create(
                 b, arith::DivFOp::create(b, (*squares)[lane], n), eps));
  }
  FailureOr<Lanes> x = eval(op.getInput(), index);
  if (failed(x))
    return failure();
  Lanes weight;
  if (op.getWeight()) {
    FailureOr<Lanes> w = eval(op.getWeight(), Index{index.back()});
    if (failed(w))
      return failure();
    weight = *w;
  }
  Lanes result;
  for (unsigned lane = 0; lane < lanes; ++lane) {
    Value y = arith::MulFOp::create(b, (*x)[lane], inverse[lane]);
    if (!weight.empty())
      y = arith::MulFOp::create(b, y, weight[lane]);
    result.push_back(y);
  }
  return result;
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

FailureOr<Lanes> TaskEmitter::evalMatmul(MatmulOp op, const Index &index) {
  // Small-M tasks computed the tile's matmul values cooperatively
  // (MatvecEmitter): read them at the element being emitted.
  if (precomputedMatmul)
    if (Lanes values = precomputedMatmul(op, index); !values.empty())
      return values;
  StridedTensorType lhs = typeOf(op.getLhs());
  Type type = computeType(lhs.getElementType());
  int64_t rank = typeOf(op.getResult()).getRank();
  int64_t k = matmulK(op);
  // The K placeholder is the serialReduce axis.
  Index batch(index.begin(), index.end() - 2);
  Index lhsIndex = matmulOperandIndex(op, true, batch, index[rank - 2], DimIndex());
  Index rhsIndex = matmulOperandIndex(op, false, batch, index[rank - 1], DimIndex());
  int64_t lhsK = lhsIndex.size() - (op.getTransposeLhs() ? 2 : 1);
  int64_t rhsK = rhsIndex.size() - (op.getTransposeRhs() ? 1 : 2);

  // serialReduce needs one index: loop over lhs's K and mirror it into rhs.
  bool isFloat = isa<FloatType>(type);
  Value zero = isFloat ? floatConstant(b, type, 0.0) : intConstant(b, type, 0);
  FailureOr<SmallVector<Value>> accs = serialReduce(
      lhsIndex, {lhsK}, {k}, {zero},
      [&](const Index &full, ArrayRef<Value> current)
          -> FailureOr<SmallVector<Value>> {
        Index rhsFull = rhsIndex;
        rhsFull[rhsK] = full[lhsK];
        FailureOr<Lanes> a = eval(op.getLhs(), full);
        if (failed(a))
          return failure();
        FailureOr<Lanes> c = eval(op.getRhs(), rhsFull);
        if (failed(c))
          return failure();
        SmallVector<Value> out;
        for (unsigned lane = 0; lane < current.size(); ++lane) {
          Value x = (*a)[lane];
          Value y = (*c)[lane];
          out.push_back(isFloat ? Value(LLVM::FMAOp::create(b, x, y, current[lane]))
                                : Value(arith::AddIOp::create(
                                      b, current[lane],
                                      arith::MulIOp::create(b, x, y))));
        }
        return out;
      },
      isLaneUniform(index));
  if (failed(accs))
    return failure();
  return Lanes(accs->begin(), accs->end());
}

Index TaskEmitter::matmulOperandIndex(MatmulOp op, bool isLhs, const Index &batch,
                                      const DimIndex &outer, const DimIndex &k) {
  // Batch dims broadcast (numpy).
  StridedTensorType type = typeOf(isLhs ? op.getLhs() : op.getRhs());
  ArrayRef<int64_t> resultShape = typeOf(op.getResult()).getShape();
  Index result = broadcastIndex(batch, resultShape.drop_back(2),
                                type.getShape().drop_back(2));
  bool transposed = isLhs ? op.getTransposeLhs() : op.getTransposeRhs();
  bool kFirst = isLhs ? transposed : !transposed;
  result.push_back(kFirst ? k : outer);
  result.push_back(kFirst ? outer : k);
  return result;
}

Index TaskEmitter::tileOperandIndex(MatmulOp op, bool isLhs, const DimIndex &outer,
                                    const DimIndex &k) {
  Index batch;
  for (size_t axis = 0; axis + 2 < abi.tile.size(); ++axis) {
    DimIndex dim;
    dim.base = tileOrigin[axis]; // batch dims are tiled by 1
    batch.push_back(dim);
  }
  return matmulOperandIndex(op, isLhs, batch, outer, k);
}

int64_t gpuos::codegen::matmulK(MatmulOp op) {
  auto lhs = cast<StridedTensorType>(op.getLhs().getType());
  return op.getTransposeLhs() ? lhs.getShape()[lhs.getRank() - 2] : lhs.getShape().back();
}
