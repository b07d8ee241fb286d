//===- AsmDirectives.h - custom<...> directives of gpuos ops ----*- C++ -*-===//

#ifndef GPUOS_LIB_DIALECT_GPUOS_IR_ASMDIRECTIVES_H
#define GPUOS_LIB_DIALECT_GPUOS_IR_ASMDIRECTIVES_H

#include "mlir/IR/OpImplementation.h"

namespace gpuos {

/// custom<DimList>: `[4, ?, 8]`, `?` for a dynamic dimension.
mlir::ParseResult parseDimList(mlir::OpAsmParser &parser,
                               mlir::DenseI64ArrayAttr &dims);
void printDimList(mlir::OpAsmPrinter &printer, mlir::Operation *op,
                  mlir::DenseI64ArrayAttr dims);

} // namespace gpuos

#endif // GPUOS_LIB_DIALECT_GPUOS_IR_ASMDIRECTIVES_H
