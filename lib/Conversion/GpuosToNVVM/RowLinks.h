//===- RowLinks.h - runs of same-shaped links in a row chain ----*- C++ -*-===//
//
// A row chain (gpuos-fuse-reductions) is a task whose row ops each read
// the previous one's result: h = rms_norm(h + d[i]) * w[i], sixteen times.
// Emitted straight-line, every link's instructions run once per tile, and
// fetching them bounds the chain on the H200 (docs/codegen.md,
// "Look-ahead"). A run of links that differ only in where their slices
// start (by the same amount per link) is emitted instead as a loop over the
// link index (RowEmitter::emitLinkLoop): this file finds such runs.
//
// Link k (k >= 1) is row op k and the ops feeding it, back to row op k-1's
// result (`prev`) and the task's inputs. Links k and k+1 match when their
// ops correspond one for one: same name, result types and attributes, and
// operands that are the corresponding op's, prev, or the same outside value;
// a slice's `starts` may differ, by a delta that stays the same along the
// run. Only what the loop can evaluate is accepted: the ops computed from
// prev are elementwise ops reading it at their own index (no broadcast or
// view on the way), so prev is only ever read where the loop carries it; the
// link's other ops are views, elementwise ops and constants used only inside
// the link.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_LIB_CONVERSION_GPUOSTONVVM_ROWLINKS_H
#define GPUOS_LIB_CONVERSION_GPUOSTONVVM_ROWLINKS_H

#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

namespace gpuos::codegen {

/// Links rowOps[first, end) of one task, at least kMinLinkRun of them, that
/// are link `first` with its slices moved by (k - first) * delta.
struct LinkRun {
  unsigned first = 0, end = 0;
  /// The slices of link `first` that move, and their per-link delta.
  llvm::SmallVector<std::pair<SliceOp, llvm::SmallVector<int64_t>>> slices;
  /// Link `first`'s values computed from prev (prev not included).
  llvm::DenseSet<mlir::Value> fromPrev;
};

/// Fewer links than this stay straight-line (the loop's bookkeeping is not
/// worth it).
constexpr unsigned kMinLinkRun = 3;

/// The maximal runs of matching links among `rowOps` (the task's row ops in
/// body order), in order and disjoint.
llvm::SmallVector<LinkRun> findLinkRuns(llvm::ArrayRef<mlir::Operation *> rowOps);

} // namespace gpuos::codegen

#endif // GPUOS_LIB_CONVERSION_GPUOSTONVVM_ROWLINKS_H
