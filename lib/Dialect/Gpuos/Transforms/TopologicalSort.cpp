//===- TopologicalSort.cpp - order graph bodies def-before-use ------------===//

#include "gpuos/Dialect/Gpuos/Transforms/Passes.h"
#include "mlir/Analysis/TopologicalSortUtils.h"

namespace gpuos {
#define GEN_PASS_DEF_GPUOSTOPOLOGICALSORT
#include "gpuos/Dialect/Gpuos/Passes.h.inc"
} // namespace gpuos

using namespace mlir;
using namespace gpuos;

namespace {
struct GpuosTopologicalSort
    : gpuos::impl::GpuosTopologicalSortBase<GpuosTopologicalSort> {
  void runOnOperation() override {
    GraphOp graph = getOperation();
    // The verifier rejects cycles, so a failed sort is a broken invariant.
    if (!sortTopologically(&graph.getBodyBlock())) {
      graph.emitOpError("body has a cycle and cannot be ordered");
      signalPassFailure();
    }
  }
};
} // namespace
