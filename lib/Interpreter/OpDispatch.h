//===- OpDispatch.h - maps gpuos compute ops onto kernels -------*- C++ -*-===//

#ifndef GPUOS_LIB_INTERPRETER_OPDISPATCH_H
#define GPUOS_LIB_INTERPRETER_OPDISPATCH_H

#include "gpuos/Interpreter/Kernels.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Operation.h"

namespace gpuos::interp {

/// Evaluates one value-producing micro-op (anything but graph, task and
/// yield); `lookup` gives the tensor of each operand.
llvm::Expected<HostTensor>
evaluateComputeOp(mlir::Operation *op,
                  llvm::function_ref<const HostTensor &(mlir::Value)> lookup,
                  Accumulation acc);

/// Reads a dense or dense_resource elements attribute.
llvm::Expected<HostTensor> readElements(mlir::ElementsAttr value);

} // namespace gpuos::interp

#endif // GPUOS_LIB_INTERPRETER_OPDISPATCH_H
