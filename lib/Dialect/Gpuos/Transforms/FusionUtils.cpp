//===- FusionUtils.cpp - shared machinery of the task passes --------------===//

#include "FusionUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>

using namespace mlir;
using namespace gpuos;
using namespace gpuos::fusion;

//===----------------------------------------------------------------------===//
// Op classes
//===----------------------------------------------------------------------===//

static bool isStaticShape(ArrayRef<int64_t> shape) {
  return llvm::none_of(shape, [](int64_t dim) { return dim == kDynamic; });
}

/// A concat of two static inputs is an index map too: a task evaluates an
/// element by reading both inputs at clamped positions and selecting
/// (TaskEmitter::evalConcat). Cloned into its consumers, it is never
/// written out: decode's KV cache append (concat(cache, k)) becomes part of
/// the attention matmul that reads it, instead of a task copying the cache
/// on the step's critical path. More inputs would multiply every
/// consumer's loads.
static bool isClonedConcat(Operation *op) {
  auto concat = dyn_cast<ConcatOp>(op);
  return concat && concat.getInputs().size() <= 2 &&
         llvm::all_of(op->getOperandTypes(), [](Type type) {
           return isStaticShape(cast<StridedTensorType>(type).getShape());
         });
}

/// Ops that read their operands at other indices than their own: a task
/// body argument feeding one is read through a view.
static bool isIndexMap(Operation *op) {
  return op->hasTrait<gpuos::OpTrait::View>() || isClonedConcat(op);
}

bool gpuos::fusion::isViewOrConstant(Operation *op) {
  return isIndexMap(op) || isa<ConstantOp>(op);
}

int64_t gpuos::fusion::computeOpCount(Block &body) {
  return llvm::count_if(body.without_terminator(),
                        [](Operation &op) { return !isViewOrConstant(&op); });
}

bool gpuos::fusion::isReductionAnchor(Operation *op) {
  return isa<ReduceOp, ArgmaxOp, SoftmaxOp, LayerNormOp, RmsNormOp>(op);
}

bool gpuos::fusion::isElementwiseOp(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>();
}

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<StridedTensorType>(value.getType()).getShape();
}


/// Axes of the anchor's result that one tile must hold whole.
static void addWholeAxes(Operation *anchor, SmallVectorImpl<int64_t> &axes) {
  if (auto softmax = dyn_cast<SoftmaxOp>(anchor))
    axes.push_back(softmax.getAxis());
  else if (isa<LayerNormOp, RmsNormOp>(anchor))
    axes.push_back(shapeOf(anchor->getResult(0)).size() - 1);
}

