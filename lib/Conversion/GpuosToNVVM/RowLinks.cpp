//===- RowLinks.cpp - runs of same-shaped links in a row chain ------------===//

#include "RowLinks.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include <optional>

using namespace mlir;
using namespace gpuos;
using namespace gpuos::codegen;

namespace {
/// Row op k, the previous row op's result, and the ops between them.
struct Link {
  Operation *rowOp = nullptr;
  Value prev;
  SmallVector<Operation *> body; // program order; rowOp last
  llvm::SmallPtrSet<Operation *, 8> members;
  DenseSet<Value> fromPrev;
};
} // namespace

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<StridedTensorType>(value.getType()).getShape();
}

/// Link of `rowOp` back to `prev`, or nothing when its ops are not all
/// ones the link loop can evaluate (module comment).
static std::optional<Link> collectLink(Operation *rowOp, Value prev) {
  // Row ops whose result is a row: the next link reads it element by
  // element.
  if (!isa<RmsNormOp, LayerNormOp, SoftmaxOp>(rowOp))
    return std::nullopt;
  Link link;
  link.rowOp = rowOp;
  link.prev = prev;
  link.members.insert(rowOp);
  SmallVector<Operation *> work{rowOp};
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      // prev, task inputs and constants (shared by the links alike) are
      // outside the link.
      if (operand == prev || !def || isa<ConstantOp>(def))
        continue;
      if (!def->hasTrait<gpuos::OpTrait::Elementwise>() && !def->hasTrait<gpuos::OpTrait::View>())
        return std::nullopt; // another row op, a matmul, ...
      if (link.members.insert(def).second)
        work.push_back(def);
    }
  }
  for (Operation &op : *rowOp->getBlock())
    if (link.members.contains(&op))
      link.body.push_back(&op);
  // The link's own values are read only inside it (the loop keeps none of
  // them for later).
  for (Operation *op : link.body)
    if (op != rowOp)
      for (Operation *user : op->getUsers())
        if (!link.members.contains(user))
          return std::nullopt;
  // What is computed from prev is read at prev's index all the way up.
  for (Operation *op : link.body) {
    auto dependent = [&](Value v) { return v == prev || link.fromPrev.contains(v); };
    if (llvm::none_of(op->getOperands(), dependent))
      continue;
    if (op == rowOp) {
      if (!dependent(op->getOperand(0)) ||
          llvm::any_of(op->getOperands().drop_front(), dependent))
        return std::nullopt; // a weight or bias computed from prev
      continue;
    }
    if (!op->hasTrait<gpuos::OpTrait::Elementwise>())
      return std::nullopt;
    for (Value operand : op->getOperands())
      if (dependent(operand) && shapeOf(operand) != shapeOf(op->getResult(0)))
        return std::nullopt; // a broadcast of prev
    link.fromPrev.insert(op->getResults().begin(), op->getResults().end());
  }
  if (rowOp->getOperand(0) != prev && !link.fromPrev.contains(rowOp->getOperand(0)))
    return std::nullopt; // not a chain: the row op does not read prev
  return link;
}

/// Whether `next` is `link` with its slices moved: on success `corr` maps
/// each op of `link` to its counterpart and `deltas` each slice to how far
/// its counterpart's starts lie from its own.
static bool matchLinks(const Link &link, const Link &next,
                       DenseMap<Operation *, Operation *> &corr,
                       DenseMap<Operation *, SmallVector<int64_t>> &deltas) {
  if (link.body.size() != next.body.size())
    return false;
  DenseMap<Value, Value> values;
  values[link.prev] = next.prev;
  for (auto [x, y] : llvm::zip(link.body, next.body)) {
    if (x->getName() != y->getName() ||
        x->getNumOperands() != y->getNumOperands() ||
        x->getResultTypes() != y->getResultTypes() ||
        x->getDiscardableAttrDictionary() != y->getDiscardableAttrDictionary())
      return false;
    if (auto slice = dyn_cast<SliceOp>(x)) {
      auto other = cast<SliceOp>(y);
      if (slice.getSizes() != other.getSizes() ||
          slice.getSteps() != other.getSteps())
        return false;
      SmallVector<int64_t> delta;
      for (auto [from, to] : llvm::zip(slice.getStarts(), other.getStarts()))
        delta.push_back(to - from);
      deltas[x] = std::move(delta);
    } else if (x->getPropertiesAsAttribute() != y->getPropertiesAsAttribute()) {
      return false;
    }
    for (auto [u, v] : llvm::zip(x->getOperands(), y->getOperands())) {
      auto it = values.find(u);
      // Inside the link: the counterpart; outside: the same value.
      if (it != values.end() ? it->second != v : u != v)
        return false;
    }
    for (auto [u, v] : llvm::zip(x->getResults(), y->getResults()))
      values[u] = v;
    corr[x] = y;
  }
  return true;
}

