//===- Manifest.h - the JSON description of an image ------------*- C++ -*-===//
//
// docs/abi.md "Manifest": one entry per task function with its graph,
// priority, launch shape, buffers and dependencies, so the runtime can bind
// and schedule tasks without parsing IR.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_TARGET_MANIFEST_H
#define GPUOS_TARGET_MANIFEST_H

#include "gpuos/Conversion/GpuosToNVVM.h"
#include "mlir/IR/BuiltinOps.h"
#include <string>

namespace gpuos {

struct ManifestOptions {
  std::string arch;
  std::string contentHash;
  /// File name and SHA-256 of the runtime device library linked into the
  /// image; empty: none ("runtime": null).
  std::string runtimeLibrary;
  std::string runtimeHash;
};

/// The manifest of the tasks in `module`, whose graphs must be partitioned
/// (bodies of gpuos.task ops and the yield only). `infos` is what
/// lowerTasksToNVVM reported for each kind. Tasks are listed graph by graph
/// in a topological order; `depends_on` holds indices into that list.
mlir::FailureOr<std::string>
buildManifest(mlir::ModuleOp module, llvm::ArrayRef<TaskCodegenInfo> infos,
              const ManifestOptions &options);

/// `cached` (a manifest buildManifest wrote for a module with the same
/// content hash) rebuilt for `module`: the same text but for the ops'
/// source locations, which the content hash leaves out (a cache hit for a
/// graph that moved in its file, or came from another file). Fails when
/// `cached` is not such a manifest.
mlir::FailureOr<std::string> rebuildManifest(mlir::ModuleOp module,
                                             llvm::StringRef cached);

/// Checks that every graph body holds only tasks (and the yield), which an
/// image needs; emits a diagnostic at the first other op.
mlir::LogicalResult checkPartitioned(mlir::ModuleOp module);

} // namespace gpuos

#endif // GPUOS_TARGET_MANIFEST_H
