//===- FuseSharedWeights.cpp - micro-batch matmuls through one weight -----===//
//
// Matmuls that read the same rhs value with lhs operands of one type and the
// same transpose flags become one task holding one matmul per micro-batch,
// all reading the same rhs argument. Their results share one shape, the
// task's iteration space; the tile rule keeps the whole M axis in a tile, so
// each block of weight columns is loaded once for every micro-batch.
//
// A small-M group whose one task would leave worker blocks idle is split
// (option `one-wave`): a tile then reads the lhs rows of fewer micro-batches
// and finishes sooner, while the tasks side by side still fit one tile per
// worker block. Each split reads the weight once more, so the option trades
// throughput for latency (docs/passes.md).
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"
#include "gpuos/Dialect/Gpuos/Transforms/Passes.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace gpuos {
#define GEN_PASS_DEF_GPUOSFUSESHAREDWEIGHTS
#include "gpuos/Dialect/Gpuos/Passes.h.inc"
} // namespace gpuos

using namespace mlir;
using namespace gpuos;
using namespace gpuos::fusion;

namespace {
/// A split task's tiles each read at least this much of the micro-batches'
/// lhs rows: below it a tile is mostly its fixed cost, and halving its rows
/// saves less than the extra pass over the weight costs. On the H200 a
/// tile of eight 4 x 1024 f32 micro-batches (128 KiB of lhs, 32 KiB of
/// weight) took about 13 us; split in two (64 KiB each, 256 tiles in one
/// wave), the bench's mlp_microbatch went from 46.9 to 33.9 us sync, and in
/// four (32 KiB, two waves) to 42.8 (docs/passes.md).
constexpr int64_t kSplitLhsBytes = 64 * 1024;

struct FuseSharedWeights
    : gpuos::impl::GpuosFuseSharedWeightsBase<FuseSharedWeights> {
  using GpuosFuseSharedWeightsBase::GpuosFuseSharedWeightsBase;

  void runOnOperation() override {
    if (failed(fuseGraph(getOperation(), [&](FusionGraph &fg) { fuse(fg); })))
      signalPassFailure();
  }

  // Matmuls that may share a task: the same rhs, lhs type and flags.
  using Key = std::tuple<Value, Type, unsigned>;

  static std::optional<Key> keyOf(Operation *op) {
    auto matmul = dyn_cast<MatmulOp>(op);
    if (!matmul || classifyUnit(matmul).cls != UnitClass::Matmul)
      return std::nullopt;
    return Key{matmul.getRhs(), matmul.getLhs().getType(),
               unsigned(matmul.getTransposeLhs()) |
                   unsigned(matmul.getTransposeRhs()) << 1};
  }

  /// Most members of one task for `count` small-M matmuls like `matmul`:
  /// with `one-wave`, as many tasks as still fit one tile per worker block
  /// (the tile rule gives each the same tiles, whatever its member count)
  /// and leave each tile at least kSplitLhsBytes of lhs rows to read.
  unsigned membersPerTask(MatmulOp matmul, unsigned count) const {
    unsigned limit = std::max(1u, static_cast<unsigned>(maxMatmuls));
    auto lhsType = cast<StridedTensorType>(matmul.getLhs().getType());
    ArrayRef<int64_t> shape =
        cast<StridedTensorType>(matmul.getResult().getType()).getShape();
    std::optional<int64_t> lhsElements = lhsType.getNumElements();
    if (!oneWave || shape.size() != 2 || !lhsElements || shape[0] < 1 ||
        shape[0] > kSmallMatmulM || shape[1] == kDynamic)
      return limit;
    int64_t tilesPerTask = llvm::divideCeil(
        shape[1], smallMatmulColumns(shape[0], shape[1], /*sharedWeight=*/true));
    int64_t elementBytes = llvm::divideCeil(
        lhsType.getElementType().getIntOrFloatBitWidth(), 8);
    int64_t lhsBytes =
        int64_t(std::min(count, limit)) * *lhsElements * elementBytes;
    int64_t tasks = std::min(kTileSpread / tilesPerTask,
                             lhsBytes / kSplitLhsBytes);
    tasks = std::clamp<int64_t>(tasks, 1, count);
    return std::min<unsigned>(limit, llvm::divideCeil(count, tasks));
  }

  void fuse(FusionGraph &fg) {
    llvm::DenseMap<Key, unsigned> count;
    for (unsigned node = 0; node < fg.size(); ++node)
      if (std::optional<Key> key = keyOf(fg.op(node)))
        ++count[*key];
    // Open groups by key, most recent last.
    llvm::DenseMap<Key, SmallVector<unsigned>> open;
    for (unsigned node = 0; node < fg.size(); ++node) {
      std::optional<Key> key = keyOf(fg.op(node));
      if (!key)
        continue;
      unsigned limit =
          membersPerTask(cast<MatmulOp>(fg.op(node)), count.lookup(*key));
      // One matmul reading another's result would close a cycle; each
      // matmul has one result, so the result cap never binds here.
      joinNewestOpenGroup(fg, open[*key], node, limit,
                          std::numeric_limits<unsigned>::max());
    }
  }
};
} // namespace
