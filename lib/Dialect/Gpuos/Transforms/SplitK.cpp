//===- SplitK.cpp - more tiles for small-M matmuls with long K ------------===//
//
// A small-M matmul's tiles are column blocks with M and K whole, so a
// decode projection with N = 1024 has 64 tiles: 64 blocks each streaming
// a 1024- or 2816-row strip of the weight while the rest of the device
// idles. Splitting K into S slices gives S times the tiles, each reading
// 1/S of the strip, and costs S - 1 adds of M x N partial products, which
// the fusion passes put into the product's consumer. docs/passes.md,
// "Split K", has the rule and the H200 figures.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"
#include "gpuos/Dialect/Gpuos/Transforms/Passes.h"
#include "mlir/IR/Builders.h"

namespace gpuos {
#define GEN_PASS_DEF_GPUOSSPLITK
#include "gpuos/Dialect/Gpuos/Passes.h.inc"
} // namespace gpuos

using namespace mlir;
using namespace gpuos;
using namespace gpuos::fusion;

namespace {

/// A matmul the pass may split: [M, K] x [K, N] with static shapes,
/// 1 <= M <= kSmallMatmulM, f32 throughout (f16/bf16 partial products
/// would be rounded before they are summed), contiguous operands (they are
/// reshaped), and a weight no other matmul reads (micro-batches through a
/// shared weight are tiled together instead).
bool isSplittable(MatmulOp matmul) {
  StridedTensorType lhs = typeOf(matmul.getLhs()), rhs = typeOf(matmul.getRhs());
  if (matmul.getTransposeLhs() || matmul.getTransposeRhs() || lhs.getRank() != 2 ||
      rhs.getRank() != 2 || !lhs.hasStaticShape() || !rhs.hasStaticShape() ||
      !lhs.isContiguous() || !rhs.isContiguous() || !lhs.getElementType().isF32() ||
      !rhs.getElementType().isF32())
    return false;
  int64_t m = lhs.getShape()[0];
  if (m < 1 || m > kSmallMatmulM)
    return false;
  // Also through a task written by hand before the pipeline.
  return llvm::all_of(matmulsReading(matmul.getRhs(), 1),
                      [&](MatmulOp reader) { return reader == matmul; });
}

/// Tiles the tile rule gives a small-M [M, K] x [K, N] matmul.
int64_t tilesOf(MatmulOp matmul) {
  ArrayRef<int64_t> result = typeOf(matmul.getResult()).getShape();
  int64_t m = result[0], n = result[1];
  return llvm::divideCeil(n, smallMatmulColumns(m, n, /*sharedWeight=*/false));
}

/// Rewrites `matmul` as `slices` matmuls over K slices (one batched
/// matmul) and the sum of their products.
void split(MatmulOp matmul, int64_t slices) {
  OpBuilder b(matmul);
  Location loc = matmul.getLoc();
  ArrayRef<int64_t> lhsShape = typeOf(matmul.getLhs()).getShape();
  int64_t m = lhsShape[0], k = lhsShape[1], n = typeOf(matmul.getRhs()).getShape()[1];
  int64_t slice = k / slices;
  // lhs [M, K] -> [M, S, K/S] -> [S, M, K/S] (a view; for M = 1 the
  // reshape alone).
  Value lhs;
  if (m == 1) {
    lhs = ReshapeOp::create(b, loc, matmul.getLhs(), ArrayRef<int64_t>{slices, 1, slice});
  } else {
    Value rows = ReshapeOp::create(b, loc, matmul.getLhs(), ArrayRef<int64_t>{m, slices, slice});
    lhs = TransposeOp::create(b, loc, rows, ArrayRef<int64_t>{1, 0, 2});
  }
  Value rhs = ReshapeOp::create(b, loc, matmul.getRhs(), ArrayRef<int64_t>{slices, slice, n});
  Value products = MatmulOp::create(b, loc, lhs, rhs, false, false);
  SmallVector<Value> terms;
  for (int64_t s = 0; s < slices; ++s) {
    Value part = SliceOp::create(b, loc, products, ArrayRef<int64_t>{s, 0, 0},
                                 ArrayRef<int64_t>{1, m, n}, ArrayRef<int64_t>{1, 1, 1});
    terms.push_back(ReshapeOp::create(b, loc, part, ArrayRef<int64_t>{m, n}));
  }
  // A balanced tree: log2(S) dependent adds.
  while (terms.size() > 1) {
    SmallVector<Value> next;
    for (size_t i = 0; i + 1 < terms.size(); i += 2)
      next.push_back(AddOp::create(b, loc, terms[i], terms[i + 1]));
    if (terms.size() % 2)
      next.push_back(terms.back());
    terms = std::move(next);
  }
  matmul.getResult().replaceAllUsesWith(terms.front());
  matmul.erase();
}

struct SplitK : gpuos::impl::GpuosSplitKBase<SplitK> {
  using GpuosSplitKBase::GpuosSplitKBase;

  void runOnOperation() override {
    if (maxTiles <= 0)
      return;
    // The matmuls reading one lhs run side by side (q, k and v; gate and
    // up), so their tiles count together.
    llvm::MapVector<Value, SmallVector<MatmulOp>> byLhs;
    for (MatmulOp matmul : getOperation().getBodyBlock().getOps<MatmulOp>())
      byLhs[matmul.getLhs()].push_back(matmul);
    // Decide first: a split erases its matmul, whose result may be
    // another group's lhs.
    SmallVector<std::pair<MatmulOp, int64_t>> splits;
    for (auto &[lhs, matmuls] : byLhs) {
      if (!llvm::all_of(matmuls, isSplittable))
        continue;
      int64_t tiles = 0;
      for (MatmulOp matmul : matmuls)
        tiles += tilesOf(matmul);
      int64_t k = typeOf(lhs).getShape()[1];
      int64_t slices = 1;
      while (tiles * slices * 2 <= maxTiles && k % (slices * 2) == 0 &&
             k / (slices * 2) >= std::max<int64_t>(minKSlice, 1))
        slices *= 2;
      if (slices < 2)
        continue;
      for (MatmulOp matmul : matmuls)
        splits.emplace_back(matmul, slices);
    }
    for (auto [matmul, slices] : splits)
      split(matmul, slices);
  }
};
} // namespace