static void sortUnique(SmallVectorImpl<int64_t> &values) {
  llvm::sort(values);
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

UnitInfo gpuos::fusion::classifyUnit(Operation *op) {
  UnitInfo info;
  if (isViewOrConstant(op)) {
    info.cls = UnitClass::Free;
    return info;
  }
  if (op->getNumResults() == 0)
    return info;
  info.space.assign(shapeOf(op->getResult(0)).begin(),
                    shapeOf(op->getResult(0)).end());
  // Dynamic shapes never fuse (docs/passes.md), operands included: an add
  // of a ?x8 and a 4x8 input has a static result.
  if (!isStaticShape(info.space) ||
      llvm::any_of(op->getOperandTypes(), [](Type type) {
        auto tensor = dyn_cast<StridedTensorType>(type);
        return tensor && !isStaticShape(tensor.getShape());
      }))
    return info;

  auto task = dyn_cast<TaskOp>(op);
  if (!task) {
    if (isElementwiseOp(op)) {
      info.cls = UnitClass::Elementwise;
    } else if (isReductionAnchor(op)) {
      if (!isStaticShape(shapeOf(op->getOperand(0))))
        return info;
      info.cls = UnitClass::Reduction;
      addWholeAxes(op, info.wholeAxes);
    } else if (isa<MatmulOp>(op)) {
      info.cls = UnitClass::Matmul;
    }
    return info;
  }

  info.priority = task.getPriorityAttr();
  // Every result shares the iteration space.
  for (Value result : task.getResults())
    if (shapeOf(result) != ArrayRef<int64_t>(info.space))
      return info;
  unsigned anchors = 0, matmuls = 0, elementwise = 0;
  SmallVector<ArrayRef<int64_t>> anchorInputs;
  for (Operation &inner : task.getBodyBlock().without_terminator()) {
    if (isViewOrConstant(&inner))
      continue;
    if (isa<MatmulOp>(inner)) {
      ++matmuls;
    } else if (isReductionAnchor(&inner)) {
      ++anchors;
      if (shapeOf(inner.getResult(0)) != ArrayRef<int64_t>(info.space) ||
          !isStaticShape(shapeOf(inner.getOperand(0))))
        return info;
      anchorInputs.push_back(shapeOf(inner.getOperand(0)));
      addWholeAxes(&inner, info.wholeAxes);
    } else if (isElementwiseOp(&inner)) {
      ++elementwise;
    } else {
      return info; // concat and anything else
    }
  }
  // Elementwise ops compute over the iteration space, or over an anchor's
  // input (a prologue).
  for (Operation &inner : task.getBodyBlock().without_terminator()) {
    if (!isElementwiseOp(&inner))
      continue;
    ArrayRef<int64_t> shape = shapeOf(inner.getResult(0));
    if (shape != ArrayRef<int64_t>(info.space) &&
        !llvm::is_contained(anchorInputs, shape))
      return info;
  }
  if (matmuls > 0) {
    if (anchors == 0 && elementwise == 0)
      info.cls = UnitClass::Matmul;
  } else if (anchors > 0) {
    info.cls = UnitClass::Reduction;
    sortUnique(info.wholeAxes);
  } else if (elementwise > 0) {
    info.cls = UnitClass::Elementwise;
  }
  return info;
}

//===----------------------------------------------------------------------===//
// FusionGraph
//===----------------------------------------------------------------------===//

FusionGraph::FusionGraph(Block &body) {
  for (Operation &op : body.without_terminator()) {
    index[&op] = nodes.size();
    nodes.push_back(&op);
  }
  succ.resize(nodes.size());
  pred.resize(nodes.size());
  for (auto [node, op] : llvm::enumerate(nodes)) {
    for (Value operand : op->getOperands()) {
      std::optional<unsigned> from = producer(operand);
      if (!from || llvm::is_contained(pred[node], *from))
        continue;
      pred[node].push_back(*from);
      succ[*from].push_back(node);
    }
  }
  parent.resize(nodes.size());
  groups.resize(nodes.size());
  for (unsigned node = 0; node < nodes.size(); ++node) {
    parent[node] = node;
    Group &group = groups[node];
    group.members.push_back(node);
    group.outSucc.assign(succ[node].begin(), succ[node].end());
    group.outPred.assign(pred[node].begin(), pred[node].end());
    group.last = node;
    auto task = dyn_cast<TaskOp>(nodes[node]);
    group.computeOps = task ? computeOpCount(task.getBodyBlock())
                            : isViewOrConstant(nodes[node]) ? 0 : 1;
    if (task && llvm::any_of(task.getBodyBlock().getArguments(), [](Value arg) {
          return llvm::any_of(arg.getUsers(), [](Operation *user) {
            return isIndexMap(user);
          });
        }))
      group.viewers.push_back(node);
  }
  outsideUses.resize(nodes.size());
  for (unsigned node = 0; node < nodes.size(); ++node) {
    for (Value result : nodes[node]->getResults()) {
      unsigned uses = std::distance(result.use_begin(), result.use_end());
      outsideUses[node].push_back(uses);
      if (uses)
        ++groups[node].results;
    }
  }
  forwardMark.assign(nodes.size(), 0);
  backwardMark.assign(nodes.size(), 0);
}

unsigned FusionGraph::countMerge(unsigned a, unsigned b, bool apply) {
  a = find(a);
  b = find(b);
  if (a == b)
    return groups[a].results;
  unsigned small = a, large = b;
  if (groups[small].members.size() > groups[large].members.size())
    std::swap(small, large);
  // Uses between the two groups become internal; a value whose outside
  // uses all go to the other group stops being a result.
  llvm::DenseMap<std::pair<unsigned, unsigned>, unsigned> internal;
  unsigned lost = 0;
  auto use = [&](unsigned node, unsigned result) {
    unsigned &count = internal[{node, result}];
    if (++count == outsideUses[node][result])
      ++lost;
  };
  for (unsigned member : groups[small].members) {
    Operation *op = nodes[member];
    for (Value operand : op->getOperands())
      if (std::optional<unsigned> from = producer(operand);
          from && find(*from) == large)
        use(*from, cast<OpResult>(operand).getResultNumber());
    for (OpResult result : op->getResults())
      for (Operation *user : result.getUsers())
        if (std::optional<unsigned> to = nodeOf(user); to && find(*to) == large)
          use(member, result.getResultNumber());
  }
  if (apply)
    for (auto [key, count] : internal)
      outsideUses[key.first][key.second] -= count;
  return groups[a].results + groups[b].results - lost;
}

std::optional<unsigned> FusionGraph::nodeOf(Operation *op) const {
  auto it = index.find(op);
  if (it == index.end())
    return std::nullopt;
  return it->second;
}

std::optional<unsigned> FusionGraph::producer(Value value) const {
  Operation *def = value.getDefiningOp();
  return def ? nodeOf(def) : std::nullopt;
}

unsigned FusionGraph::find(unsigned node) {
  while (parent[node] != node) {
    parent[node] = parent[parent[node]];
    node = parent[node];
  }
  return node;
}

void FusionGraph::compact(unsigned leader) {
  Group &group = groups[leader];
  size_t size = group.outSucc.size() + group.outPred.size();
  if (size < 2 * group.compactedAt + 16)
    return;
  auto inside = [&](unsigned node) { return find(node) == leader; };
  llvm::erase_if(group.outSucc, inside);
  llvm::erase_if(group.outPred, inside);
  group.compactedAt = group.outSucc.size() + group.outPred.size();
}

unsigned FusionGraph::merge(unsigned a, unsigned b) {
  a = find(a);
  b = find(b);
  if (a == b)
    return a;
  unsigned results = countMerge(a, b, /*apply=*/true);
  // Small into large keeps the copying near-linear overall.
  if (groups[a].members.size() < groups[b].members.size())
    std::swap(a, b);
  parent[b] = a;
  Group &into = groups[a], &from = groups[b];
  into.members.append(from.members.begin(), from.members.end());
  into.outSucc.append(from.outSucc.begin(), from.outSucc.end());
  into.outPred.append(from.outPred.begin(), from.outPred.end());
  into.viewers.append(from.viewers.begin(), from.viewers.end());
  into.last = std::max(into.last, from.last);
  into.results = results;
  into.computeOps += from.computeOps;
  from = Group();
  compact(a);
  return a;
}

namespace {
/// One direction of the cycle search: the neighbour lists of the groups
/// being merged, read lazily, then a worklist.
struct Frontier {
  SmallVector<ArrayRef<unsigned>, 4> seeds;
  unsigned list = 0, position = 0;
  SmallVector<unsigned> worklist;

  /// The next node and whether it came from the worklist.
  std::optional<std::pair<unsigned, bool>> next() {
    if (!worklist.empty())
      return std::make_pair(worklist.pop_back_val(), true);
    while (list < seeds.size()) {
      if (position < seeds[list].size())
        return std::make_pair(seeds[list][position++], false);
      ++list;
      position = 0;
    }
    return std::nullopt;
  }
};
} // namespace

SmallVector<unsigned, 4> FusionGraph::leadersOf(ArrayRef<unsigned> nodes) {
  SmallVector<unsigned, 4> leaders;
  for (unsigned node : nodes) {
    unsigned leader = find(node);
    if (!llvm::is_contained(leaders, leader))
      leaders.push_back(leader);
  }
  return leaders;
}

bool FusionGraph::wouldCreateCycle(ArrayRef<unsigned> merging) {
  SmallVector<unsigned, 4> leaders = leadersOf(merging);
  unsigned bound = 0;
  for (unsigned leader : leaders)
    bound = std::max(bound, groups[leader].last);
  auto inUnion = [&](unsigned node) {
    return llvm::is_contained(leaders, find(node));
  };
  // A cycle is a path that leaves the groups and comes back. Search for it
  // forward from the groups' successors and backward from their
  // predecessors, one group expansion each in turn: either search reaching
  // the groups proves a cycle, either running out proves there is none.
  if (++epoch == 0) {
    std::fill(forwardMark.begin(), forwardMark.end(), 0);
    std::fill(backwardMark.begin(), backwardMark.end(), 0);
    epoch = 1;
  }
  Frontier forward, backward;
  for (unsigned leader : leaders) {
    forward.seeds.push_back(groups[leader].outSucc);
    backward.seeds.push_back(groups[leader].outPred);
  }
  enum class Step { Cycle, Done, Expanded };
  auto step = [&](Frontier &frontier, SmallVectorImpl<unsigned> &marks,
                  bool isForward) {
    while (std::optional<std::pair<unsigned, bool>> entry = frontier.next()) {
      auto [node, discovered] = *entry;
      if (isForward && node > bound)
        continue; // alone, and all its successors come later still
      if (inUnion(node)) {
        // A neighbour list may name nodes that joined the groups since; a
        // node reached through others closes the cycle.
        if (discovered)
          return Step::Cycle;
        continue;
      }
      unsigned leader = find(node);
      if (marks[leader] == epoch)
        continue;
      marks[leader] = epoch;
      Group &group = groups[leader];
      for (unsigned next : isForward ? group.outSucc : group.outPred)
        if (find(next) != leader && marks[find(next)] != epoch)
          frontier.worklist.push_back(next);
      return Step::Expanded;
    }
    return Step::Done;
  };
  for (unsigned steps = 0; steps < kSearchLimit; ++steps) {
    Step forwardStep = step(forward, forwardMark, /*isForward=*/true);
    if (forwardStep != Step::Expanded)
      return forwardStep == Step::Cycle;
    Step backwardStep = step(backward, backwardMark, /*isForward=*/false);
    if (backwardStep != Step::Expanded)
      return backwardStep == Step::Cycle;
  }
  return true; // gave up: treated as a cycle, which only forgoes a merge
}

bool FusionGraph::withinOpCap(ArrayRef<unsigned> merging) {
  int64_t ops = 0;
  for (unsigned leader : leadersOf(merging))
    ops += groups[leader].computeOps;
  return ops <= kMaxTaskComputeOps;
}

bool FusionGraph::readsDirectly(unsigned consumer, unsigned producer) {
  unsigned producerLeader = find(producer);
  for (unsigned member : groups[find(consumer)].viewers) {
    auto task = cast<TaskOp>(nodes[member]);
    for (auto [arg, input] :
         llvm::zip(task.getBodyBlock().getArguments(), task.getInputs())) {
      std::optional<unsigned> from = this->producer(input);
      if (!from || find(*from) != producerLeader)
        continue;
      if (llvm::any_of(arg.getUsers(), [](Operation *user) {
            return isIndexMap(user);
          }))
        return false;
    }
  }
  return true;
}

SmallVector<SmallVector<Operation *>> FusionGraph::multiNodeGroups() {
  SmallVector<SmallVector<Operation *>> result;
  for (unsigned node = 0; node < nodes.size(); ++node) {
    if (find(node) != node || groups[node].members.size() < 2)
      continue;
    SmallVector<unsigned> members(groups[node].members.begin(),
                                  groups[node].members.end());
    llvm::sort(members);
    SmallVector<Operation *> &ops = result.emplace_back();
    for (unsigned member : members)
      ops.push_back(nodes[member]);
  }
  llvm::sort(result, [&](const auto &a, const auto &b) {
    return index.lookup(a.front()) < index.lookup(b.front());
  });
  return result;
}

//===----------------------------------------------------------------------===//
// Kinds
//===----------------------------------------------------------------------===//

static bool isIdentifier(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

std::string gpuos::fusion::sanitizeGraphName(StringRef name) {
  if (isIdentifier(name))
    return name.str();
  std::string out = name.empty() || llvm::isDigit(name[0]) ? "g_" : "";
  for (char c : name)
    out.push_back(llvm::isAlnum(c) ? c : '_');
  // FNV-1a keeps names that sanitize alike apart.
  uint32_t hash = 2166136261u;
  for (unsigned char c : name)
    hash = (hash ^ c) * 16777619u;
  return out + "_" + llvm::utohexstr(hash, /*LowerCase=*/true);
}

std::string gpuos::fusion::generatedKindPrefix(GraphOp graph) {
  return sanitizeGraphName(graph.getSymName()) + "_t";
}

bool gpuos::fusion::hasGeneratedKind(TaskOp task) {
  auto graph = task->getParentOfType<GraphOp>();
  if (!graph)
    return false;
  StringRef kind = task.getKind();
  std::string prefix = generatedKindPrefix(graph);
  return kind.starts_with(prefix) && kind.size() > prefix.size() &&
         llvm::isDigit(kind[prefix.size()]);
}

KindNamer::KindNamer(GraphOp graph) : prefix(generatedKindPrefix(graph)) {
  for (Operation &op : graph.getBodyBlock()) {
    auto task = dyn_cast<TaskOp>(op);
    if (!task || !task.getKind().starts_with(prefix))
      continue;
    StringRef rest = task.getKind().drop_front(prefix.size());
    StringRef digits = rest.take_while(llvm::isDigit);
    unsigned used;
    if (!digits.empty() && !digits.getAsInteger(10, used))
      counter = std::max(counter, used + 1);
  }
}

std::string KindNamer::next(Block &body) {
  // Compute ops name the task; a task of views or constants only is named
  // by those.
  SmallVector<StringRef> names;
  bool computes = llvm::any_of(body.without_terminator(), [](Operation &op) {
    return !isViewOrConstant(&op);
  });
  for (Operation &op : body.without_terminator()) {
    if (computes && isViewOrConstant(&op))
      continue;
    StringRef name = op.getName().stripDialect();
    if (!llvm::is_contained(names, name))
      names.push_back(name);
  }
  std::string kind = prefix + std::to_string(counter++);
  constexpr size_t kMaxNames = 40;
  size_t length = 0;
  for (StringRef name : names) {
    if (length + name.size() > kMaxNames) {
      kind += "_etc";
      break;
    }
    kind += "_" + name.str();
    length += name.size() + 1;
  }
  return kind;
}

//===----------------------------------------------------------------------===//
// Outlining
//===----------------------------------------------------------------------===//

TaskOp gpuos::fusion::outlineGroup(ArrayRef<Operation *> members,
                                   KindNamer &namer,
                                   const OutlineOptions &options) {
  assert(!members.empty() && "outlining an empty group");
  MLIRContext *context = members.front()->getContext();
  llvm::SmallPtrSet<Operation *, 16> memberSet(members.begin(), members.end());
  auto isMember = [&](Operation *op) { return op && memberSet.contains(op); };

  // Inputs: what the members read from outside, looking through views and
  // constants, which are cloned in; in depth-first operand order. Explicit
  // stacks, here and below: recursion per view overflowed the stack on a
  // chain of 200,000 views.
  SmallVector<Value> inputs;
  llvm::SmallPtrSet<Value, 16> seenInputs;
  SmallVector<Value> pending;
  auto collectInputs = [&](ValueRange operands) {
    llvm::append_range(pending, llvm::reverse(operands));
    while (!pending.empty()) {
      Value value = pending.pop_back_val();
      Operation *def = value.getDefiningOp();
      if (isMember(def))
        continue;
      if (def && isViewOrConstant(def))
        llvm::append_range(pending, llvm::reverse(def->getOperands()));
      else if (seenInputs.insert(value).second)
        inputs.push_back(value);
    }
  };
  for (Operation *member : members)
    collectInputs(member->getOperands());

  // Results: member values with users outside the group (or the yield).
  SmallVector<Value> results;
  for (Operation *member : members)
    for (Value result : member->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !isMember(user); }))
        results.push_back(result);
  assert(!results.empty() && "a group whose values are all unused");

  SmallVector<Location> locs;
  for (Operation *member : members)
    locs.push_back(member->getLoc());
  Location loc = FusedLoc::get(context, locs);

  OpBuilder builder(context);
  builder.setInsertionPointAfter(members.back());
  SmallVector<Type> resultTypes;
  for (Value result : results)
    resultTypes.push_back(result.getType());
  auto task = TaskOp::create(builder, loc, resultTypes, inputs,
                             builder.getStringAttr("pending"),
                             builder.getDenseI64ArrayAttr({}), PriorityAttr());
  Block *block = new Block();
  task.getBody().push_back(block);
  IRMapping map;
  for (Value input : inputs)
    map.map(input, block->addArgument(input.getType(), input.getLoc()));

  OpBuilder inner = OpBuilder::atBlockEnd(block);
  SmallVector<Operation *> absorbed; // views and constants cloned in
  // Clones the views and constants `operands` need, operands first. A value
  // is pushed unexpanded, then again expanded once its operands are queued.
  SmallVector<std::pair<Value, bool>> toClone;
  auto materialize = [&](ValueRange operands) {
    for (Value operand : llvm::reverse(operands))
      toClone.push_back({operand, false});
    while (!toClone.empty()) {
      auto [value, expanded] = toClone.pop_back_val();
      if (map.contains(value))
        continue;
      Operation *def = value.getDefiningOp();
      assert(def && isViewOrConstant(def) && !isMember(def) &&
             "an operand that is neither an input nor a view or constant");
      if (!expanded) {
        toClone.push_back({value, true});
        for (Value operand : llvm::reverse(def->getOperands()))
          toClone.push_back({operand, false});
        continue;
      }
      inner.clone(*def, map);
      absorbed.push_back(def);
    }
  };
  for (Operation *member : members) {
    materialize(member->getOperands());
    auto memberTask = dyn_cast<TaskOp>(member);
    if (!memberTask) {
      inner.clone(*member, map);
      continue;
    }
    // Inline the task's body.
    IRMapping local;
    for (auto [arg, operand] : llvm::zip(
             memberTask.getBodyBlock().getArguments(), memberTask.getInputs()))
      local.map(arg, map.lookup(operand));
    for (Operation &op : memberTask.getBodyBlock().without_terminator())
      inner.clone(op, local);
    Operation *terminator = memberTask.getBodyBlock().getTerminator();
    for (auto [result, yielded] :
         llvm::zip(memberTask.getResults(), terminator->getOperands()))
      map.map(result, local.lookup(yielded));
  }
  SmallVector<Value> yielded;
  for (Value result : results)
    yielded.push_back(map.lookup(result));
  YieldOp::create(inner, loc, yielded);

  for (auto [result, replacement] : llvm::zip(results, task.getResults()))
    result.replaceUsesWithIf(replacement, [&](OpOperand &use) {
      return !isMember(use.getOwner());
    });

  // Priority: as asked, else the members' own (the passes only merge
  // members whose priorities agree).
  PriorityAttr priority;
  if (options.priority) {
    priority = *options.priority;
  } else {
    for (Operation *member : members)
      if (auto memberTask = dyn_cast<TaskOp>(member))
        if (!priority)
          priority = memberTask.getPriorityAttr();
  }

  // Members use each other only in order: erase them last to first.
  for (Operation *member : llvm::reverse(members))
    member->erase();
  for (Operation *op : llvm::reverse(absorbed))
    if (op->use_empty())
      op->erase();

  task.setKind(options.kind ? *options.kind : namer.next(*block));
  if (priority)
    task.setPriorityAttr(priority);
  for (NamedAttribute attr : options.attrs)
    task->setAttr(attr.getName(), attr.getValue());
  task.setTile(options.tile ? ArrayRef<int64_t>(*options.tile)
                            : ArrayRef<int64_t>(chooseTile(task)));
  return task;
}

