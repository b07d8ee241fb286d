//===- MatvecEmitter.h - split-K small-M matmul tasks -----------*- C++ -*-===//
//
// Tasks whose matmuls have a small M (at most kMatvecMaxM rows, the tile
// holding M whole, batch dims tiled by 1) are emitted in two phases:
//
//   phase 0, when a matmul's lhs is computed in the task (a prologue,
//     gpuos-fuse-matmul-prologues) and fits: the block evaluates it once
//     into shared memory [M][K] f32, then a barrier (a row op's rows along
//     K: its input, then each row's statistics, by a warp for rows of up to
//     256 and by the block for longer ones, then its values);
//   phase 1, per matmul: the block splits K. The tile's M x tn outputs are
//     accumulated in f32 registers and reduced across threads into shared
//     memory:
//     - rhs [.., K, N] ("n-lanes"): thread t owns V consecutive columns
//       (c = t % G, G = tn / V column groups, up to a 16-byte vector load
//       of the weight row when N is contiguous, at most 8 / M lanes) and
//       the K slice k = t / G, t / G + S, ... (S = blockDim / G); lanes of
//       one warp with the same columns combine with shuffles, warps through
//       shared memory: 8 slots, warps 8.. add into them in later rounds,
//       the slots summed in order in phase 2 (deterministic).
//     - transpose_rhs, rhs [.., N, K] ("k-lanes"): Lk lanes of a warp share a
//       column and cover consecutive K (vector loads of both operands), the
//       warp holds 32 / Lk columns at once and warps take column passes;
//       shuffles reduce each column, its first lane writes shared memory.
//   barrier;
//   phase 2: the ordinary element loop over the tile; a matmul evaluated at
//     the iteration index reads its value from shared memory, so fused
//     epilogue ops (bias, activations, residuals, casts) apply as usual.
//   barrier (the next tile of this block reuses shared memory).
//
// See docs/codegen.md, "Small-M matmul".
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_LIB_CONVERSION_GPUOSTONVVM_MATVECEMITTER_H
#define GPUOS_LIB_CONVERSION_GPUOSTONVVM_MATVECEMITTER_H

#include "TaskEmitter.h"

