//===- MatvecEmitter.h - split-K small-M matmul tasks -----------*- C++ -*-===//
//
// Tasks whose matmuls have a small M (at most kMatvecMaxM rows, the tile
// holding M whole, batch dims tiled by 1) are emitted in two phases:
//
//   phase 0, when a matmul's lhs is computed in the task (a prologue,
//     gpuos-fuse-matmul-prologues) and fits: the block evaluates it once
//     into shared memory [M][K] f32, then a barrier;
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
  };
  const Plan *planOf(MatmulOp op) const;
  /// Phase 0: every staged lhs evaluated once per tile into shared memory.
  mlir::LogicalResult emitStagedLhs();
  mlir::LogicalResult emitAll(bool vectors);
  mlir::LogicalResult emitNLanes(const Plan &plan);
  mlir::LogicalResult emitKLanes(const Plan &plan);
  /// The operand index of `lhs` or `rhs` for the tile's batch position with
  /// the row (lhs) or column (rhs) dim `outer` and the K dim `k`.
  Index operandIndex(MatmulOp op, bool isLhs, const DimIndex &outer,
                     const DimIndex &k);
  /// Runs `body(k)` for k = lower, lower + step, ... < K, `unroll` copies
  /// per iteration, carrying `accs`.
  using Body = llvm::function_ref<mlir::FailureOr<llvm::SmallVector<mlir::Value>>(
      llvm::ArrayRef<mlir::Value> ks, llvm::ArrayRef<mlir::Value> accs)>;
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  kLoop(int64_t kSize, mlir::Value lower, mlir::Value step, unsigned unroll,
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
  mlir::FailureOr<llvm::SmallVector<KStep>>
  kStepsAt(MatmulOp op, const DimIndex &column, llvm::ArrayRef<mlir::Value> ks,
           int64_t kCoef, int64_t kDivisor, unsigned lhsLanes, unsigned rhsLanes);
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
  int64_t rank = 0, m = 0, n = 0, tn = 0, sharedBytes = 0;
  mlir::Value sharedBase, tid, laneId, warpId, numWarps;
};

} // namespace gpuos::codegen

#endif // GPUOS_LIB_CONVERSION_GPUOSTONVVM_MATVECEMITTER_H