void gpuos::fusion::eraseDeadViewsAndConstants(Block &body) {
  // Reverse order erases a view before the view or constant it reads.
  SmallVector<Operation *> candidates;
  for (Operation &op : body.without_terminator())
    if (isViewOrConstant(&op))
      candidates.push_back(&op);
  for (Operation *op : llvm::reverse(candidates))
    if (op->use_empty())
      op->erase();
}

//===----------------------------------------------------------------------===//
// Tiles
//===----------------------------------------------------------------------===//

static int64_t powerOfTwoAtMost(int64_t value) {
  return value < 1 ? 1 : int64_t(1) << llvm::Log2_64(value);
}

/// Elements of an input each result element of `op` reads.
static int64_t reductionFactor(Operation *op) {
  ArrayRef<int64_t> input = shapeOf(op->getOperand(0));
  auto dim = [&](int64_t axis) {
    int64_t size = input[axis];
    return size == kDynamic ? 1024 : std::max<int64_t>(size, 1);
  };
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    int64_t factor = 1;
    for (int64_t axis : reduce.getAxes())
      factor = std::min<int64_t>(factor * dim(axis), kTileMaxWork);
    return factor;
  }
  if (auto argmax = dyn_cast<ArgmaxOp>(op))
    return dim(argmax.getAxis());
  return 1;
}

