//===- FusionUtils.h - shared machinery of the task passes ------*- C++ -*-===//
//
// What the fusion and partition passes share: the classification of the
// top-level ops of a graph body into fusion units, a union-find of groups
// over those ops with the cycle check, the outlining of a group into one
// gpuos.task (views and constants cloned in, task bodies inlined), task kind
// names and the tile rule. docs/passes.md states the rules in prose.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_LIB_DIALECT_GPUOS_TRANSFORMS_FUSIONUTILS_H
#define GPUOS_LIB_DIALECT_GPUOS_TRANSFORMS_FUSIONUTILS_H

#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace gpuos::fusion {

/// The type of a gpuos value (every tensor value has this one).
inline StridedTensorType typeOf(mlir::Value value) {
  return llvm::cast<StridedTensorType>(value.getType());
}

/// Reorders the ops of a graph body def-before-use; independent ops keep
/// their order. Fails on a cycle, leaving a partial order.
mlir::LogicalResult sortGraphBody(mlir::Block &body);

/// sortGraphBody on `graph`'s body, the first step of every pass that
/// walks it in order; on a cycle reports "body has a cycle and cannot be
/// <done>" at the graph. The verifier rejects cycles, so that is a broken
/// invariant, not user error.
mlir::LogicalResult sortGraph(GraphOp graph, llvm::StringRef done);

/// Views, constants and concats of two static inputs cost little to
/// duplicate: tasks clone them.
bool isViewOrConstant(mlir::Operation *op);
/// Ops of `body` that cost work per element (views and constants are index
/// arithmetic).
int64_t computeOpCount(mlir::Block &body);
/// reduce, argmax, softmax, layer_norm, rms_norm: the ops a reduction task
/// is built around.
bool isReductionAnchor(mlir::Operation *op);
/// An elementwise compute op (the Elementwise trait).
bool isElementwiseOp(mlir::Operation *op);

/// How a top-level op of a graph body takes part in fusion.
enum class UnitClass {
  Elementwise, // an elementwise op, or a task of elementwise ops and views
  Reduction,   // an anchor, or a task of anchors with elementwise ops
  Matmul,      // a matmul, or a task of matmuls and views
  Other,       // concat, dynamic shapes, anything else
  Free,        // a view or a constant: cloned into its consumers
};

struct UnitInfo {
  UnitClass cls = UnitClass::Other;
  /// The iteration space: the shape of the first result.
  llvm::SmallVector<int64_t> space;
  /// Axes of `space` a tile must hold whole (softmax axis, norm axis).
  llvm::SmallVector<int64_t> wholeAxes;
  /// The task's explicit priority; null for plain ops.
  PriorityAttr priority;
};

/// Classifies a top-level op of a graph body. Elementwise and reduction
/// units need static shapes, and all their results share the iteration
/// space; anything else is Other.
UnitInfo classifyUnit(mlir::Operation *op);

/// The top-level ops of a topologically sorted graph body as nodes
/// (numbered in order), their use edges, and a union-find of groups.
///
/// The cycle check searches the contracted graph forward from the groups
/// being merged and backward to them at once, and stops when either search
/// runs out, so its cost follows the smaller of the two cones. The forward
/// search skips nodes after the last node of those groups. That is sound
/// when every group lies in the prefix of nodes a pass has processed and
/// the nodes after it are still alone, which holds for passes that visit
/// nodes in order and only merge the current node with groups before it;
/// all the passes here do. Each group keeps the nodes just outside it, so
/// neither a merge nor a check walks a whole group; a check gives up after
/// `kSearchLimit` steps and reports a cycle, which only forgoes a merge.
class FusionGraph {
public:
  static constexpr unsigned kSearchLimit = 100000;

  explicit FusionGraph(mlir::Block &body);

  unsigned size() const { return nodes.size(); }
  mlir::Operation *op(unsigned node) const { return nodes[node]; }
  /// The node of a top-level op, or std::nullopt for anything else.
  std::optional<unsigned> nodeOf(mlir::Operation *op) const;
  /// The node defining `value`, if a top-level op defines it.
  std::optional<unsigned> producer(mlir::Value value) const;
  llvm::ArrayRef<unsigned> successors(unsigned node) const {
    return succ[node];
  }
  llvm::ArrayRef<unsigned> predecessors(unsigned node) const {
    return pred[node];
  }

