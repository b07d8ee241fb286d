//===- FuseSharedWeights.cpp - micro-batch matmuls through one weight -----===//
//
// Matmuls that read the same rhs value with lhs operands of one type and the
// same transpose flags become one task holding one matmul per micro-batch,
// all reading the same rhs argument. Their results share one shape, the
// task's iteration space; the tile rule keeps the whole M axis in a tile, so
// each block of weight columns is loaded once for every micro-batch.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"
#include "gpuos/Dialect/Gpuos/Transforms/Passes.h"

#include <limits>

namespace gpuos {
#define GEN_PASS_DEF_GPUOSFUSESHAREDWEIGHTS
#include "gpuos/Dialect/Gpuos/Passes.h.inc"
} // namespace gpuos

using namespace mlir;
using namespace gpuos;
using namespace gpuos::fusion;

namespace {
struct FuseSharedWeights
    : gpuos::impl::GpuosFuseSharedWeightsBase<FuseSharedWeights> {
  using GpuosFuseSharedWeightsBase::GpuosFuseSharedWeightsBase;

  void runOnOperation() override {
    if (failed(fuseGraph(getOperation(), [&](FusionGraph &fg) { fuse(fg); })))
      signalPassFailure();
  }

  void fuse(FusionGraph &fg) {
    unsigned limit = std::max(1u, static_cast<unsigned>(maxMatmuls));
    // Open groups by (rhs, lhs type, flags), most recent last.
    using Key = std::tuple<Value, Type, unsigned>;
    llvm::DenseMap<Key, SmallVector<unsigned>> open;
    for (unsigned node = 0; node < fg.size(); ++node) {
      auto matmul = dyn_cast<MatmulOp>(fg.op(node));
      if (!matmul || classifyUnit(matmul).cls != UnitClass::Matmul)
        continue;
      Key key{matmul.getRhs(), matmul.getLhs().getType(),
              unsigned(matmul.getTransposeLhs()) |
                  unsigned(matmul.getTransposeRhs()) << 1};
      // One matmul reading another's result would close a cycle; each
      // matmul has one result, so the result cap never binds here.
      joinNewestOpenGroup(fg, open[key], node, limit,
                          std::numeric_limits<unsigned>::max());
    }
  }
};
} // namespace