/// Transposed reads (docs/passes.md, "The tile rule"): an operand of the
/// iteration's shape that is contiguous along an outer axis, as a transpose
/// view makes it, is read one element per 32-byte sector by a tile one
/// element tall on that axis; the neighbouring tiles read the rest of each
/// sector. The tile then spans up to a sector's worth of that axis (8 f32,
/// 16 f16), doubling while at least one tile per SM is left and the tile
/// keeps within `maxElements` (the short-tile budget). A broadcast (a zero
/// stride) is no transposed read.
static void coverTransposedSectors(TaskOp task, ArrayRef<int64_t> space,
                                   int64_t maxElements,
                                   MutableArrayRef<int64_t> tile) {
  int64_t rank = space.size();
  if (rank < 2 || llvm::is_contained(space, kDynamic))
    return;
  int64_t axis = -1, sector = 1;
  for (Operation &op : task.getBodyBlock().without_terminator()) {
    if (isViewOrConstant(&op))
      continue;
    for (Value operand : op.getOperands()) {
      auto type = dyn_cast<StridedTensorType>(operand.getType());
      if (!type || type.isContiguous() || type.getShape() != space)
        continue;
      ArrayRef<int64_t> strides = type.getStrides();
      if (strides[rank - 1] <= 1) // contiguous rows, a broadcast, or dynamic
        continue;
      for (int64_t a = 0; a < rank - 1; ++a) {
        if (strides[a] != 1 || (axis >= 0 && axis != a))
          continue;
        axis = a;
        sector = std::max<int64_t>(
            sector, 32 / elementStorageBytes(type.getElementType()));
      }
    }
  }
  if (axis < 0)
    return;
  auto tiles = [&] {
    int64_t n = 1;
    for (int64_t i = 0; i < rank; ++i)
      n *= llvm::divideCeil(std::max<int64_t>(space[i], 1), tile[i]);
    return n;
  };
  auto elements = [&] {
    int64_t n = 1;
    for (int64_t size : tile)
      n *= size;
    return n;
  };
  while (tile[axis] * 2 <= std::min(sector, space[axis]) &&
         tiles() / 2 >= kTileSpread / 2 && elements() * 2 <= maxElements)
    tile[axis] *= 2;
}

