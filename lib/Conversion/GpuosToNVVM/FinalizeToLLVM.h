//===- FinalizeToLLVM.h - arith/scf/cf to the llvm dialect ------*- C++ -*-===//

#ifndef GPUOS_LIB_CONVERSION_GPUOSTONVVM_FINALIZETOLLVM_H
#define GPUOS_LIB_CONVERSION_GPUOSTONVVM_FINALIZETOLLVM_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace gpuos::codegen {
/// Canonicalizes and CSEs the task functions.
void simplify(mlir::gpu::GPUModuleOp module);
/// Converts the arith, scf and cf ops of the task functions in `module` to
/// the llvm dialect.
mlir::LogicalResult finalizeToLLVM(mlir::gpu::GPUModuleOp module);
} // namespace gpuos::codegen

#endif // GPUOS_LIB_CONVERSION_GPUOSTONVVM_FINALIZETOLLVM_H
