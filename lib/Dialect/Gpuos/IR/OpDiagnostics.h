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