  /// The representative of `node`'s group.
  unsigned find(unsigned node);
  /// The distinct groups (their leaders) `nodes` belong to, in first-seen order.
  llvm::SmallVector<unsigned, 4> leadersOf(llvm::ArrayRef<unsigned> nodes);
  /// Number of nodes in `node`'s group.
  size_t groupSize(unsigned node) { return groups[find(node)].members.size(); }
  /// The nodes of `node`'s group.
  llvm::ArrayRef<unsigned> members(unsigned node) {
    return groups[find(node)].members;
  }
  bool isAlone(unsigned node) { return groupSize(node) == 1; }
  /// Merges two groups; returns the new representative.
  unsigned merge(unsigned a, unsigned b);
  /// True when contracting the groups of `nodes` into one node would close
  /// a cycle: some path leaves them and comes back through other nodes.
  bool wouldCreateCycle(llvm::ArrayRef<unsigned> nodes);
  /// Results the group of `node` has: values used outside it (by other
  /// nodes or the graph's yield).
  unsigned results(unsigned node) { return groups[find(node)].results; }
  /// Results the group of `a` and `b` would have after merging them.
  unsigned resultsIfMerged(unsigned a, unsigned b) {
    return countMerge(a, b, /*apply=*/false);
  }
  /// True when the groups of `nodes` as one task hold at most
  /// kMaxTaskComputeOps compute ops (computeOpCount of a task member, 1 for
  /// a plain op, 0 for views and constants). Every merge of the fusion
  /// passes asks.
  bool withinOpCap(llvm::ArrayRef<unsigned> nodes);
  /// True when the members of `consumer`'s group read every value they
  /// take from `producer`'s group directly: plain ops always do (views are
  /// nodes of their own); a task does when the body arguments bound to
  /// those values feed no view. Merging a group that views a value with its
  /// producer would put a view of a computed value inside one task, which
  /// needs that value at indices other than the tile's.
  bool readsDirectly(unsigned consumer, unsigned producer);

  /// The groups of two or more nodes, each as its ops in node order,
  /// ordered by their first node.
  llvm::SmallVector<llvm::SmallVector<mlir::Operation *>> multiNodeGroups();

private:
  struct Group {
    llvm::SmallVector<unsigned, 1> members;
    /// Neighbours outside the group; may hold nodes that joined it since.
    llvm::SmallVector<unsigned, 4> outSucc, outPred;
    /// Members that are tasks viewing one of their inputs.
    llvm::SmallVector<unsigned, 0> viewers;
    unsigned last = 0; // the largest member
    size_t compactedAt = 0;
    unsigned results = 0;
    int64_t computeOps = 0;
  };

  /// Drops neighbours that are members now, when the lists have grown.
  void compact(unsigned leader);
  /// The results of the merged group of `a` and `b`; with `apply`, also
  /// records the uses between them as internal. Walks the smaller group.
  unsigned countMerge(unsigned a, unsigned b, bool apply);

  llvm::SmallVector<mlir::Operation *> nodes;
  llvm::DenseMap<mlir::Operation *, unsigned> index;
  llvm::SmallVector<llvm::SmallVector<unsigned, 4>> succ, pred;
  llvm::SmallVector<unsigned> parent;
  llvm::SmallVector<Group> groups;
  /// Per node and result: uses outside the node's group.
  llvm::SmallVector<llvm::SmallVector<unsigned, 1>> outsideUses;
  llvm::SmallVector<unsigned> forwardMark, backwardMark;
  unsigned epoch = 0;
};

/// classifyUnit of every node of `fg`, by node number.
llvm::SmallVector<UnitInfo> classifyUnits(const FusionGraph &fg);

/// Most results a fused task may have: each is an output buffer in the
/// task's argument block, and a chain whose every link is read elsewhere
/// must not become one task with thousands of them.
constexpr unsigned kMaxTaskResults = 16;