SmallVector<MatmulOp> gpuos::fusion::matmulsReading(Value value,
                                                   unsigned operandNumber) {
  SmallVector<MatmulOp> readers;
  auto reads = [&](MatmulOp matmul, Value operand) {
    return matmul->getOperand(operandNumber) == operand;
  };
  llvm::SmallPtrSet<Operation *, 4> seen;
  for (Operation *user : value.getUsers()) {
    if (!seen.insert(user).second)
      continue;
    if (auto matmul = dyn_cast<MatmulOp>(user)) {
      if (reads(matmul, value))
        readers.push_back(matmul);
      continue;
    }
    auto task = dyn_cast<TaskOp>(user);
    if (!task)
      continue;
    for (auto [input, bound] : llvm::zip(task.getInputs(), task.getBodyBlock().getArguments()))
      if (input == value)
        for (Operation *reader : bound.getUsers())
          if (auto inner = dyn_cast<MatmulOp>(reader); inner && reads(inner, bound))
            readers.push_back(inner);
  }
  return readers;
}

/// The N of the other rank-2 small-M matmul units (plain matmuls, tasks)
/// of the graph that read the same lhs as `matmul` (a task input) in
/// `task`, one per unit: a task's tiles cover all of its matmuls.
static SmallVector<int64_t> siblingColumns(TaskOp task, MatmulOp matmul) {
  SmallVector<int64_t> columns;
  auto arg = dyn_cast<BlockArgument>(matmul.getLhs());
  if (!arg || arg.getOwner() != &task.getBodyBlock())
    return columns;
  llvm::SmallPtrSet<Operation *, 4> units = {task.getOperation()};
  for (MatmulOp other : matmulsReading(task.getInputs()[arg.getArgNumber()], 0)) {
    Operation *parent = other->getParentOp();
    if (!units.insert(isa<TaskOp>(parent) ? parent : other.getOperation()).second)
      continue;
    ArrayRef<int64_t> shape = shapeOf(other.getResult());
    if (shape.size() == 2 && shape[0] >= 1 && shape[0] <= kSmallMatmulM &&
        shape[1] != kDynamic && !other.getTransposeLhs())
      columns.push_back(shape[1]);
  }
  return columns;
}

