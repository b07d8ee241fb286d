//===- Pipeline.h - the gpuos graph pipeline --------------------*- C++ -*-===//
//
// The pass pipeline from user graphs to graphs of tasks, shared by gpuos-opt
// (`--gpuos-pipeline`), gpuos-difftest and gpuos-jit.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_DIALECT_GPUOS_TRANSFORMS_PIPELINE_H
#define GPUOS_DIALECT_GPUOS_TRANSFORMS_PIPELINE_H

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace gpuos {

/// Adds to `pm` (anchored on builtin.module) a topological sort of every
/// gpuos.graph, canonicalize, then on every graph: topological sort,
/// elementwise fusion, reduction fusion, shared-weight matmul fusion,
/// horizontal fusion, partitioning and priorities; then canonicalize.
/// Afterwards each graph body holds only tasks and its yield, in
/// critical-path order. docs/passes.md describes each step.
/// Choices of the pipeline that tools may turn off.
struct GpuosPipelineOptions {
  /// gpuos-split-k (it reassociates the K sum of the matmuls it splits).
  bool splitK = true;
};

void buildGpuosPipeline(mlir::OpPassManager &pm,
                        const GpuosPipelineOptions &options = {});

/// Registers the pipeline as `gpuos-pipeline` for textual pipelines.
void registerGpuosPipeline();

} // namespace gpuos

#endif // GPUOS_DIALECT_GPUOS_TRANSFORMS_PIPELINE_H
