//===- FuseHorizontal.cpp - independent units of one iteration space ------===//
//
// Elementwise units merge with elementwise units, reduction units with
// reduction units, when their iteration spaces, whole axes, priorities and
// levels agree. A unit's level is the longest chain of compute units from
// the graph inputs to it (views and constants count zero): a path between
// two units raises the level, so units of one level are independent and
// start together, and merging them delays neither.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"
#include "gpuos/Dialect/Gpuos/Transforms/Passes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

namespace gpuos {
#define GEN_PASS_DEF_GPUOSFUSEHORIZONTAL
#include "gpuos/Dialect/Gpuos/Passes.h.inc"
} // namespace gpuos

using namespace mlir;
using namespace gpuos;
using namespace gpuos::fusion;

namespace {
struct FuseHorizontal : gpuos::impl::GpuosFuseHorizontalBase<FuseHorizontal> {
  using GpuosFuseHorizontalBase::GpuosFuseHorizontalBase;

  void runOnOperation() override {
    if (failed(fuseGraph(getOperation(), [&](FusionGraph &fg) { fuse(fg); })))
      signalPassFailure();
  }

  void fuse(FusionGraph &fg) {
    SmallVector<UnitInfo> units;
    SmallVector<unsigned> level(fg.size(), 0);
    for (unsigned node = 0; node < fg.size(); ++node) {
      units.push_back(classifyUnit(fg.op(node)));
      for (unsigned from : fg.predecessors(node))
        level[node] = std::max(
            level[node],
            level[from] + (units[from].cls == UnitClass::Free ? 0u : 1u));
    }

    // Open groups (any member node) by merge key, most recent last.
    llvm::StringMap<SmallVector<unsigned>> open;
    unsigned width = std::max(1u, static_cast<unsigned>(maxWidth));
    for (unsigned node = 0; node < fg.size(); ++node) {
      const UnitInfo &unit = units[node];
      if (unit.cls != UnitClass::Elementwise &&
          unit.cls != UnitClass::Reduction)
        continue;
      joinNewestOpenGroup(fg, open[keyOf(unit, level[node])], node, width,
                          kMaxTaskResults, [&](unsigned leader) {
                            return withinRowChainCap(fg, leader, node);
                          });
    }
  }

  /// Independent row chains side by side are one task's links as much as a
  /// chain is (the tile runs them all): the same cap holds for the sum.
  static bool withinRowChainCap(FusionGraph &fg, unsigned leader,
                                unsigned node) {
    unsigned links = rowChainLinks(fg.op(node));
    if (links == 0)
      return true;
    Operation *link = firstRowChainLink(fg.op(node));
    for (unsigned member : fg.members(leader))
      links += rowChainLinks(fg.op(member));
    return links <= maxRowOpsPerTask(link);
  }

  static Operation *firstRowChainLink(Operation *op) {
    if (auto task = dyn_cast<TaskOp>(op))
      for (Operation &inner : task.getBodyBlock().without_terminator())
        if (isRowChainLink(&inner))
          return &inner;
    return op;
  }

  static std::string keyOf(const UnitInfo &unit, unsigned level) {
    std::string key;
    llvm::raw_string_ostream os(key);
    os << static_cast<int>(unit.cls) << '|';
    llvm::interleave(unit.space, os, "x");
    os << '|';
    llvm::interleave(unit.wholeAxes, os, ",");
    os << '|' << unit.priority.getAsOpaquePointer() << '|' << level;
    return key;
  }
};
} // namespace
