//===- ReductionOps.cpp - reduce, argmax, softmax, norms, matmul ----------===//

#include "OpDiagnostics.h"

using namespace mlir;
using namespace gpuos;

/// Shape after reducing `axes`: dropped, or kept as 1 with `keepdim`.
static SmallVector<int64_t> reducedShape(ArrayRef<int64_t> shape,
                                         ArrayRef<int64_t> axes,
                                         bool keepdim) {
  SmallVector<int64_t> result;
  for (auto [axis, dim] : llvm::enumerate(shape)) {
    if (!llvm::is_contained(axes, static_cast<int64_t>(axis)))
      result.push_back(dim);
    else if (keepdim)
      result.push_back(1);
  }
  return result;
}

/// Max, min and argmax have no identity: reducing an axis of static size 0
/// gives no value, unless the result has no elements either (a kept
/// dimension of size 0). The interpreter refuses the same at run time.
static LogicalResult checkNonEmptyAxes(std::optional<Location> loc,
                                       StringRef name, StringRef what,
                                       ArrayRef<int64_t> shape,
                                       ArrayRef<int64_t> axes) {
  for (auto [axis, dim] : llvm::enumerate(shape))
    if (dim == 0 && !llvm::is_contained(axes, static_cast<int64_t>(axis)))
      return success(); // an empty result
  for (int64_t axis : axes)
    if (shape[axis] == 0)
      return emitOptionalError(loc, "'", name, "' ", what, " over axis ", axis,
                               " of size 0 has no value (", what,
                               " has no identity); the result ",
                               formatShape(reducedShape(shape, axes, false)),
                               " would have elements");
  return success();
}

LogicalResult ReduceOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  if (failed(checkTensorOperands(loc, getOperationName(),
                                 adaptor.getOperands())))
    return failure();
  auto input = cast<StridedTensorType>(adaptor.getInput().getType());
  ArrayRef<int64_t> axes = adaptor.getAxes();
  StringRef name = getOperationName();
  DTypeClass cls = adaptor.getKind() == ReductionKind::mean
                       ? DTypeClass::Float
                       : DTypeClass::Numeric;
  if (failed(checkElementType(loc, name, input, cls)))
    return failure();
  if (axes.empty())
    return emitOptionalError(loc, "'", name,
                             "' needs at least one axis to reduce");
  SmallVector<bool> seen(input.getRank(), false);
  for (int64_t axis : axes) {
    if (failed(checkAxis(loc, name, axis, input.getRank())))
      return failure();
    if (seen[axis])
      return emitOptionalError(loc, "'", name, "' lists axis ", axis,
                               " twice");
    seen[axis] = true;
  }
  ReductionKind kind = adaptor.getKind();
  if ((kind == ReductionKind::max || kind == ReductionKind::min) &&
      failed(checkNonEmptyAxes(loc, name, stringifyReductionKind(kind),
                               input.getShape(), axes)))
    return failure();
  results.push_back(StridedTensorType::get(
      reducedShape(input.getShape(), axes, adaptor.getKeepdim()),
      input.getElementType()));
  return success();
}

LogicalResult ArgmaxOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  if (failed(checkTensorOperands(loc, getOperationName(),
                                 adaptor.getOperands())))
    return failure();
  auto input = cast<StridedTensorType>(adaptor.getInput().getType());
  int64_t axis = adaptor.getAxis();
  if (failed(checkElementType(loc, getOperationName(), input,
                              DTypeClass::Numeric)) ||
      failed(checkAxis(loc, getOperationName(), axis, input.getRank())) ||
      failed(checkNonEmptyAxes(loc, getOperationName(), "argmax",
                               input.getShape(), {axis})))
    return failure();
  results.push_back(
      StridedTensorType::get(reducedShape(input.getShape(), {axis},
                                   adaptor.getKeepdim()),
                      IntegerType::get(context, 64)));
  return success();
}

LogicalResult SoftmaxOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  if (failed(checkTensorOperands(loc, getOperationName(),
                                 adaptor.getOperands())))
    return failure();
  auto input = cast<StridedTensorType>(adaptor.getInput().getType());
  if (failed(checkElementType(loc, getOperationName(), input,
                              DTypeClass::Float)) ||
      failed(checkAxis(loc, getOperationName(), adaptor.getAxis(),
                       input.getRank())))
    return failure();
  results.push_back(input.getContiguous());
  return success();
}