namespace gpuos::codegen {

/// Largest M (rows of the matmul result) the split-K strategy takes.
constexpr int64_t kMatvecMaxM = 16;
/// Shared-memory slots of warp partials (n-lanes); warps beyond that many
/// add into them in further rounds.
constexpr int64_t kMatvecSlots = 8;
/// Micro-batches through one weight share a K loop (each weight load feeds
/// all of them): at most kJamAccumulators f32 accumulators a thread; the
/// loop's copies halve while the accumulators plus every copy's operands
/// (in registers) exceed kJamRegisters.
constexpr int64_t kJamAccumulators = 32;
constexpr int64_t kJamRegisters = 72;
/// A jam's chunk rows (weight slice and staged lhs) are staged in shared
/// memory whole when all of K fits in kWeightStageBytes, else in chunks of
/// a power-of-two number of rows of at most half that, two buffers (one
/// in flight while the block computes on the other), when the task's
/// shared memory stays within kMatvecMaxStagedShared.
constexpr int64_t kWeightStageBytes = 32 * 1024;
/// (44 KiB: without an opt-in a launch gets 48 KiB of shared memory in
/// all, and the resident kernel's own static shared memory takes about
/// 3 KiB of it; the runtime now opts in when static and dynamic shared
/// memory together pass 48 KiB. A 64 KiB budget was measured and not
/// kept: docs/codegen.md.)
constexpr int64_t kMatvecMaxStagedShared = 44 * 1024;
/// Staged rows (a row op as the lhs): rows up to this long are folded by a
/// warp each (8 positions a lane), longer ones by the whole block, whose
/// warp partials take two slots of 32 f32 after the rows' statistics.
constexpr int64_t kWarpRowLength = 256;
constexpr int64_t kRowFoldSlotBytes = 2 * 32 * 4;

/// The row op whose result is `op`'s lhs with its rows along K (a softmax
/// over the last axis, layer_norm, rms_norm; f32 compute), or null: the
/// lowering stages its rows (phase 0), so a task holding one is lowered
/// here rather than by the row strategy.
mlir::Operation *rowPrologue(MatmulOp op);

class MatvecEmitter {
public:
  explicit MatvecEmitter(TaskEmitter &task);
  static bool applies(TaskEmitter &task);
  mlir::LogicalResult emit();

private:
  struct Plan {
    MatmulOp op;
    int64_t k = 0;
    bool kLanes = false;  // transpose_rhs: lanes along K
    unsigned vector = 1;  // V
    unsigned groups = 1;  // G (n-lanes) or Lk (k-lanes)
    unsigned unroll = 1;  // copies of the K loop body
    int64_t sharedOffset = 0; // bytes
    /// The lhs staged in shared memory as [M][K] f32 (a prologue computes
    /// it, docs/codegen.md): its byte offset, or -1 when the K loop reads
    /// it where it is.
    int64_t lhsOffset = -1;
    bool stages = true; // false: an earlier plan stages the same lhs
    /// A row op (softmax along K, layer_norm, rms_norm) whose result is the
    /// staged lhs: its rows are staged in three passes (emitStagedRows),
    /// its statistics at statsOffset ([M][2] f32, then the warp partials'
    /// slots). Null: none.
    mlir::Operation *rowOp = nullptr;
    int64_t statsOffset = -1;
  };
  const Plan *planOf(MatmulOp op) const;
  /// Phase 0: every staged lhs evaluated once per tile into shared memory.
  mlir::LogicalResult emitStagedLhs();
  /// Phase 0 for a row op's rows: its input staged, each row's statistics
  /// folded from there (by a warp, or the block for long rows), then the
  /// row op's values in place.
  mlir::LogicalResult emitStagedRows(const Plan &plan);
  /// Runs `body` for each element e = row * K + k of `plan`'s lhs in the
  /// tile, thread t taking e = t, t + blockDim, ... (one lane, a memo scope
  /// each), with the element's lhs index and row.
  mlir::LogicalResult forEachLhsElement(
      const Plan &plan,
      llvm::function_ref<mlir::LogicalResult(mlir::Value element, const Index &index,
                                             mlir::Value row)>
          body);
  /// Where element `element` of `plan`'s staged lhs lies in shared memory.
  mlir::Value lhsElementPtr(const Plan &plan, mlir::Value element);
  mlir::LogicalResult emitAll(bool vectors);
  /// n-lanes plans that share one K loop (a "jam": each weight load feeds
  /// all of them): same weight, K and column split, at most
  /// kJamAccumulators accumulators a thread.
  struct Group {
    llvm::SmallVector<unsigned> members; // indices into plans
    /// The tile's weight slice staged in shared memory by cp.async, in
    /// `chunks` chunks of `chunkRows` K rows of `rowBytes` bytes in
    /// `buffers` buffers (planStage), or chunkRows 0: read where it is.
    int64_t chunkRows = 0, chunks = 0, buffers = 0, rowBytes = 0;
    /// Per member: its lhs's byte offset within a chunk buffer ([M][R]
    /// elements after the weight rows; -1: read where it is) and element
    /// bytes; and the bytes a K row takes in a buffer.
    llvm::SmallVector<int64_t> lhsOffsets, lhsBytes;
    int64_t perRowBytes = 0;
  };
  void formGroups();
  void planStage(Group &group) const;
  /// Element bytes of `plan`'s lhs when a chunk can stage it (an input
  /// through slices, contiguous along K in 16-byte pieces), else 0.
  int64_t stagedLhsBytes(const Plan &plan) const;
  /// The group's K loop copies: the plans' unroll, halved while the
  /// accumulators and every copy's operands exceed kJamRegisters.
  unsigned jamUnroll(const Group &group) const;
  mlir::LogicalResult emitNLanes(const Group &group);
  /// The group's K loop over its staged weight, chunk by chunk: chunk c + 1
  /// is in flight while the block computes on chunk c.
  using Body = llvm::function_ref<mlir::FailureOr<llvm::SmallVector<mlir::Value>>(
      llvm::ArrayRef<mlir::Value> ks, llvm::ArrayRef<mlir::Value> accs)>;
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  stagedKLoop(const Group &group, mlir::Value column, mlir::Value valid,
              mlir::Value slice, mlir::Value slices,
              llvm::ArrayRef<mlir::Value> zeros, Body body);
  /// cp.async of the weight rows of `chunk` into the staging `buffer`
  /// (a byte offset).
  void issueChunk(const Group &group, mlir::Value chunk, mlir::Value buffer);
  /// The same for member `member`'s lhs rows, and for everything a chunk
  /// holds.
  void issueLhsChunk(const Group &group, unsigned member, mlir::Value chunk,
                     mlir::Value buffer);
  void issueStage(const Group &group, mlir::Value chunk, mlir::Value buffer);
  /// The weight's V lanes at (this thread's columns, `k`) from the chunk
  /// being computed on.
  Lanes stagedWeight(MatmulOp op, const DimIndex &k, unsigned lanes);
  /// A jam's accumulators to its members' partials, reduced across the
  /// lanes that share columns by a reduce-scatter.
  void storeJamPartials(const Group &group, mlir::Value column,
                        llvm::ArrayRef<mlir::Value> accs);
  /// Stores `values` (value i at `entry(i)` in this warp's slot) from the
  /// lanes in `mask` (null: all): warps 0..7 store, warps 8.. add in later
  /// rounds behind barriers (blocks of more than 8 warps).
  void writePartialSlots(llvm::ArrayRef<mlir::Value> values, mlir::Value mask,
                         llvm::function_ref<mlir::Value(size_t)> entry);
  /// An n-lanes plan's accumulators to its shared-memory partials.
  void storeNPartials(const Plan &plan, mlir::Value column,
                      llvm::ArrayRef<mlir::Value> accs);
  mlir::LogicalResult emitKLanes(const Plan &plan);
  /// Runs `body(k)` for k = lower, lower + step, ... < upper, `unroll`
  /// copies per iteration, carrying `accs`.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  kLoop(mlir::Value upper, mlir::Value lower, mlir::Value step, unsigned unroll,
        llvm::ArrayRef<mlir::Value> accs, Body body);
  /// One K step's operands: the M lhs rows at `k` (`lhsLanes` lanes each)
  /// and the rhs at (`column`, `k`) (`rhsLanes` lanes).
  struct KStep {
    llvm::SmallVector<Lanes> lhsRows;
    Lanes rhs;
  };
  mlir::FailureOr<KStep> operandsAt(MatmulOp op, const DimIndex &column,
                                    const DimIndex &k, unsigned lhsLanes,
                                    unsigned rhsLanes);
  mlir::FailureOr<llvm::SmallVector<llvm::SmallVector<KStep>>>
  kStepsAt(llvm::ArrayRef<MatmulOp> ops, const DimIndex &column,
           llvm::ArrayRef<mlir::Value> ks, int64_t kCoef, int64_t kDivisor,
           unsigned lhsLanes, unsigned rhsLanes);
  unsigned unrollFor(const Plan &plan) const;
  mlir::Value shuffleXor(mlir::Value value, int offset);
  mlir::Value sharedPtr(mlir::Value byteOffset);
  mlir::Value i32(int64_t value);
  mlir::Value toI32(mlir::Value index);
  void barrier();
  /// phase 2: the matmul value at `index` from shared memory, or empty.
  Lanes precomputed(MatmulOp op, const Index &index);

  TaskEmitter &t;
  mlir::ImplicitLocOpBuilder &b;
  llvm::SmallVector<Plan> plans;
  llvm::SmallVector<Group> groups;
  /// The staged K loop being emitted: its group, the chunk being computed
  /// on (first K row, buffer byte offset), this thread's first column in
  /// bytes.
  struct StageState {
    const Group *group = nullptr; // null: no staged K loop is being emitted
    mlir::Value firstRow, buffer, columnByte;
    unsigned member = 0; // the group member whose operands are emitted
    /// The weight lanes loaded at a K position (its Value), shared by the
    /// group's members.
    llvm::DenseMap<mlir::Value, Lanes> weights;
  } stage;
  int64_t rank = 0, m = 0, n = 0, tn = 0, sharedBytes = 0;
  /// Shared memory without the weight stages; stageOffset: theirs (-1:
  /// none).
  int64_t unstagedBytes = 0, stageOffset = -1;
  mlir::Value sharedBase, tid, laneId, warpId, numWarps;
};

} // namespace gpuos::codegen

#endif // GPUOS_LIB_CONVERSION_GPUOSTONVVM_MATVECEMITTER_H
