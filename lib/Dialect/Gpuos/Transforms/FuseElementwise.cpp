//===- FuseElementwise.cpp - vertical fusion of elementwise ops -----------===//
//
// Groups grow in topological order: each elementwise op joins the groups of
// the elementwise producers it reads directly when their iteration spaces
// are equal and contracting them closes no cycle. Every group of two or
// more ops becomes one task; views and constants feeding it are cloned in.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"
#include "gpuos/Dialect/Gpuos/Transforms/Passes.h"

namespace gpuos {
#define GEN_PASS_DEF_GPUOSFUSEELEMENTWISE
#include "gpuos/Dialect/Gpuos/Passes.h.inc"
} // namespace gpuos

using namespace mlir;
using namespace gpuos;
using namespace gpuos::fusion;

namespace {
struct FuseElementwise
    : gpuos::impl::GpuosFuseElementwiseBase<FuseElementwise> {
  void runOnOperation() override {
    if (failed(fuseGraph(getOperation(), [&](FusionGraph &fg) { fuse(fg); })))
      signalPassFailure();
  }

  void fuse(FusionGraph &fg) {
    SmallVector<UnitInfo> units = classifyUnits(fg);

    for (unsigned node = 0; node < fg.size(); ++node) {
      const UnitInfo &unit = units[node];
      if (unit.cls != UnitClass::Elementwise)
        continue;
      // Producers read directly, not through a view: a view of a value the
      // group computes would need that value at other indices.
      for (Value operand : fg.op(node)->getOperands()) {
        std::optional<unsigned> producer = fg.producer(operand);
        if (!producer || fg.find(*producer) == fg.find(node))
          continue;
        const UnitInfo &other = units[*producer];
        if (other.cls != UnitClass::Elementwise || other.space != unit.space ||
            other.priority != unit.priority)
          continue;
        if (!fg.readsDirectly(node, *producer) ||
            fg.resultsIfMerged(*producer, node) > kMaxTaskResults ||
            !fg.withinOpCap({*producer, node}) ||
            fg.wouldCreateCycle({*producer, node}))
          continue;
        fg.merge(*producer, node);
      }
    }
  }
};
} // namespace
