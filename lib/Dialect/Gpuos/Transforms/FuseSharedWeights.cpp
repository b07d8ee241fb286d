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

  unsigned limit() const { return std::max(1u, static_cast<unsigned>(maxMatmuls)); }

  /// Most members of one task for a group of `count` small-M matmuls like
  /// `matmul` (one-wave): the fewest that (a) fit the group's tasks into one
  /// tile per worker block, counting one task's tiles as the tile rule gives
  /// a shared-weight task, and (b) leave each tile at least kSplitLhsBytes
  /// of lhs rows; then spread evenly over the tasks that makes. A group cut
  /// down to single matmuls is tiled as plain matmuls, with no more tiles.
  unsigned membersPerTask(MatmulOp matmul, unsigned count) const {
    auto lhsType = cast<StridedTensorType>(matmul.getLhs().getType());
    ArrayRef<int64_t> shape =
        cast<StridedTensorType>(matmul.getResult().getType()).getShape();
    std::optional<int64_t> lhsElements = lhsType.getNumElements();
    if (!oneWave || count <= 1 || shape.size() != 2 || !lhsElements ||
        *lhsElements < 1 || shape[0] < 1 || shape[0] > kSmallMatmulM ||
        shape[1] == kDynamic || shape[1] < 1)
      return count;
    int64_t tilesPerTask = llvm::divideCeil(
        shape[1], smallMatmulColumns(shape[0], shape[1], /*sharedWeight=*/true));
    int64_t tasksInAWave = std::max<int64_t>(1, kTileSpread / tilesPerTask);
    int64_t lhsBytes = *lhsElements * llvm::divideCeil(
        lhsType.getElementType().getIntOrFloatBitWidth(), 8);
    int64_t members = std::max(llvm::divideCeil(count, tasksInAWave),
                               llvm::divideCeil(kSplitLhsBytes, lhsBytes));
    if (members >= count)
      return count;
    return llvm::divideCeil(count, llvm::divideCeil(count, members));
  }

  /// Groups matmuls of one key in topological order, each into the newest
  /// open group it can join without a cycle, at most `limitOf(node)` a
  /// group.
  template <typename LimitFn>
  static void group(FusionGraph &fg, LimitFn limitOf) {
    llvm::DenseMap<Key, SmallVector<unsigned>> open; // newest last
    for (unsigned node = 0; node < fg.size(); ++node)
      if (std::optional<Key> key = keyOf(fg.op(node)))
        joinNewestOpenGroup(fg, open[*key], node, limitOf(node),
                            kMaxTaskResults);
  }

  void fuse(FusionGraph &fg) {
    // The groups max-matmuls alone would form (a weight read at two
    // dependent levels makes one group per level), then each cut into
    // tasks by the one-wave rule.
    if (fg.size() == 0)
      return;
    FusionGraph whole(*fg.op(0)->getBlock());
    group(whole, [&](unsigned) { return limit(); });
    group(fg, [&](unsigned node) {
      return membersPerTask(cast<MatmulOp>(fg.op(node)),
                            unsigned(whole.groupSize(node)));
    });
  }
};
} // namespace
