//===- GpuosToNVVM.h - lowering gpuos tasks to NVVM device code -*- C++ -*-===//
//
// The C++ entry point of gpuos-lower-tasks-to-nvvm, for tools that also need
// what the lowering decided (block size, shared memory, vector widths) to
// write the image manifest.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_CONVERSION_GPUOSTONVVM_H
#define GPUOS_CONVERSION_GPUOSTONVVM_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include <string>

namespace gpuos {

/// Name of the gpu.module that holds the task functions.
constexpr llvm::StringLiteral kTaskModuleName = "gpuos_tasks";

struct LowerTasksOptions {
  /// The block size the functions are tuned for (any multiple of 32 up to
  /// 1024 works); recorded in the manifest.
  int64_t blockSize = 256;
  /// Convert arith/scf/cf to the llvm dialect at the end.
  bool convertToLLVM = true;
  /// Also emit gpuos_dispatch, the switch over the image's task kinds (in
  /// imageTaskOrder) that the runtime's resident kernel calls.
  bool emitDispatch = true;
  /// Elementwise tiles prefetch their streamed inputs with
  /// cp.async.bulk.prefetch (sm_90 and later; off for older targets).
  bool bulkPrefetch = true;
  /// Tasks of background priority (their own, else their graph's) read and
  /// write global memory with an L2 evict-first policy (`createpolicy` and
  /// `.L2::cache_hint`, sm_80 and later), so that their streams leave the
  /// L2 lines of urgent graphs in place (docs/codegen.md, "Background
  /// streams in L2"). Off by default until measured.
  bool backgroundEvictFirst = false;
};

/// What the lowering decided for one task kind.
struct TaskCodegenInfo {
  std::string kind;
  int64_t blockSize = 256;
  /// Dynamic shared memory the function needs (docs/abi.md shared_bytes).
  int64_t sharedBytes = 0;
  /// Consecutive innermost elements per thread access (1: scalar code).
  unsigned lanes = 1;
  /// Copies of the element loop body per iteration (unroll-and-jam of pure
  /// elementwise tasks; docs/codegen.md). Not part of the manifest.
  unsigned unroll = 1;
  /// Per argument-block buffer: read or written with vector accesses on
  /// the fast path, which runs when all of these are 16-byte aligned.
  llvm::SmallVector<bool> vectorBuffers;
  /// "elementwise", "rows" (block-cooperative reductions over rows),
  /// "matvec" (small-M matmuls splitting K across the block) or "tiled"
  /// (other matmul tiles staged through shared memory).
  std::string strategy = "elementwise";
};

/// Lowers every gpuos.task in `module` into gpu.module @gpuos_tasks (see the
/// pass description), leaving graphs in place. Tasks that share a kind must
/// be identical; one function serves them. Emits diagnostics and fails on
/// what cannot be lowered yet.
mlir::LogicalResult
lowerTasksToNVVM(mlir::ModuleOp module, const LowerTasksOptions &options,
                 llvm::SmallVectorImpl<TaskCodegenInfo> *infos = nullptr);

} // namespace gpuos

#endif // GPUOS_CONVERSION_GPUOSTONVVM_H