int64_t gpuos::fusion::smallMatmulColumns(int64_t m, int64_t n,
                                          bool sharedWeight) {
  int64_t minTn = sharedWeight ? 8 : 16;
  int64_t tn = minTn;
  if (n != kDynamic)
    tn = std::clamp<int64_t>(powerOfTwoAtMost(llvm::divideCeil(n, kTileSpread)),
                             minTn, 128);
  tn = std::min<int64_t>(tn, 256 / int64_t(llvm::bit_ceil(uint64_t(m))));
  if (n != kDynamic)
    tn = std::min<int64_t>(
        tn, int64_t(llvm::bit_ceil(uint64_t(std::max<int64_t>(n, 1)))));
  return tn;
}

SmallVector<int64_t> gpuos::fusion::chooseTile(TaskOp task) {
  ArrayRef<int64_t> space = shapeOf(task.getResult(0));
  int64_t rank = space.size();
  SmallVector<int64_t> tile(rank, 1);
  if (rank == 0)
    return tile;

  SmallVector<int64_t> whole;
  int64_t factor = 1;
  SmallVector<MatmulOp> matmuls;
  for (Operation &op : task.getBodyBlock().without_terminator()) {
    if (auto matmul = dyn_cast<MatmulOp>(op))
      matmuls.push_back(matmul);
    if (!isReductionAnchor(&op))
      continue;
    factor = std::max(factor, reductionFactor(&op));
    if (shapeOf(op.getResult(0)) == space)
      addWholeAxes(&op, whole);
  }

  if (!matmuls.empty() && rank >= 2) {
    // Matmuls: 64x64 output blocks. Micro-batches through one weight keep
    // their whole M in the tile, so each block of weight columns is read by
    // one tile for all of them.
    bool sharedWeight = llvm::any_of(matmuls, [&](MatmulOp a) {
      return llvm::any_of(matmuls, [&](MatmulOp b) {
        return a != b && a.getRhs() == b.getRhs();
      });
    });
    int64_t m = space[rank - 2], n = space[rank - 1];
    if (m != kDynamic && m >= 1 && m <= kSmallMatmulM) {
      // Small M (matvec, decode, micro-batches, attention against a KV
      // cache): the block splits K (docs/codegen.md, "Small-M matmul"), so
      // a tile is all M rows by a block of 32-128 columns, the widest that
      // still gives every worker block of the device a tile (N / tn >=
      // kTileSpread), and at most 256 outputs (its f32 partials live in
      // shared memory). Batch dims are tiled by 1.
      // Narrow tiles (down to 8 columns for micro-batches through one
      // weight, whose tiles do M x count rows of work each, else 16) give
      // more tiles (H200: the 8 x 4-row micro-batch matmul 1024x1024 ran
      // 71 us in 32 tiles of 32 columns, 34 us in 128 of 8).
      int64_t tn = smallMatmulColumns(m, n, sharedWeight);
      // The matmuls reading this lhs run side by side (gate and up): when
      // their tiles together pass one per worker block, wider tiles fit
      // them into one wave (H200, decode's gate and up, 2 x 176 tiles of
      // 16 columns: 14.6 us; 2 x 88 of 32: 10 us; the step 261.9 -> 242.4
      // us sync, 138.0 -> 123.9 pipelined).
      if (!sharedWeight && rank == 2 && n != kDynamic &&
          !matmuls.front().getTransposeLhs()) {
        SmallVector<int64_t> columns = siblingColumns(task, matmuls.front());
        columns.push_back(n);
        auto tiles = [&](int64_t width) {
          int64_t count = 0;
          for (int64_t c : columns)
            count += llvm::divideCeil(c, width);
          return count;
        };
        while (tiles(tn) > kTileSpread && tn * 2 <= 128 && tn * 2 * m <= 256 &&
               tn * 2 <= int64_t(llvm::bit_ceil(uint64_t(n))))
          tn *= 2;
      }
      tile[rank - 2] = m;
      tile[rank - 1] = tn;
      return tile;
    }
    int64_t tm;
    if (sharedWeight)
      tm = m == kDynamic ? kWholeDynamicTile : std::max<int64_t>(m, 1);
    else
      tm = m == kDynamic ? 64 : std::clamp<int64_t>(m, 1, 64);
    int64_t tn = std::min<int64_t>(
        64, powerOfTwoAtMost(kTileWorkElements /
                             std::min(tm, kTileWorkElements)));
    if (n != kDynamic)
      tn = std::min<int64_t>(tn, std::max<int64_t>(n, 1));
    // Long K: fewer rows per tile, so a tile stays a few microseconds long
    // (urgent work waits for at most one tile of a background matmul), but
    // a tile keeps a block's worth of outputs.
    int64_t k = 1;
    for (MatmulOp matmul : matmuls) {
      ArrayRef<int64_t> lhs = shapeOf(matmul.getLhs());
      int64_t size = lhs[lhs.size() - (matmul.getTransposeLhs() ? 2 : 1)];
      k = std::max(k, size == kDynamic ? kTileMaxMatmulWork : size);
    }
    while (!sharedWeight && tm > 1 && tm * tn > kTileMinMatmulOutputs &&
           tm * tn * k > kTileMaxMatmulWork)
      tm /= 2;
    tile[rank - 2] = tm;
    tile[rank - 1] = tn;
    return tile;
  }

  // Elements per tile (docs/passes.md, "The tile rule"): at most
  // kTileMaxWork / (work per element) and kTileMaxElements, so a tile stays
  // a few microseconds long; within that, small enough that the task spreads
  // over kTileSpread tiles, but not below kTileMinElements.
  int64_t ops = computeOpCount(task.getBodyBlock());
  int64_t work = std::min(kTileMaxWork, std::max<int64_t>(ops, 1) * factor);
  int64_t budget = std::max<int64_t>(
      1, std::min(kTileMaxElements, kTileMaxWork / work));
  const int64_t shortTile = budget;
  if (llvm::none_of(space, [](int64_t size) { return size == kDynamic; })) {
    int64_t elements = 1;
    for (int64_t size : space)
      elements *= std::max<int64_t>(size, 1);
    int64_t spread = llvm::divideCeil(elements, kTileSpread);
    budget = std::min(budget, std::max(kTileMinElements, spread));
  }
  // Whole axes first, then the innermost dimensions while the tile stays
  // within the budget.
  sortUnique(whole);
  for (int64_t axis : whole) {
    int64_t size = space[axis];
    if (size == kDynamic) {
      tile[axis] = kWholeDynamicTile;
      budget = 1;
    } else {
      tile[axis] = std::max<int64_t>(size, 1);
      budget = std::max<int64_t>(1, budget / tile[axis]);
    }
  }
  for (int64_t axis = rank - 1; axis >= 0; --axis) {
    if (llvm::is_contained(whole, axis))
      continue;
    int64_t size = space[axis];
    if (size != kDynamic && size <= budget) {
      tile[axis] = std::max<int64_t>(size, 1);
      budget = std::max<int64_t>(1, budget / tile[axis]);
    } else {
      tile[axis] = powerOfTwoAtMost(budget);
      budget = 1;
    }
  }
  if (whole.empty() && factor == 1)
    coverTransposedSectors(task, space, shortTile, tile);
  return tile;
}

