//===- TaskABI.cpp - the image ABI of one task ----------------------------===//

#include "gpuos/Conversion/TaskABI.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace gpuos;

std::string gpuos::taskFunctionName(StringRef kind) {
  return ("gpuos_task_" + kind).str();
}

std::string gpuos::taskLauncherName(StringRef kind) {
  return ("gpuos_launch_" + kind).str();
}

bool gpuos::isCIdentifier(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name.drop_front(),
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

SmallVector<TaskOp> gpuos::imageTaskOrder(ModuleOp module) {
  SmallVector<TaskOp> order;
  module.walk([&](GraphOp graph) {
    SmallVector<TaskOp> pending;
    for (Operation &op : graph.getBodyBlock().without_terminator())
      if (auto task = dyn_cast<TaskOp>(op))
        pending.push_back(task);
    llvm::SmallPtrSet<Operation *, 16> placed;
    // Graph bodies may be written in any order: repeatedly take the first
    // task whose task producers are all placed.
    while (!pending.empty()) {
      auto ready = llvm::find_if(pending, [&](TaskOp task) {
        return llvm::all_of(task.getInputs(), [&](Value input) {
          Operation *producer = input.getDefiningOp();
          return !isa_and_nonnull<TaskOp>(producer) || placed.contains(producer);
        });
      });
      if (ready == pending.end())
        ready = pending.begin(); // a cycle: the verifier rejects it anyway
      placed.insert(*ready);
      order.push_back(*ready);
      pending.erase(ready);
    }
  });
  return order;
}

/// Whether a static view's element count and largest offset fit in int64
/// (the emitter indexes with them; an overflow wrapped below 2^30 and
/// picked 32-bit indexing with truncated strides).
static bool addressable(StridedTensorType type) {
  int64_t count = 1, span = 1;
  for (auto [size, stride] :
       llvm::zip(type.getShape(), type.getEffectiveStrides())) {
    int64_t reach = 0;
    if (llvm::MulOverflow(size, count, count) ||
        (size > 0 && (llvm::MulOverflow(size - 1, stride < 0 ? -stride : stride, reach) ||
                      llvm::AddOverflow(span, reach, span))))
      return false;
  }
  return true;
}

/// ABI v0 reserves dynamic slots for `?` sizes and strides; until the
/// lowering reads them, a dynamic type is rejected with this message.
static LogicalResult checkStatic(TaskOp task, StridedTensorType type,
                                 StringRef what, unsigned index) {
  if (type.hasStaticShape() && !llvm::is_contained(type.getStrides(), kDynamic)) {
    if (addressable(type))
      return success();
    return task.emitOpError() << what << " #" << index << " has type " << type
                              << "; its elements or offsets do not fit in "
                                 "64 bits";
  }
  return task.emitOpError() << what << " #" << index << " has type " << type
                            << "; dynamic sizes and strides are not lowered "
                               "yet (ABI dynamic slots)";
}

/// The emitter reads sizes and strides from the types of every value in the
/// body, not only the inputs: a `?` inside (a reshape to [2, ?] of a static
/// input, which Partition clones into the task of its user) would be read
/// as a size of INT64_MIN and compute garbage, so it is rejected at the op.
static LogicalResult checkStaticBody(TaskOp task) {
  WalkResult walk = task.getBody().walk([&](Operation *op) {
    for (auto [index, value] : llvm::enumerate(op->getResults())) {
      auto type = dyn_cast<StridedTensorType>(value.getType());
      if (!type || (type.hasStaticShape() &&
                    !llvm::is_contained(type.getStrides(), kDynamic) &&
                    addressable(type)))
        continue;
      if (type.hasStaticShape() && !llvm::is_contained(type.getStrides(), kDynamic)) {
        op->emitOpError() << "result #" << index << " has type " << type
                          << " in task '" << task.getKind()
                          << "'; its elements or offsets do not fit in 64 bits";
        return WalkResult::interrupt();
      }
      op->emitOpError() << "result #" << index << " has type " << type
                        << " in task '" << task.getKind()
                        << "'; dynamic sizes and strides are not lowered yet "
                           "(ABI dynamic slots): give the op static sizes";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

FailureOr<TaskABI> TaskABI::get(TaskOp task) {
  TaskABI abi;
  abi.kind = task.getKind().str();
  if (!isCIdentifier(abi.kind))
    return task.emitOpError() << "kind '" << abi.kind
                              << "' is not a C identifier; it names the "
                                 "device function gpuos_task_<kind>";
  abi.function = taskFunctionName(abi.kind);
  abi.launcher = taskLauncherName(abi.kind);
  for (auto [index, value] : llvm::enumerate(task.getInputs())) {
    auto type = cast<StridedTensorType>(value.getType());
    if (failed(checkStatic(task, type, "input", index)))
      return failure();
    abi.buffers.push_back(type);
  }
  abi.numInputs = abi.buffers.size();
  for (auto [index, value] : llvm::enumerate(task.getResults())) {
    auto type = cast<StridedTensorType>(value.getType());
    if (failed(checkStatic(task, type, "result", index)))
      return failure();
    abi.buffers.push_back(type);
  }
  if (failed(checkStaticBody(task)))
    return failure();
  auto first = cast<StridedTensorType>(task.getResult(0).getType());
  abi.iterShape.assign(first.getShape().begin(), first.getShape().end());
  // A tile larger than its dimension covers the dimension: clamped, so the
  // emitters' tile arithmetic stays within the shape (a tile of 2^32 was
  // truncated to 32 bits and wrote one element; one of 2^31 - 1 looped
  // forever).
  for (auto [size, tile] : llvm::zip(abi.iterShape, task.getTile()))
    abi.tile.push_back(std::min(tile, std::max<int64_t>(size, 1)));
  int64_t tileElements = 1;
  for (int64_t tile : abi.tile)
    tileElements *= tile; // each at most its dimension: no overflow
  if (tileElements > (int64_t(1) << 30))
    return task.emitOpError() << "has tiles of " << tileElements
                              << " elements; a tile is one block's work, at "
                                 "most 2^30 elements (indexed in 32 bits)";
  abi.numTiles = 1;
  for (auto [size, tile] : llvm::zip(abi.iterShape, abi.tile)) {
    abi.tilesPerDim.push_back(llvm::divideCeil(size, tile));
    abi.numTiles *= abi.tilesPerDim.back();
  }
  if (abi.numTiles > std::numeric_limits<int32_t>::max())
    return task.emitOpError() << "has " << abi.numTiles
                              << " tiles; the ABI numbers tiles with a 32-bit "
                                 "unsigned int below 2^31";
  return abi;
}
