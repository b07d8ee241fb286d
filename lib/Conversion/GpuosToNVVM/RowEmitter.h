//===- RowEmitter.h - block-cooperative row reductions ----------*- C++ -*-===//
//
// Tasks whose reductions run along the innermost axis of rows that a tile
// holds whole (softmax, layer_norm, rms_norm, reduce/argmax over the last
// axis) are emitted row by row:
//
//   for each row of the tile (the same trip count in every thread):
//     for each statistic, in body order:      (e.g. max, then sum of exp;
//                                              one pass for both on the
//                                              loop path: rowSoftmaxStats)
//       each thread folds a strided part of the row (vector loads),
//       warp shuffles combine the 32 partials of a warp,
//       lane 0 of each warp writes shared memory, one barrier,
//       every thread folds the warp partials in the same order;
//     threads write the row's elements using the statistics;
//     thread 0 writes the row's reduced results.
//
// Shared memory: two slots of 32 entries of 16 bytes, alternating between
// consecutive statistics so one barrier per statistic suffices (1 KiB,
// declared as the task's shared_bytes). See docs/codegen.md.
//
// Staged links: on the loop path a chain of row ops (block rows) keeps each
// link's row in shared memory after its statistics, in the compute type,
// each thread at its own chunks (every pass walks the row with the same
// chunks, so no barrier is needed); the next link reads it there instead
// of evaluating the chain from the task's inputs again, which made the
// loop copy's code grow with the square of the chain.
//
// Rows of at most 32 * 16 elements, and the rows of tiles that hold at
// least one row per warp, are instead shared by a warp, not the block: warp
// w takes rows w, w + numWarps, ... of the tile, its lanes fold their
// chunks (straight-line for short rows, else a loop strided by 32 lanes)
// and the butterfly of shuffles alone combines them (no shared memory, no
// barrier), so a tile of many rows runs numWarps rows at once instead of
// one at a time behind a barrier per statistic. Rows that need fewer than
// 32 lanes (at most 31 chunks: 124 f32) take the power of two of lanes they
// need, and a warp works on 32 / that many rows at once, its butterfly
// within each group.
//
// Longer rows that are still short (at most kMaxStraightElements per thread at the tuned block
// size) also get a straight-line copy, taken when blockDim is the tuned
// size: each thread's chunks of the row are at fixed positions, so every
// pass over the row is unrolled and shares one memo scope. The loads of a
// pass are issued together (one memory latency per pass, not one per
// chunk), and later passes and later row ops of the task reuse the values
// already in registers instead of loading them again: a chain of norms on
// one row costs one load of each input and a block reduction per
// statistic.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_LIB_CONVERSION_GPUOSTONVVM_ROWEMITTER_H
#define GPUOS_LIB_CONVERSION_GPUOSTONVVM_ROWEMITTER_H

#include "TaskEmitter.h"
#include "llvm/ADT/DenseSet.h"

