//===- Interpreter.cpp - reference evaluation of gpuos graphs -------------===//

#include "gpuos/Interpreter/Interpreter.h"
#include "Indexing.h"
#include "OpDispatch.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace gpuos;
using namespace gpuos::interp;

/// The ops of `block` but its terminator, producers before users. Graph
/// bodies are graph regions, so the written order proves nothing. Among
/// independent ops the written order is kept, which makes runs repeatable.
static FailureOr<SmallVector<Operation *>> topologicalOrder(Block &block) {
  enum class Mark { Unvisited, OnPath, Done };
  llvm::DenseMap<Operation *, Mark> marks;
  SmallVector<Operation *> order;
  // An explicit stack: long chains of ops must not overflow the C++ one.
  SmallVector<std::pair<Operation *, unsigned>> stack;
  for (Operation &root : block.without_terminator()) {
    if (marks.lookup(&root) != Mark::Unvisited)
      continue;
    marks[&root] = Mark::OnPath;
    stack.push_back({&root, 0});
    while (!stack.empty()) {
      auto &[op, next] = stack.back();
      if (next == op->getNumOperands()) {
        marks[op] = Mark::Done;
        order.push_back(op);
        stack.pop_back();
        continue;
      }
      Operation *producer = op->getOperand(next++).getDefiningOp();
      if (!producer || producer->getBlock() != &block)
        continue;
      Mark mark = marks.lookup(producer);
      if (mark == Mark::OnPath)
        return producer->emitOpError(
            "is on a cycle of its block; the interpreter needs a DAG");
      if (mark == Mark::Unvisited) {
        marks[producer] = Mark::OnPath;
        stack.push_back({producer, 0});
      }
    }
  }
  return order;
}

/// Fails unless `value`'s runtime shape and element type fit `type`: equal
/// rank and element type, and every static dim equal.
static bool fitsType(const HostTensor &value, StridedTensorType type) {
  if (value.getRank() != type.getRank() ||
      dtypeFromType(type.getElementType()) != value.getDType())
    return false;
  for (auto [dim, have] : llvm::zip(type.getShape(), value.getShape()))
    if (dim != kDynamic && dim != have)
      return false;
  return true;
}

/// The type as the assembly spells it; streaming a Type into a diagnostic
/// would quote it.
static std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

namespace {
/// Evaluates one block: a graph body or a task body.
class BlockEvaluator {
public:
  explicit BlockEvaluator(const InterpreterOptions &options)
      : acc{options.accumulateInF64} {}

  /// Binds the block arguments to `args` and returns the yielded values.
  FailureOr<SmallVector<HostTensor>> run(Block &block,
                                         SmallVector<HostTensor> args) {
    FailureOr<SmallVector<Operation *>> order = topologicalOrder(block);
    if (failed(order))
      return failure();
    llvm::DenseMap<Value, HostTensor> values;
    // Uses left per value; a tensor is freed after its last use, so peak
    // memory follows the live set rather than the whole graph.
    llvm::DenseMap<Value, unsigned> usesLeft;
    auto define = [&](Value value, HostTensor tensor) {
      unsigned uses = std::distance(value.use_begin(), value.use_end());
      if (uses == 0)
        return;
      usesLeft[value] = uses;
      values[value] = std::move(tensor);
    };
    for (auto [arg, tensor] : llvm::zip(block.getArguments(), args))
      define(arg, std::move(tensor));

    for (Operation *op : *order) {
      for (Value operand : op->getOperands())
        if (!values.count(operand))
          return op->emitOpError()
                 << "uses a value the interpreter has not computed; is it "
                    "defined outside the graph?";
      auto lookup = [&](Value value) -> const HostTensor & {
        return values.find(value)->second;
      };
      FailureOr<SmallVector<HostTensor>> results = runOp(op, lookup);
      if (failed(results))
        return failure();
      for (auto [index, result] : llvm::enumerate(*results)) {
        auto type = cast<StridedTensorType>(op->getResult(index).getType());
        if (!fitsType(result, type))
          return op->emitOpError()
                 << "result #" << index << " is " << result.getTypeString()
                 << " at run time, which does not fit its type "
                 << typeString(type)
                 << "; a dynamic dimension took an illegal size";
      }
      // Define results before releasing operands: the lookup references
      // above die with the first insertion anyway.
      for (auto [value, result] : llvm::zip(op->getResults(), *results))
        define(value, std::move(result));
      for (Value operand : op->getOperands())
        if (--usesLeft[operand] == 0)
          values.erase(operand);
    }

    SmallVector<HostTensor> outputs;
    for (Value value : block.getTerminator()->getOperands()) {
      auto it = values.find(value);
      if (it == values.end())
        return block.getTerminator()->emitOpError()
               << "yields a value the interpreter has not computed";
      outputs.push_back(it->second);
    }
    return outputs;
  }

private:
  FailureOr<SmallVector<HostTensor>>
  runOp(Operation *op, function_ref<const HostTensor &(Value)> lookup) {
    if (auto task = dyn_cast<TaskOp>(op)) {
      SmallVector<HostTensor> args;
      for (Value input : task.getInputs())
        args.push_back(lookup(input));
      return run(task.getBodyBlock(), std::move(args));
    }
    if (op->getNumRegions() != 0 || op->getNumResults() != 1)
      return op->emitOpError("has no interpreter semantics");
    llvm::Expected<HostTensor> result = evaluateComputeOp(op, lookup, acc);
    if (!result)
      return op->emitOpError()
             << "failed at run time: " << llvm::toString(result.takeError());
    SmallVector<HostTensor> results;
    results.push_back(std::move(*result));
    return results;
  }

