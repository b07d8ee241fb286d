//===- OpDiagnostics.h - checks shared by gpuos op inference ----*- C++ -*-===//

#ifndef GPUOS_LIB_DIALECT_GPUOS_IR_OPDIAGNOSTICS_H
#define GPUOS_LIB_DIALECT_GPUOS_IR_OPDIAGNOSTICS_H

#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"

namespace gpuos {

/// Fails with "'op' axis N is out of range for rank R" unless 0 <= axis < rank.
inline llvm::LogicalResult checkAxis(std::optional<mlir::Location> loc,
                                     llvm::StringRef opName, int64_t axis,
                                     int64_t rank) {
  if (axis >= 0 && axis < rank)
    return llvm::success();
  return mlir::emitOptionalError(loc, "'", opName, "' axis ", axis,
                                 " is out of range [0, ", rank,
                                 ") for an operand of rank ", rank);
}

/// Fails unless every operand is a !gpuos.tensor. Parsing the custom form
/// infers result types before the verifier has checked the operand types, and
/// a forward reference in a graph region may carry any type.
inline llvm::LogicalResult checkTensorOperands(std::optional<mlir::Location> loc,
                                               llvm::StringRef opName,
                                               mlir::ValueRange operands) {
  for (auto [index, operand] : llvm::enumerate(operands))
    if (!llvm::isa<StridedTensorType>(operand.getType()))
      return mlir::emitOptionalError(loc, "'", opName, "' operand #", index,
                                     " must be a !gpuos.tensor, got ",
                                     operand.getType());
  return llvm::success();
}

/// Fails unless the element type of `type` is in `cls`.
inline llvm::LogicalResult checkElementType(std::optional<mlir::Location> loc,
                                            llvm::StringRef opName,
                                            StridedTensorType type, DTypeClass cls,
                                            llvm::StringRef what = "operand") {
  if (isInClass(type.getElementType(), cls))
    return llvm::success();
  return mlir::emitOptionalError(loc, "'", opName, "' needs a ",
                                 describeClass(cls), " ", what, ", got ",
                                 type.getElementType());
}

} // namespace gpuos

#endif // GPUOS_LIB_DIALECT_GPUOS_IR_OPDIAGNOSTICS_H
