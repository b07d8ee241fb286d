//===- FuseReductions.cpp - prologues and epilogues of reductions ---------===//
//
// In topological order: a reduce, argmax, softmax, layer_norm or rms_norm
// takes in the elementwise units that produce its data operand, and theirs,
// when nothing outside the group reads them (the prologue); an elementwise
// unit over the anchor's result shape that reads the anchor's group joins
// it (the epilogue). Merges only ever join the current node with groups
// before it, which keeps FusionGraph's cycle check sound.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"
#include "gpuos/Dialect/Gpuos/Transforms/Passes.h"

namespace gpuos {
#define GEN_PASS_DEF_GPUOSFUSEREDUCTIONS
#include "gpuos/Dialect/Gpuos/Passes.h.inc"
} // namespace gpuos

using namespace mlir;
using namespace gpuos;
using namespace gpuos::fusion;

namespace {
struct FuseReductions
    : gpuos::impl::GpuosFuseReductionsBase<FuseReductions> {
  void runOnOperation() override {
    GraphOp graph = getOperation();
    Block &body = graph.getBodyBlock();
    if (failed(sortGraph(graph, "fused")))
      return signalPassFailure();
    FusionGraph fg(body);
    SmallVector<UnitInfo> units = classifyUnits(fg);
    // For the representative of each reduction group: its reduction unit.
    SmallVector<int> anchorOf(fg.size(), -1);

    for (unsigned node = 0; node < fg.size(); ++node) {
      const UnitInfo &unit = units[node];
      Operation *op = fg.op(node);
      if (unit.cls == UnitClass::Reduction) {
        unsigned leader = node;
        if (!isa<TaskOp>(op))
          leader = tryPrologue(fg, units, node);
        anchorOf[leader] = node;
        continue;
      }
      if (unit.cls != UnitClass::Elementwise || !fg.isAlone(node))
        continue;
      // Epilogue: the first reduction group read directly whose result
      // shape is this unit's iteration space.
      for (Value operand : op->getOperands()) {
        std::optional<unsigned> producer = fg.producer(operand);
        if (!producer)
          continue;
        unsigned leader = fg.find(*producer);
        if (anchorOf[leader] < 0)
          continue;
        const UnitInfo &anchor = units[anchorOf[leader]];
        if (anchor.space != unit.space || anchor.priority != unit.priority ||
            !fg.readsDirectly(node, leader) ||
            fg.resultsIfMerged(leader, node) > kMaxTaskResults ||
            fg.wouldCreateCycle({leader, node}))
          continue;
        int anchorNode = anchorOf[leader];
        anchorOf[fg.merge(leader, node)] = anchorNode;
        break;
      }
    }

    outlineMultiNodeGroups(graph, fg);
  }

  /// Merges into `anchor` the elementwise producer of its data operand,
  /// then their elementwise producers, while a producer computes exactly
  /// the data operand's shape and only the group reads it. Returns the
  /// representative of the anchor's group.
  static unsigned tryPrologue(FusionGraph &fg, ArrayRef<UnitInfo> units,
                              unsigned anchor) {
    Operation *anchorOp = fg.op(anchor);
    Value data = anchorOp->getOperand(0);
    ArrayRef<int64_t> dataShape =
        cast<StridedTensorType>(data.getType()).getShape();
    unsigned leader = anchor;
    SmallVector<Value> worklist = {data};
    while (!worklist.empty()) {
      std::optional<unsigned> producer = fg.producer(worklist.pop_back_val());
      if (!producer || !fg.isAlone(*producer))
        continue;
      const UnitInfo &unit = units[*producer];
      if (unit.cls != UnitClass::Elementwise ||
          ArrayRef<int64_t>(unit.space) != dataShape ||
          unit.priority != units[anchor].priority)
        continue;
      Operation *op = fg.op(*producer);
      if (!llvm::all_of(op->getUsers(), [&](Operation *user) {
            std::optional<unsigned> node = fg.nodeOf(user);
            return node && fg.find(*node) == leader;
          }) ||
          !fg.readsDirectly(leader, *producer))
        continue;
      // Only the group reads the producer, so no path leaves and comes
      // back; the check is cheap here and keeps the rule in one place.
      if (fg.wouldCreateCycle({*producer, leader}))
        continue;
      leader = fg.merge(*producer, leader);
      worklist.append(op->operand_begin(), op->operand_end());
    }
    return leader;
  }
};
} // namespace
