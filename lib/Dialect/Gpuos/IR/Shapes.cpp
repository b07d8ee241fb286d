//===- Shapes.cpp - shape, stride and dtype rules of gpuos ----------------===//

#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>

using namespace mlir;
using namespace gpuos;

bool gpuos::isSupportedElementType(Type type) {
  if (type.isF32() || type.isF16() || type.isBF16() || type.isF64())
    return true;
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer || !integer.isSignless())
    return false;
  switch (integer.getWidth()) {
  case 1:
  case 8:
  case 32:
  case 64:
    return true;
  default:
    return false;
  }
}

bool gpuos::isInClass(Type type, DTypeClass cls) {
  switch (cls) {
  case DTypeClass::Float:
    return isa<FloatType>(type);
  case DTypeClass::Numeric:
    return isSupportedElementType(type) && !type.isInteger(1);
  case DTypeClass::Any:
    return isSupportedElementType(type);
  }
  llvm_unreachable("unknown DTypeClass");
}

unsigned gpuos::elementStorageBytes(Type type) {
  return std::max(8u, type.getIntOrFloatBitWidth()) / 8;
}

StringRef gpuos::describeClass(DTypeClass cls) {
  switch (cls) {
  case DTypeClass::Float:
    return "floating-point (f64, f32, f16, bf16)";
  case DTypeClass::Numeric:
    return "numeric (float or i8/i32/i64, not i1)";
  case DTypeClass::Any:
    return "gpuos";
  }
  llvm_unreachable("unknown DTypeClass");
}

SmallVector<int64_t> gpuos::rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  int64_t running = 1;
  for (int64_t axis = static_cast<int64_t>(shape.size()) - 1; axis >= 0;
       --axis) {
    strides[axis] = running;
    // A stride past int64 is as unknown as one behind a dynamic dim.
    if (running != kDynamic &&
        (shape[axis] == kDynamic ||
         llvm::MulOverflow(running, shape[axis], running)))
      running = kDynamic;
  }
  return strides;
}

std::optional<SmallVector<int64_t>>
gpuos::broadcastShapes(ArrayRef<ArrayRef<int64_t>> shapes,
                       BroadcastConflict *conflict) {
  size_t rank = 0;
  for (ArrayRef<int64_t> shape : shapes)
    rank = std::max(rank, shape.size());
  SmallVector<int64_t> result(rank, 1);
  // Which operand decided each result dim, for the conflict report.
  SmallVector<int> decidedBy(rank, -1);
  for (auto [operand, shape] : llvm::enumerate(shapes)) {
    size_t lead = rank - shape.size();
    for (auto [i, dim] : llvm::enumerate(shape)) {
      int64_t &out = result[lead + i];
      if (dim == 1 || dim == out)
        continue;
      // A static dim refines a dynamic one: the runtime checks that the
      // dynamic extent is 1 or equal.
      if (out == 1 || (out == kDynamic && dim != kDynamic)) {
        out = dim;
        decidedBy[lead + i] = operand;
        continue;
      }
      if (dim == kDynamic)
        continue;
      if (conflict) {
        conflict->lhsOperand = decidedBy[lead + i];
        conflict->rhsOperand = operand;
        conflict->lhsDim = out;
        conflict->rhsDim = dim;
        conflict->resultAxis = lead + i;
      }
      return std::nullopt;
    }
  }
  return result;
}

/// Sizes or strides joined by `separator`, `?` for a dynamic one.
static std::string formatDims(ArrayRef<int64_t> dims, StringRef separator) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(
      dims, os,
      [&](int64_t dim) {
        if (dim == kDynamic)
          os << '?';
        else
          os << dim;
      },
      separator);
  return text;
}

std::string gpuos::formatShape(ArrayRef<int64_t> shape) {
  return shape.empty() ? "scalar" : formatDims(shape, "x");
}

std::string gpuos::formatStrides(ArrayRef<int64_t> strides) {
  return "[" + formatDims(strides, ", ") + "]";
}

LogicalResult gpuos::inferElementwise(std::optional<Location> loc,
                                      StringRef opName, ValueRange operands,
                                      DTypeClass cls, Type resultElementType,
                                      SmallVectorImpl<Type> &results) {
  SmallVector<ArrayRef<int64_t>> shapes;
  Type elementType;
  for (auto [index, operand] : llvm::enumerate(operands)) {
    auto type = dyn_cast<StridedTensorType>(operand.getType());
    if (!type) // custom-form parsing infers before operand types verify
      return emitOptionalError(loc, "'", opName, "' operand #", index,
                               " must be a !gpuos.tensor, got ",
                               operand.getType());
    shapes.push_back(type.getShape());
    Type et = type.getElementType();
    // select's condition is the one operand with a fixed element type.
    bool isSelectCond = opName == "gpuos.select" && index == 0;
    if (isSelectCond) {
      if (!et.isInteger(1))
        return emitOptionalError(loc, "'", opName,
                                 "' needs an i1 condition, got ", et);
      continue;
    }
    if (!isInClass(et, cls))
      return emitOptionalError(loc, "'", opName, "' needs ",
                               describeClass(cls), " operands, got ", et);
    if (!elementType) {
      elementType = et;
    } else if (et != elementType) {
      return emitOptionalError(
          loc, "'", opName, "' operands have different element types (",
          elementType, " and ", et, "); insert a gpuos.cast");
    }
  }
  BroadcastConflict conflict;
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(shapes, &conflict);
  if (!shape)
    return emitOptionalError(
        loc, "'", opName, "' cannot broadcast operand shapes ",
        formatShape(shapes[conflict.lhsOperand]), " and ",
        formatShape(shapes[conflict.rhsOperand]), ": size ", conflict.lhsDim,
        " vs ", conflict.rhsDim, " at result axis ", conflict.resultAxis);
  results.push_back(
      StridedTensorType::get(*shape, resultElementType ? resultElementType
                                                : elementType));
  return success();
}
