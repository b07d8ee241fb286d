//===- TaskABI.h - how one gpuos.task meets the image ABI -------*- C++ -*-===//
//
// The facts of docs/abi.md for one task, computed in one place so the
// lowering (which emits the argument-block loads and the tile loop) and the
// manifest writer (which describes them to the runtime) cannot disagree:
// function names, the buffer order, the iteration space, tiles.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_CONVERSION_TASKABI_H
#define GPUOS_CONVERSION_TASKABI_H

#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include <string>

namespace gpuos {

/// ABI version this compiler implements (docs/abi.md, "abi" in manifests).
constexpr int kImageAbiVersion = 0;

/// `gpuos_task_` + kind: the device function the runtime calls.
std::string taskFunctionName(llvm::StringRef kind);
/// `gpuos_launch_` + kind: the stand-alone test kernel.
std::string taskLauncherName(llvm::StringRef kind);
/// True for a C identifier ([A-Za-z_][A-Za-z0-9_]*).
bool isCIdentifier(llvm::StringRef name);

/// Name of the per-image switch over task kinds that the runtime's device
/// library calls: `int gpuos_dispatch(unsigned kind, const unsigned char
/// *args, unsigned tile)`.
constexpr llvm::StringLiteral kDispatchFunctionName = "gpuos_dispatch";

/// The image's task order, which is also its kind numbering: the tasks of
/// every graph in module order, each graph's in a topological order
/// (written order among independent tasks). The manifest lists tasks in
/// this order and gpuos_dispatch numbers kinds by it, so both must use it.
/// A producer that is not a task (an unpartitioned graph) does not delay
/// its users.
llvm::SmallVector<TaskOp> imageTaskOrder(mlir::ModuleOp module);

struct TaskABI {
  std::string kind, function, launcher;
  /// The argument block's buffers: the task's inputs, then its results.
  llvm::SmallVector<StridedTensorType> buffers;
  unsigned numInputs = 0;
  /// Iteration space (the first result's shape), tile shape, tiles per
  /// dimension (ceil(shape / tile)), and their product.
  llvm::SmallVector<int64_t> iterShape, tile, tilesPerDim;
  int64_t numTiles = 0;

  unsigned getNumOutputs() const { return buffers.size() - numInputs; }

  /// Checks that `task` is lowerable under ABI v0 (a C-identifier kind,
  /// static shapes and strides: the dynamic slots are not implemented yet)
  /// and computes its ABI. Emits a diagnostic at the task on failure.
  static mlir::FailureOr<TaskABI> get(TaskOp task);
};

} // namespace gpuos

#endif // GPUOS_CONVERSION_TASKABI_H