/// Whether every read of `value` after its link is at the index of the
/// row being emitted (stores of the row, a later row op's input, same-shaped
/// elementwise ops): the loop leaves it in registers at exactly those.
static bool readAtRowIndexOnly(Value value, ArrayRef<Operation *> rowOps) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (isa<YieldOp>(user))
      continue;
    if (use.getOperandNumber() == 0 && llvm::is_contained(rowOps, user))
      continue;
    if (!user->hasTrait<gpuos::OpTrait::Elementwise>() ||
        shapeOf(user->getResult(0)) != shapeOf(value) ||
        !readAtRowIndexOnly(user->getResult(0), rowOps))
      return false;
  }
  return true;
}

SmallVector<LinkRun> gpuos::codegen::findLinkRuns(ArrayRef<Operation *> rowOps) {
  size_t n = rowOps.size();
  SmallVector<std::optional<Link>> links(n);
  for (size_t k = 1; k < n; ++k)
    links[k] = collectLink(rowOps[k], rowOps[k - 1]->getResult(0));

  SmallVector<LinkRun> runs;
  for (size_t start = 1; start < n;) {
    if (!links[start]) {
      ++start;
      continue;
    }
    const Link &first = *links[start];
    // Each op of the first link -> its counterpart in the last matched one.
    DenseMap<Operation *, Operation *> current;
    for (Operation *op : first.body)
      current[op] = op;
    DenseMap<Operation *, SmallVector<int64_t>> runDeltas;
    size_t end = start + 1;
    for (; end < n && links[end]; ++end) {
      DenseMap<Operation *, Operation *> corr;
      DenseMap<Operation *, SmallVector<int64_t>> deltas;
      if (!matchLinks(*links[end - 1], *links[end], corr, deltas))
        break;
      // prev is the loop's register copy: nothing else may read it.
      Value prev = links[end]->prev;
      if (llvm::any_of(prev.getUsers(), [&](Operation *user) {
            return !links[end]->members.contains(user);
          }))
        break;
      bool steady = true;
      for (auto &[op, delta] : deltas) {
        Operation *origin = nullptr; // the first link's slice it follows
        for (auto &[from, to] : current)
          if (to == op)
            origin = from;
        auto [it, inserted] = runDeltas.try_emplace(origin, delta);
        steady &= inserted ? end == start + 1 : it->second == delta;
      }
      if (!steady)
        break;
      for (auto &[from, to] : current)
        to = corr.lookup(to);
    }
    // The last link's result is read after the loop, only at the row index.
    if (end - start >= kMinLinkRun &&
        !readAtRowIndexOnly(rowOps[end - 1]->getResult(0), rowOps))
      --end;
    if (end - start < kMinLinkRun) {
      ++start;
      continue;
    }
    LinkRun run;
    run.first = start;
    run.end = end;
    run.fromPrev = first.fromPrev;
    for (Operation *op : first.body)
      if (auto slice = dyn_cast<SliceOp>(op))
        if (llvm::any_of(runDeltas[op], [](int64_t d) { return d != 0; }))
          run.slices.push_back({slice, runDeltas[op]});
    runs.push_back(std::move(run));
    start = end;
  }
  return runs;
}
