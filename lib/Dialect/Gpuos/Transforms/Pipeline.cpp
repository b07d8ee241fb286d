//===- Pipeline.cpp - the gpuos graph pipeline ----------------------------===//

#include "gpuos/Dialect/Gpuos/Transforms/Pipeline.h"
#include "gpuos/Dialect/Gpuos/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void gpuos::buildGpuosPipeline(OpPassManager &pm,
                               const GpuosPipelineOptions &options) {
  // Sort before the first canonicalize: its region DCE is quadratic on a
  // graph region written in reverse (14 s for 10^4 ops, 7 ms sorted).
  pm.addNestedPass<GraphOp>(createGpuosTopologicalSort());
  pm.addPass(createCanonicalizerPass());
  OpPassManager &graphs = pm.nest<GraphOp>();
  graphs.addPass(createGpuosTopologicalSort());
  if (options.splitK)
    graphs.addPass(createGpuosSplitK());
  graphs.addPass(createGpuosFuseElementwise());
  graphs.addPass(createGpuosFuseReductions());
  graphs.addPass(createGpuosFuseSharedWeights());
  graphs.addPass(createGpuosFuseMatmulEpilogues());
  graphs.addPass(createGpuosFuseMatmulPrologues());
  graphs.addPass(createGpuosFuseHorizontal());
  graphs.addPass(createGpuosPartition());
  graphs.addPass(createGpuosAssignPriorities());
  pm.addPass(createGpuosUniqueKinds());
  pm.addPass(createCanonicalizerPass());
}

void gpuos::registerGpuosPipeline() {
  PassPipelineRegistration<>(
      "gpuos-pipeline",
      "canonicalize, sort, split K of small-M matmuls, fuse (elementwise, reductions, shared-weight "
      "matmuls, matmul epilogues and prologues, horizontal), partition into tasks, assign "
      "priorities, make kinds unique, canonicalize",
      [](OpPassManager &pm) { buildGpuosPipeline(pm); });
}