/// Most compute ops a fused task may hold. The lowering evaluates a value
/// by walking back through its producers, nested calls per op: a 5,000-op
/// chain fused into one task overflowed gpuos-jit's 8 MiB stack, and it
/// refuses bodies nested deeper than 1,024 (TaskEmitter::kMaxEvalDepth).
/// Longer chains split into tasks of at most this many.
constexpr int64_t kMaxTaskComputeOps = 512;

/// `<graph>_t`, the graph name as a C identifier: what every kind
/// KindNamer hands out for `graph` starts with, before its index.
std::string generatedKindPrefix(GraphOp graph);

/// True when `task`'s kind is one KindNamer would have made for its graph
/// (the prefix, then a digit).
bool hasGeneratedKind(TaskOp task);

/// Hands out task kinds `<graph>_t<N>_<op names>`: C identifiers, unique
/// among generated kinds because graph symbols are (a written task of
/// another graph may still hold one: gpuos-unique-kinds). N continues
/// after the largest index already used by a task of the graph.
class KindNamer {
public:
  explicit KindNamer(GraphOp graph);
  /// A fresh kind for a task whose body holds `body`'s ops.
  std::string next(mlir::Block &body);

private:
  std::string prefix;
  unsigned counter = 0;
};

/// The graph name as a C identifier: itself when it is one, else the
/// invalid characters replaced by '_' and a hash of the name appended.
std::string sanitizeGraphName(llvm::StringRef name);

struct OutlineOptions {
  /// Keep this kind instead of naming a new one.
  std::optional<std::string> kind;
  /// Keep this tile instead of choosing one (must fit the first result).
  std::optional<llvm::SmallVector<int64_t>> tile;
  /// The task's priority; by default the common priority of member tasks.
  std::optional<PriorityAttr> priority;
  /// Discardable attributes to carry over.
  llvm::SmallVector<mlir::NamedAttribute> attrs;
};

/// Replaces `members`, top-level ops of one graph body in topological order
/// (plain ops and tasks, whose bodies are inlined), by one task: values
/// read from outside become inputs, views and constants feeding the group
/// are cloned in so inputs are the viewed values, and values used outside
/// the group become results in member order. The caller guarantees that the
/// contraction is acyclic. Views and constants left without users are
/// erased.
TaskOp outlineGroup(llvm::ArrayRef<mlir::Operation *> members,
                    KindNamer &namer, const OutlineOptions &options = {});

/// Outlines every group of two or more nodes of `fg` into a task, then
/// reorders `graph`'s body: how every fusion pass ends.
void outlineMultiNodeGroups(GraphOp graph, FusionGraph &fg);

/// The frame every fusion pass shares: sorts `graph` (a cycle is diagnosed
/// and fails the pass), builds its FusionGraph, lets `fuse` merge nodes,
/// then outlines each group of several nodes into a task.
mlir::LogicalResult fuseGraph(GraphOp graph,
                              llvm::function_ref<void(FusionGraph &)> fuse);

/// Row chains (docs/passes.md, "gpuos-fuse-reductions"): row ops whose
/// result has their input's shape (softmax over the last axis, layer_norm,
/// rms_norm) are links a task may chain, at most maxRowOpsPerTask of them.
bool isRowChainLink(mlir::Operation *op);
/// The most links one task over `link`'s rows may hold. The straight-line
/// row code keeps a link in registers; the loop copy (block sizes other
/// than the tuned one, misaligned buffers, and rows longer than the
/// straight-line limit, 16 elements per thread or 4096 at 256 threads)
/// keeps it in shared memory (RowEmitter, staged links). Rows within the
/// limit take 32: the bench's 32-norm rmsnorm_chain (rows of 4096) as one
/// task runs 34.9-35.8 -> 24.3-25.7 us sync on the H200 (no hop, and one
/// urgent singleton the poller runs itself; docs/passes.md). Longer or
/// dynamic rows keep 16, not measured at 32.
unsigned maxRowOpsPerTask(mlir::Operation *link);
/// Row chain links in `op`: its body's for a task, else 1 or 0.
unsigned rowChainLinks(mlir::Operation *op);