  Accumulation acc;
};
} // namespace

/// The static part of `type`'s element count fits the host limit.
static bool staticPartFitsOnHost(StridedTensorType type) {
  SmallVector<int64_t> dims;
  for (int64_t dim : type.getShape())
    dims.push_back(dim == kDynamic ? 1 : dim);
  return hostElementCount(dims).has_value();
}

LogicalResult gpuos::interp::checkFitsOnHost(GraphOp graph) {
  auto tooLarge = [](InFlightDiagnostic &&diag, Type type) -> LogicalResult {
    return diag << " of type " << typeString(type)
                << " has more elements than the interpreter holds ("
                << kMaxHostElements << ")";
  };
  ArrayAttr names = graph.getInputNames();
  for (auto [index, type] : llvm::enumerate(graph.getInputTypes())) {
    auto tensorType = dyn_cast<StridedTensorType>(type);
    if (tensorType && !staticPartFitsOnHost(tensorType))
      return tooLarge(emitError(graph.getLoc())
                          << "graph @" << graph.getSymName() << " input '"
                          << (index < names.size()
                                  ? cast<StringAttr>(names[index]).getValue()
                                  : StringRef("?"))
                          << "'",
                      type);
  }
  WalkResult walk = graph.getBodyBlock().walk([&](Operation *op) {
    for (OpResult result : op->getResults()) {
      auto type = dyn_cast<StridedTensorType>(result.getType());
      if (type && !staticPartFitsOnHost(type)) {
        (void)tooLarge(op->emitOpError()
                           << "result #" << result.getResultNumber(),
                       type);
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

FailureOr<SmallVector<HostTensor>>
gpuos::interp::evaluateGraph(GraphOp graph, ArrayRef<HostTensor> inputs,
                             const InterpreterOptions &options) {
  ArrayRef<Type> types = graph.getInputTypes();
  ArrayAttr names = graph.getInputNames();
  auto nameOf = [&](size_t index) {
    return index < names.size() ? cast<StringAttr>(names[index]).getValue()
                                : StringRef("?");
  };
  if (inputs.size() != types.size()) {
    InFlightDiagnostic diag = emitError(graph.getLoc())
                              << "graph @" << graph.getSymName() << " takes "
                              << types.size() << " input(s) (";
    for (size_t i = 0; i < types.size(); ++i)
      diag << (i ? ", " : "") << nameOf(i);
    return diag << ") but got " << inputs.size();
  }
  for (auto [index, type, input] : llvm::enumerate(types, inputs)) {
    auto tensorType = dyn_cast<StridedTensorType>(type);
    if (!tensorType)
      return emitError(graph.getLoc())
             << "graph @" << graph.getSymName() << " input '" << nameOf(index)
             << "' has non-gpuos type " << type;
    std::optional<DType> want = dtypeFromType(tensorType.getElementType());
    if (want != input.getDType() || !fitsType(input, tensorType)) {
      bool dtypeDiffers = want != input.getDType();
      InFlightDiagnostic diag = emitError(graph.getLoc())
                                << "graph @" << graph.getSymName() << " input '"
                                << nameOf(index) << "' expects ";
      if (dtypeDiffers)
        diag << "element type " << (want ? dtypeName(*want) : "?") << ", got "
             << dtypeName(input.getDType());
      else
        diag << "shape " << formatShape(tensorType.getShape()) << ", got "
             << shapeString(input.getShape());
      return diag << " (declared " << typeString(type) << ", given "
                  << input.getTypeString() << ")";
    }
  }
  if (failed(checkFitsOnHost(graph)))
    return failure();
  BlockEvaluator evaluator(options);
  return evaluator.run(graph.getBodyBlock(),
                       SmallVector<HostTensor>(inputs.begin(), inputs.end()));
}

FailureOr<HostTensor> gpuos::interp::hostTensorFromAttr(ElementsAttr value,
                                                        Location loc) {
  llvm::Expected<HostTensor> tensor = readElements(value);
  if (!tensor)
    return emitError(loc) << llvm::toString(tensor.takeError());
  return std::move(*tensor);
}
