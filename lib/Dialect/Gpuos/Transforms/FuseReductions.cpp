//===- FuseReductions.cpp - prologues and epilogues of reductions ---------===//
//
// In topological order: a reduce, argmax, softmax, layer_norm or rms_norm
// takes in the elementwise units that produce its data operand, and theirs,
// when nothing outside the group reads them, or, for a row op, when others
// do too and the task writes them out (the prologue); an elementwise
// unit over the anchor's result shape that reads the anchor's group joins
// it (the epilogue). A row op (softmax over the innermost axis, layer_norm,
// rms_norm) whose data operand comes from the group of another row op over
// the same rows joins that group (a row chain, e.g. residual add + norm
// repeated): a tile holds whole rows, so the block computes the whole
// chain on its rows without writing the links out (RowEmitter keeps them
// in registers). Merges only ever join the current node with groups before
// it, which keeps FusionGraph's cycle check sound.
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
    if (failed(fuseGraph(getOperation(), [&](FusionGraph &fg) { fuse(fg); })))
      signalPassFailure();
  }

  void fuse(FusionGraph &fg) {
    SmallVector<UnitInfo> units = classifyUnits(fg);
    // For the representative of each reduction group: its (last)
    // reduction unit, and how many anchors the group holds.
    SmallVector<int> anchorOf(fg.size(), -1);
    SmallVector<unsigned> anchorsIn(fg.size(), 0);

    for (unsigned node = 0; node < fg.size(); ++node) {
      const UnitInfo &unit = units[node];
      Operation *op = fg.op(node);
      if (unit.cls == UnitClass::Reduction) {
        unsigned leader = node;
        anchorsIn[leader] = 1;
        if (!isa<TaskOp>(op)) {
          leader = tryPrologue(fg, units, node);
          anchorsIn[leader] = 1;
          leader = tryRowChain(fg, units, anchorOf, anchorsIn, node, leader);
        }
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
            !fg.withinOpCap({leader, node}) ||
            fg.wouldCreateCycle({leader, node}))
          continue;
        int anchorNode = anchorOf[leader];
        unsigned anchors = anchorsIn[leader];
        unsigned merged = fg.merge(leader, node);
        anchorOf[merged] = anchorNode;
        anchorsIn[merged] = anchors;
        break;
      }
    }
  }

  /// Merges the group `leader` of the row op `anchor` into the group of the
  /// row op that produces its data operand, when both are row chain links
  /// over the same rows with the same priority, the chain stays within
  /// maxRowOpsPerTask, and the merge keeps the graph acyclic and the task
  /// within kMaxTaskResults. Returns the representative of anchor's group.
  static unsigned tryRowChain(FusionGraph &fg, ArrayRef<UnitInfo> units,
                              ArrayRef<int> anchorOf,
                              MutableArrayRef<unsigned> anchorsIn,
                              unsigned anchor, unsigned leader) {
    Operation *op = fg.op(anchor);
    if (!isRowChainLink(op))
      return leader;
    std::optional<unsigned> producer = fg.producer(op->getOperand(0));
    if (!producer)
      return leader;
    unsigned other = fg.find(*producer);
    if (other == leader || anchorOf[other] < 0)
      return leader;
    Operation *link = fg.op(anchorOf[other]);
    if (!isRowChainLink(link) ||
        link->getOperand(0).getType() != op->getOperand(0).getType() ||
        units[anchorOf[other]].priority != units[anchor].priority ||
        anchorsIn[other] + anchorsIn[leader] > maxRowOpsPerTask(op) ||
        !fg.readsDirectly(leader, other) ||
        fg.resultsIfMerged(other, leader) > kMaxTaskResults ||
        !fg.withinOpCap({other, leader}) ||
        fg.wouldCreateCycle({other, leader}))
      return leader;
    unsigned anchors = anchorsIn[other] + anchorsIn[leader];
    unsigned merged = fg.merge(other, leader);
    anchorsIn[merged] = anchors;
    return merged;
  }

  /// True when `node` reads a value of a matmul unit directly (not through
  /// a view): it could be that matmul's epilogue.
  static bool readsProductDirectly(FusionGraph &fg, ArrayRef<UnitInfo> units,
                                   unsigned node) {
    return llvm::any_of(fg.op(node)->getOperands(), [&](Value operand) {
      std::optional<unsigned> producer = fg.producer(operand);
      return producer && units[*producer].cls == UnitClass::Matmul &&
             fg.readsDirectly(node, *producer);
    });
  }

  /// Merges into `anchor` the elementwise producer of its data operand,
  /// then their elementwise producers, while a producer computes exactly
  /// the data operand's shape and only the group reads it, or, for a row
  /// chain link, others read it too (it becomes a result of the task).
  /// Returns the representative of the anchor's group.
  static unsigned tryPrologue(FusionGraph &fg, ArrayRef<UnitInfo> units,
                              unsigned anchor) {
    Operation *anchorOp = fg.op(anchor);
    Value data = anchorOp->getOperand(0);
    ArrayRef<int64_t> dataShape =
        cast<StridedTensorType>(data.getType()).getShape();
    unsigned leader = anchor;
    bool exportsPrologue = isRowChainLink(anchorOp);
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
      bool onlyGroupReads = llvm::all_of(op->getUsers(), [&](Operation *user) {
        std::optional<unsigned> node = fg.nodeOf(user);
        return node && fg.find(*node) == leader;
      });
      // A row op's tile is whole rows of its operand's shape, which is
      // the producer's: the task computes every element of the producer
      // once and can write it out for other readers (the residual stream
      // of residual add + norm, which the next residual add reads). Not a
      // producer that reads a matmul's product directly: as that matmul's
      // epilogue (gpuos-fuse-matmul-epilogues) its tiles compute it in
      // parallel, where a norm's task of one row would compute it alone on
      // the critical path (decode sync +5 us over 8 norms, H200).
      if ((!onlyGroupReads &&
           (!exportsPrologue || readsProductDirectly(fg, units, *producer) ||
            fg.resultsIfMerged(*producer, leader) > kMaxTaskResults)) ||
          !fg.withinOpCap({*producer, leader}) ||
          !fg.readsDirectly(leader, *producer))
        continue;
      // A producer others read too (exported) may reach the group again
      // through them (a reduce of it that the group reads).
      if (fg.wouldCreateCycle({*producer, leader}))
        continue;
      leader = fg.merge(*producer, leader);
      worklist.append(op->operand_begin(), op->operand_end());
    }
    return leader;
  }
};
} // namespace