/// Joins `node` to the newest group among `open` (group members, oldest
/// first) that takes it without reading a member's result, closing a cycle
/// or passing `maxResults` results; a group that reaches `width` nodes
/// leaves `open`. A node that joins none opens a group of its own.
/// `accepts(leader)`, when given, may refuse a group for a reason of the
/// caller's.
void joinNewestOpenGroup(
    FusionGraph &fg, llvm::SmallVectorImpl<unsigned> &open, unsigned node,
    unsigned width, unsigned maxResults,
    llvm::function_ref<bool(unsigned leader)> accepts = nullptr);

/// Erases views and constants of `body` that nothing uses any more.
void eraseDeadViewsAndConstants(mlir::Block &body);

/// Tiling (docs/passes.md, "The tile rule"). Work of one tile: result
/// elements x (ops in the body) x (elements a reduction reads per result),
/// at most this much, so a tile runs a few microseconds and urgent work
/// (scheduled at tile boundaries) waits little.
constexpr int64_t kTileMaxWork = 65536;
/// At most this many result elements per tile, however cheap each is
/// (8192 f32 in + out is 64 KB of traffic, ~2.5 us of one H200 SM's share
/// of bandwidth).
constexpr int64_t kTileMaxElements = 8192;
/// A task large enough is cut into at least this many tiles: twice the
/// H200's 132 SMs, so every SM gets work and uneven tiles balance out.
constexpr int64_t kTileSpread = 2 * 132;
/// ... but a tile keeps at least this many result elements (a 256-thread
/// block's worth) when the work budget allows: smaller tiles leave the
/// block idle and pay the per-tile overhead for nothing.
constexpr int64_t kTileMinElements = 256;
/// Matmul tiles: at most this many output elements.
constexpr int64_t kTileWorkElements = 4096;
/// ... and at most this many multiply-adds (outputs x K) while they keep
/// kTileMinMatmulOutputs outputs (256 threads x 4 lanes).
constexpr int64_t kTileMaxMatmulWork = 262144;
constexpr int64_t kTileMinMatmulOutputs = 1024;
/// Matmuls with at most this many rows (M) get column tiles with M whole,
/// which the lowering computes by splitting K across the block.
constexpr int64_t kSmallMatmulM = 16;
/// Shared memory of a small-M matmul task's lowering: the partials and the
/// staged lhs values (kMatvecMaxShared in MatvecEmitter.cpp).
constexpr int64_t kMatvecSharedBytes = 32 * 1024;
/// Shared memory a staged row prologue of M rows takes beside its rows:
/// [M][2] f32 statistics, then two slots of 32 warp partials
/// (MatvecEmitter.h, kRowFoldSlotBytes).
inline int64_t rowStatBytes(int64_t m) { return llvm::alignTo(m * 8, 16) + 2 * 32 * 4; }
/// Tile size of a dynamic axis that must stay whole: one tile covers it.
constexpr int64_t kWholeDynamicTile = 2147483647;

/// Columns of a small-M matmul tile (M <= kSmallMatmulM rows, all of them
/// in the tile): the widest power of two from 16 (8 for micro-batches
/// through a shared weight) to 128 that still gives every worker block a
/// tile (N / tn >= kTileSpread), at most 256 outputs. `n` may be dynamic.
int64_t smallMatmulColumns(int64_t m, int64_t n, bool sharedWeight);

/// The matmuls that read `value` as operand `operandNumber` (0: lhs, 1:
/// rhs): plain matmuls reading it, and matmuls in tasks reading the body
/// argument bound to it.
llvm::SmallVector<MatmulOp> matmulsReading(mlir::Value value, unsigned operandNumber);

/// The tile of `task` by the rule of docs/passes.md.
llvm::SmallVector<int64_t> chooseTile(TaskOp task);

} // namespace gpuos::fusion

#endif // GPUOS_LIB_DIALECT_GPUOS_TRANSFORMS_FUSIONUTILS_H
