//===- TiledMatmulEmitter.h - matmul tiles staged in shared memory -*- C++ -*-===//
//
// Tasks whose matmuls the split-K strategy does not take (tiles of more
// than kMatvecMaxM rows, or rows cut across tiles: attention's 32 x 64 by
// 64 x 32 scores, the sharing benchmark's 512 x 256 x 256 matmul). Each
// output element used to run its own serial K loop, every step a load
// from global memory that the next fold waits for. Instead, per matmul:
//
//   the tile's products [tm][tn] f32 in shared memory are zeroed; then for
//   each chunk of kc K positions:
//     stage: the chunk's lhs rows [tm][kc] and rhs columns [kc][tn] are
//       evaluated once into shared memory (f32; a computed lhs or rhs is
//       computed there once), thread t taking elements t, t + blockDim,
//       ... in the order of the operand's contiguous axis so the loads
//       coalesce, up to eight in flight a thread; rows, columns and K
//       positions past the operands' ends stage zeros;
//     barrier; each thread folds the chunk into one column of up to 8
//       rows of the products (one rhs load a K position feeds all rows;
//       16-byte lhs loads of four K positions); barrier.
//
// Then the element loop as in the split-K strategy reads each matmul's
// value from its products, so fused epilogues (bias, activations,
// residuals, casts) apply unchanged. See docs/codegen.md, "Tiled matmul".
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_LIB_CONVERSION_GPUOSTONVVM_TILEDMATMULEMITTER_H
#define GPUOS_LIB_CONVERSION_GPUOSTONVVM_TILEDMATMULEMITTER_H

#include "TaskEmitter.h"

namespace gpuos::codegen {

/// Shared memory the strategy may declare: products and one chunk's
/// stage (two blocks share an SM under the default 48 KiB limit).
constexpr int64_t kTiledMaxShared = 32 * 1024;
/// The fewest K positions a chunk stages; a tile that cannot stage that
/// many beside its products keeps the serial loop.
constexpr int64_t kTiledMinChunk = 8;
/// Loads a thread keeps in flight while staging, and rows of one column it
/// folds at once (registers).
constexpr int64_t kTiledStageCopies = 8;
constexpr int64_t kTiledFoldRows = 8;

class TiledMatmulEmitter {
public:
  explicit TiledMatmulEmitter(TaskEmitter &task);
  static bool applies(TaskEmitter &task);
  mlir::LogicalResult emit();

private:
  struct Plan {
    MatmulOp op;
    int64_t k = 0;     // K
    int64_t chunk = 0; // kc: K positions staged at once
    int64_t productsOffset = 0; // bytes
  };
  const Plan *planOf(MatmulOp op) const;
  mlir::LogicalResult emitProducts(const Plan &plan);
  /// Chunk [k0, k0 + kc) of the lhs (`isLhs`: [tm][kc]) or rhs ([kc][tn])
  /// into the stage.
  mlir::LogicalResult stageOperand(const Plan &plan, bool isLhs, mlir::Value k0);
  /// Adds the staged chunk's contribution to the products of this thread's
  /// units (a column of up to kTiledFoldRows rows each).
  void foldChunk(const Plan &plan);
  /// The element loop's read of a matmul value (TaskEmitter::precomputedMatmul).
  Lanes precomputed(MatmulOp op, const Index &index);
  /// f32 element `element` of the shared-memory array at byte `offset`.
  mlir::Value sharedF32(int64_t offset, mlir::Value element);
  mlir::Value loadShared(int64_t offset, mlir::Value element);

  TaskEmitter &t;
  mlir::ImplicitLocOpBuilder &b;
  llvm::SmallVector<Plan> plans;
  int64_t rank = 0, m = 0, n = 0, tm = 0, tn = 0;
  int64_t stageOffset = 0, sharedBytes = 0;
  mlir::Value sharedBase;
};

} // namespace gpuos::codegen

#endif // GPUOS_LIB_CONVERSION_GPUOSTONVVM_TILEDMATMULEMITTER_H