namespace gpuos::codegen {

/// Bytes of dynamic shared memory a row task needs.
constexpr int64_t kRowSharedBytes = 2 * 32 * 16;

class RowEmitter {
public:
  explicit RowEmitter(TaskEmitter &task);
  /// True when the task reduces along the innermost axis of rows that its
  /// tiles hold whole, so the block can share the work of each row.
  static bool applies(TaskEmitter &task);
  mlir::LogicalResult emit();

private:
  /// Chunks of rowLanes elements each thread handles on the straight-line
  /// path (per lane in warp mode), or 0 when the row is too long for it.
  unsigned straightChunks() const;
  /// Threads that share a row: the tuned block size, or in warp mode the
  /// lanes the row's chunks need, a power of two up to 32 (rows of 32 f32
  /// take 8 lanes, so a warp works on four rows at once).
  int64_t rowGroupSize() const;
  /// Rows a warp works on at once (warp mode): 32 / rowGroupSize().
  int64_t rowsPerWarp() const { return warpRows ? 32 / rowGroupSize() : 1; }
  /// Lanes a warp's butterfly folds over: a row's group in warp mode.
  int foldWidth() const { return int(warpRows ? rowGroupSize() : 32); }
  /// Chunks per iteration of the loop path: 1 where the straight-line path
  /// serves the tuned block size, else up to 8.
  unsigned loopUnroll() const;
  mlir::LogicalResult emitRows(bool vectors);
  /// The row code with vector accesses behind an alignment check (and a
  /// scalar copy), as emitRows(true) / emitRows(false).
  mlir::LogicalResult emitAligned();
  mlir::LogicalResult emitRow(llvm::ArrayRef<mlir::Value> row);
  /// Loop path: writes row op `op`'s result at this thread's chunks of the
  /// current row into the staging buffer, which later passes then read
  /// instead of evaluating the chain up to it again.
  mlir::LogicalResult stageLink(mlir::Operation *op);
  /// The staged value's lanes at `index`, or none when `index` is not a
  /// chunk of the current row.
  Lanes loadStaged(mlir::Value value, const Index &index);
  mlir::Value stagedSlot(mlir::Value j, unsigned lane);
  /// Whether a later row op reads row op `k`'s result (through any ops).
  bool readLater(unsigned k) const;
  mlir::LogicalResult computeStats(mlir::Operation *op);
  /// Straight-line path: evaluates, at this thread's chunks, what stage
  /// `stage` (row op `stage`, or the full-row stores after the last) reads
  /// that does not wait for a statistic, so its loads are issued now.
  mlir::LogicalResult preloadStage(unsigned stage);
  mlir::LogicalResult preload(mlir::Value value, const Index &index);
  /// Folds `term` over the row in this thread (strided by the block), then
  /// across the block; returns the block-wide result in every thread.
  using Term = TaskEmitter::Term;
  using Fold = TaskEmitter::Fold;
  /// One chunk of a pass over the row: `j` is the chunk's first element,
  /// `valid` null or an i1 that is false where the chunk lies past the row
  /// (its loads then read the row's last chunk and must not count); gets
  /// the accumulators, returns the next ones.
  using ChunkStep = llvm::function_ref<mlir::FailureOr<llvm::SmallVector<mlir::Value>>(
      mlir::Value j, mlir::Value valid, mlir::ValueRange accs)>;
  /// A pass over this thread's chunks of the current row: a loop strided
  /// by the block (loopUnroll() chunks an iteration), or the straight-line
  /// chunks.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  forEachChunk(mlir::ValueRange init, ChunkStep step);
  mlir::FailureOr<mlir::Value> rowReduce(mlir::Value identity, Term term,
                                         Fold fold);
  /// One chunk's values folded from `identity` (all of it the identity when
  /// `valid`, if given, is false), then into `acc`.
  mlir::Value foldChunk(const Lanes &values, mlir::Value acc, mlir::Value identity,
                        Fold fold, mlir::Value valid);
  mlir::FailureOr<mlir::Value> rowArgmax(mlir::Value input);
  /// A reduce whose operand waits for no row op's statistics.
  bool isSiblingReduce(mlir::Operation *op) const;
  /// Loop path: the reduces of a row that wait for no statistics (a row's
  /// sum and max) fold in one pass over the row, an accumulator each, not a
  /// pass each; each then folds over the block as rowReduce's does.
  mlir::LogicalResult rowReduceSiblings(llvm::ArrayRef<mlir::Operation *> ops);
  /// Loop path: a softmax's max and sum of exp(x - max) in one pass over the
  /// row (the two-pass form read a long row three times with its output
  /// pass, this form twice): each thread keeps (max, sum) and rescales its
  /// sum when its max grows; the pairs merge across the warp and the block.
  mlir::LogicalResult rowSoftmaxStats(mlir::Operation *op);
  /// The block-wide part: warp shuffles, then shared memory.
  mlir::Value blockReduce(mlir::Value partial, Fold fold, mlir::Value identity);
  /// Folds two values that go together (argmax's value and index, the
  /// softmax's max and sum) as blockReduce folds one: `fold(a, b, otherA,
  /// otherB)` merges the pair (otherA, otherB) into (a, b).
  using PairFold = llvm::function_ref<std::pair<mlir::Value, mlir::Value>(
      mlir::Value, mlir::Value, mlir::Value, mlir::Value)>;
  std::pair<mlir::Value, mlir::Value> blockFoldPair(mlir::Value first, mlir::Value second,
                                                    mlir::Value initFirst,
                                                    mlir::Value initSecond, PairFold fold);
  mlir::Value shuffleXor(mlir::Value value, int offset);
  mlir::Value sharedSlot(unsigned entryOffsetBytes, mlir::Value warp);
  /// Lane 0 of each warp stores the warp's totals (8 bytes apart) into the
  /// next shared-memory slot, then the block waits; returns the slot's
  /// byte offset for reading them back.
  unsigned storeWarpTotals(mlir::ValueRange totals);
  void barrier();
  /// The row index with the innermost dim at `j` (lanes consecutive).
  Index rowIndex(mlir::Value j);

  TaskEmitter &t;
  mlir::ImplicitLocOpBuilder &b;
  llvm::SmallVector<mlir::Operation *> rowOps;
  /// Task values computed from some row op's result (they wait for its
  /// statistics); the look-ahead evaluates only the others.
  llvm::DenseSet<mlir::Value> rowDependent;
  llvm::SmallVector<int64_t> rowShape; // L: the leading dims of the rows
  int64_t rowLength = 0;               // N
  int64_t rowsPerTile = 1;             // rows a tile holds
  unsigned rowLanes = 1;
  mlir::Value sharedBase, laneId, warpId, numWarps;
  llvm::SmallVector<mlir::Value> currentRow;
  unsigned nextSlot = 0;
  /// The straight-line path is being emitted: the current row's chunks
  /// (first element, validity or null), computed once per row.
  bool straight = false;
  /// A warp, not the block, shares each row (short rows).
  bool warpRows = false;
  /// This thread's position in its row group, and (warp mode) its warp and
  /// the block's warp count, in the index type.
  mlir::Value rowThread, rowWarp, rowWarps;
  /// Several rows per warp: this lane's row among the warp's, and whether
  /// that row exists (null when every lane's does). A lane past the tile's
  /// rows or the tensor's reads the last row and stores nothing: its warp's
  /// shuffles need every lane.
  mlir::Value rowSlot, rowMask;
  llvm::SmallVector<std::pair<mlir::Value, mlir::Value>> chunks;
  /// Staged links (block rows with a chain of row ops): the buffer's
  /// element type (after the statistics slots; every link's compute type),
  /// and the row value in it (only on the loop path; reset for each row).
  bool stageLinks = false;
  mlir::Type stageType;
  mlir::Value staged;
  /// The first elements of this thread's chunks in the loop path's passes:
  /// the only positions of the buffer it wrote.
  llvm::DenseSet<mlir::Value> chunkStarts;
  /// Of those, the ones that may lie past the row, with their validity: a
  /// masked chunk reads the spare chunk after the row in the staging
  /// buffer, not the row's last chunk, which another thread writes.
  llvm::DenseMap<mlir::Value, mlir::Value> chunkValid;
};

} // namespace gpuos::codegen

#endif // GPUOS_LIB_CONVERSION_GPUOSTONVVM_ROWEMITTER_H
