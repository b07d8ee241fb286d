//===- Interpreter.h - reference evaluation of gpuos graphs -----*- C++ -*-===//
//
// The CPU oracle for gpuos: evaluates a gpuos.graph on host tensors with
// the math of Kernels.h. Fused, lowered and device results are checked
// against it, so it favours clarity and precision over speed.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_INTERPRETER_INTERPRETER_H
#define GPUOS_INTERPRETER_INTERPRETER_H

#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "gpuos/Interpreter/HostTensor.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/Support/LLVM.h"

namespace gpuos::interp {

struct InterpreterOptions {
  /// true (the default): sums and means of reduce, the softmax denominator,
  /// the statistics of layer_norm and rms_norm, and matmul accumulate in
  /// double and only each op's result rounds to its element type. false:
  /// those intermediates round to the op's element type after every step
  /// (matmul to f32 for f16/bf16 operands, as the op specifies), which
  /// models a device that accumulates in the storage type.
  bool accumulateInF64 = true;
};

/// Evaluates `graph` on `inputs`, one per graph input in order, and returns
/// one tensor per output. Each input must match its declared type's rank,
/// static dimensions and element type; dynamic dimensions bind to the
/// input's sizes. Strides in input types are layout only: inputs are the
/// logical (contiguous) values. Ops run in a topological order of the graph
/// region; a gpuos.task evaluates its body with the arguments bound to its
/// operands. Errors (a mismatching input, a dynamic size that is illegal
/// at run time, an unsupported op) are emitted as diagnostics at the
/// graph or op location and give failure; nothing asserts on bad input.
mlir::FailureOr<llvm::SmallVector<HostTensor>>
evaluateGraph(GraphOp graph, llvm::ArrayRef<HostTensor> inputs,
              const InterpreterOptions &options = {});

/// Fails with a diagnostic naming the input or op unless every tensor of
/// `graph` (its inputs and every result, task bodies included) fits the
/// host limit kMaxHostElements; dynamic dimensions count as 1 here and are
/// checked when their sizes are known. evaluateGraph checks this first;
/// tools that make inputs call it before making them.
mlir::LogicalResult checkFitsOnHost(GraphOp graph);

/// The values of a dense (or dense_resource) elements attribute, as a
/// gpuos.constant produces them. Fails with a diagnostic at `loc` for an
/// element type or attribute kind it cannot read.
mlir::FailureOr<HostTensor> hostTensorFromAttr(mlir::ElementsAttr value,
                                               mlir::Location loc);

} // namespace gpuos::interp

#endif // GPUOS_INTERPRETER_INTERPRETER_H