void gpuos::fusion::outlineMultiNodeGroups(GraphOp graph, FusionGraph &fg) {
  KindNamer namer(graph);
  for (const SmallVector<Operation *> &group : fg.multiNodeGroups())
    outlineGroup(group, namer);
  (void)sortGraphBody(graph.getBodyBlock());
}

bool gpuos::fusion::isRowChainLink(Operation *op) {
  if (auto softmax = dyn_cast<SoftmaxOp>(op))
    return int64_t(softmax.getAxis()) ==
           cast<StridedTensorType>(softmax.getType()).getRank() - 1;
  return isa<LayerNormOp, RmsNormOp>(op);
}

unsigned gpuos::fusion::maxRowOpsPerTask(Operation *link) {
  constexpr unsigned kMaxRowOpsPerTask = 32, kMaxLongRowOpsPerTask = 16;
  constexpr int64_t kStraightLineRow = 16 * 256;
  ArrayRef<int64_t> shape = shapeOf(link->getOperand(0));
  int64_t row = shape.empty() ? 1 : shape.back();
  return row != ShapedType::kDynamic && row <= kStraightLineRow
             ? kMaxRowOpsPerTask
             : kMaxLongRowOpsPerTask;
}

unsigned gpuos::fusion::rowChainLinks(Operation *op) {
  auto task = dyn_cast<TaskOp>(op);
  if (!task)
    return isRowChainLink(op) ? 1 : 0;
  unsigned links = 0;
  for (Operation &inner : task.getBodyBlock().without_terminator())
    links += isRowChainLink(&inner) ? 1 : 0;
  return links;
}

