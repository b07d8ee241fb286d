//===- GpuosDialect.h - gpuos dialect ---------------------------*- C++ -*-===//
//
// The one header users include for the gpuos dialect: dialect, types,
// attributes, enums and ops.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_DIALECT_GPUOS_IR_GPUOSDIALECT_H
#define GPUOS_DIALECT_GPUOS_IR_GPUOSDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "gpuos/Dialect/Gpuos/GpuosDialect.h.inc"
#include "gpuos/Dialect/Gpuos/GpuosEnums.h.inc"

namespace gpuos {
/// Row-major strides are the canonical (empty) layout; any other layout is
/// kept. Used by StridedTensorType's builder so equal layouts give equal types.
llvm::SmallVector<int64_t> canonicalStrides(llvm::ArrayRef<int64_t> shape,
                                            llvm::ArrayRef<int64_t> strides);
} // namespace gpuos

#define GET_TYPEDEF_CLASSES
#include "gpuos/Dialect/Gpuos/GpuosTypes.h.inc"
#define GET_ATTRDEF_CLASSES
#include "gpuos/Dialect/Gpuos/GpuosAttrs.h.inc"

#include "gpuos/Dialect/Gpuos/IR/GpuosTraits.h"
#include "gpuos/Dialect/Gpuos/IR/Shapes.h"

#define GET_OP_CLASSES
#include "gpuos/Dialect/Gpuos/GpuosOps.h.inc"

namespace gpuos {
/// The input of a row op whose rows run along the innermost axis (a softmax
/// over its last axis, a layer_norm, an rms_norm: the links of a row chain,
/// and the row prologues of a small-M matmul), or null for any other op.
mlir::Value innermostRowInput(mlir::Operation *op);
} // namespace gpuos

#endif // GPUOS_DIALECT_GPUOS_IR_GPUOSDIALECT_H
