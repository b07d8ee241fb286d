//===- BlockFold.h - folding a value across a warp and a block -*- C++ -*-===//
//
// The pieces of a block-wide fold that the row strategy (RowEmitter) and
// the matvec strategy's staged rows (MatvecEmitter) share: a butterfly of
// shuffles over a warp's 32 lanes, and every thread folding the warp
// totals that lane 0 of each warp stored in shared memory, in warp order
// (so every thread gets the same result, deterministic for a block size).
// Where the totals go, and the barrier between the stores and the loads,
// stay with the strategies (their slots differ).
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_LIB_CONVERSION_GPUOSTONVVM_BLOCKFOLD_H
#define GPUOS_LIB_CONVERSION_GPUOSTONVVM_BLOCKFOLD_H

#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace gpuos::codegen {

using FoldFn = llvm::function_ref<mlir::Value(mlir::Value, mlir::Value)>;

/// `value` from the lane `offset` away in a butterfly (shfl.sync.bfly over
/// the full warp); 8- and 16-bit values are widened, 64-bit ones go as two
/// halves.
mlir::Value shuffleXor(mlir::ImplicitLocOpBuilder &b, mlir::Value value, int offset);

/// `value` folded over each aligned group of `width` lanes (a power of two,
/// at most 32: the whole warp by default): every lane gets its group's
/// total.
mlir::Value foldWarp(mlir::ImplicitLocOpBuilder &b, mlir::Value value, FoldFn fold,
                     int width = 32);

/// The totals of warps 0 .. numWarps - 1 (i32), loaded as `type` from
/// `slot(warp)` (an i32 warp index -> a shared-memory pointer), folded in
/// warp order from `identity`.
mlir::Value foldStoredTotals(mlir::ImplicitLocOpBuilder &b, mlir::Type type, FoldFn fold,
                             mlir::Value identity, mlir::Value numWarps,
                             llvm::function_ref<mlir::Value(mlir::Value)> slot,
                             unsigned alignment);

} // namespace gpuos::codegen

#endif // GPUOS_LIB_CONVERSION_GPUOSTONVVM_BLOCKFOLD_H