/// Checks shared by layer_norm and rms_norm: a float operand of rank >= 1,
/// a positive epsilon, and per-feature parameters shaped like the last dim.
static LogicalResult inferNorm(std::optional<Location> loc, StringRef name,
                               Value inputValue, ArrayRef<Value> params,
                               ArrayRef<StringRef> paramNames, double epsilon,
                               SmallVectorImpl<Type> &results) {
  auto input = cast<StridedTensorType>(inputValue.getType());
  if (failed(checkElementType(loc, name, input, DTypeClass::Float)))
    return failure();
  if (input.getRank() == 0)
    return emitOptionalError(loc, "'", name,
                             "' needs an operand of rank >= 1, got a scalar");
  if (!(epsilon > 0.0))
    return emitOptionalError(loc, "'", name, "' eps must be positive, got ",
                             epsilon);
  int64_t features = input.getShape().back();
  for (auto [param, paramName] : llvm::zip(params, paramNames)) {
    if (!param)
      continue;
    auto type = cast<StridedTensorType>(param.getType());
    if (type.getElementType() != input.getElementType())
      return emitOptionalError(loc, "'", name, "' ", paramName,
                               " has element type ", type.getElementType(),
                               ", the operand has ", input.getElementType());
    if (type.getRank() != 1 || !dimsCompatible(type.getDimSize(0), features))
      return emitOptionalError(
          loc, "'", name, "' ", paramName, " must have shape ",
          formatShape(features), " (the operand's last dimension), got ",
          formatShape(type.getShape()));
  }
  results.push_back(input.getContiguous());
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &results) {
  if (failed(checkTensorOperands(loc, getOperationName(),
                                 adaptor.getOperands())))
    return failure();
  return inferNorm(loc, getOperationName(), adaptor.getInput(),
                   {adaptor.getWeight(), adaptor.getBias()},
                   {"weight", "bias"}, adaptor.getEpsilon().convertToDouble(),
                   results);
}

LogicalResult RmsNormOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &results) {
  if (failed(checkTensorOperands(loc, getOperationName(),
                                 adaptor.getOperands())))
    return failure();
  return inferNorm(loc, getOperationName(), adaptor.getInput(),
                   {adaptor.getWeight()}, {"weight"},
                   adaptor.getEpsilon().convertToDouble(), results);
}

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &results) {
  if (failed(checkTensorOperands(loc, getOperationName(),
                                 adaptor.getOperands())))
    return failure();
  StringRef name = getOperationName();
  auto lhs = cast<StridedTensorType>(adaptor.getLhs().getType());
  auto rhs = cast<StridedTensorType>(adaptor.getRhs().getType());
  if (failed(checkElementType(loc, name, lhs, DTypeClass::Float, "lhs")) ||
      failed(checkElementType(loc, name, rhs, DTypeClass::Float, "rhs")))
    return failure();
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(loc, "'", name,
                             "' operands have different element types (",
                             lhs.getElementType(), " and ",
                             rhs.getElementType(), "); insert a gpuos.cast");
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return emitOptionalError(loc, "'", name,
                             "' needs operands of rank >= 2, got ranks ",
                             lhs.getRank(), " and ", rhs.getRank());
  ArrayRef<int64_t> a = lhs.getShape(), b = rhs.getShape();
  int64_t m = a[a.size() - 2], ka = a.back();
  if (adaptor.getTransposeLhs())
    std::swap(m, ka);
  int64_t kb = b[b.size() - 2], n = b.back();
  if (adaptor.getTransposeRhs())
    std::swap(kb, n);
  if (!dimsCompatible(ka, kb))
    return emitOptionalError(loc, "'", name,
                             "' contraction sizes differ: lhs ",
                             formatShape(a), " gives K = ", ka, ", rhs ",
                             formatShape(b), " gives K = ", kb);
  SmallVector<ArrayRef<int64_t>> batches = {a.drop_back(2), b.drop_back(2)};
  BroadcastConflict conflict;
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(batches, &conflict);
  if (!shape)
    return emitOptionalError(loc, "'", name, "' batch dimensions ",
                             formatShape(batches[0]), " and ",
                             formatShape(batches[1]), " do not broadcast");
  shape->push_back(m);
  shape->push_back(n);
  results.push_back(StridedTensorType::get(*shape, lhs.getElementType()));
  return success();
}

Value gpuos::innermostRowInput(Operation *op) {
  if (auto softmax = dyn_cast<SoftmaxOp>(op)) {
    Value input = softmax.getInput();
    int64_t rank = cast<StridedTensorType>(input.getType()).getRank();
    return int64_t(softmax.getAxis()) == rank - 1 ? input : Value();
  }
  if (auto norm = dyn_cast<LayerNormOp>(op))
    return norm.getInput();
  if (auto norm = dyn_cast<RmsNormOp>(op))
    return norm.getInput();
  return Value();
}