void gpuos::fusion::joinNewestOpenGroup(
    FusionGraph &fg, SmallVectorImpl<unsigned> &open, unsigned node,
    unsigned width, unsigned maxResults,
    llvm::function_ref<bool(unsigned leader)> accepts) {
  for (unsigned i = open.size(); i-- > 0;) {
    unsigned leader = fg.find(open[i]);
    // A group never takes a consumer of its own members (siblings only):
    // wouldCreateCycle sees paths through other nodes, not a direct edge.
    bool readsMember = llvm::any_of(fg.predecessors(node), [&](unsigned p) {
      return fg.find(p) == leader;
    });
    if (readsMember || (accepts && !accepts(leader)) ||
        fg.resultsIfMerged(leader, node) > maxResults ||
        !fg.withinOpCap({leader, node}) ||
        fg.wouldCreateCycle({leader, node}))
      continue;
    leader = fg.merge(leader, node);
    if (fg.groupSize(leader) >= width)
      open.erase(open.begin() + i);
    return;
  }
  if (width > 1)
    open.push_back(node);
}

SmallVector<UnitInfo> gpuos::fusion::classifyUnits(const FusionGraph &fg) {
  SmallVector<UnitInfo> units;
  for (unsigned node = 0; node < fg.size(); ++node)
    units.push_back(classifyUnit(fg.op(node)));
  return units;
}

LogicalResult
gpuos::fusion::fuseGraph(GraphOp graph,
                         llvm::function_ref<void(FusionGraph &)> fuse) {
  if (failed(sortGraph(graph, "fused")))
    return failure();
  FusionGraph fg(graph.getBodyBlock());
  fuse(fg);
  outlineMultiNodeGroups(graph, fg);
  return success();
}
