//===- StructureOps.cpp - graph, task, yield ------------------------------===//

#include "AsmDirectives.h"
#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace gpuos;

/// Graph input and output names are identifiers: they name buffers in the
/// C API, the manifest and the PyTorch front-end.
static bool isIdentifier(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name.drop_front(), [](char c) {
    return llvm::isAlnum(c) || c == '_';
  });
}

//===----------------------------------------------------------------------===//
// GraphOp
//===----------------------------------------------------------------------===//

/// graph ::= `gpuos.graph` symbol `(` (ssa-id `:` type),* `)`
///           `->` `(` (name `:` type),* `)` (`priority` attr)?
///           attr-dict-with-keyword region
ParseResult GraphOp::parse(OpAsmParser &parser, OperationState &result) {
  MLIRContext *context = parser.getContext();
  StringAttr symName;
  if (parser.parseSymbolName(symName, getSymNameAttrName(result.name),
                             result.attributes))
    return failure();

  SmallVector<OpAsmParser::Argument> inputs;
  if (parser.parseArgumentList(inputs, OpAsmParser::Delimiter::Paren,
                               /*allowType=*/true))
    return failure();
  SmallVector<Attribute> inputNames;
  SmallVector<Type> inputTypes;
  for (OpAsmParser::Argument &input : inputs) {
    StringRef name = input.ssaName.name.drop_front(); // drop the '%'
    if (!isIdentifier(name))
      return parser.emitError(input.ssaName.location)
             << "graph input '" << input.ssaName.name
             << "' needs a name (a letter or '_', then letters, digits or "
                "'_'), such as %x";
    inputNames.push_back(StringAttr::get(context, name));
    inputTypes.push_back(input.type);
  }

  SmallVector<Attribute> outputNames;
  SmallVector<Type> outputTypes;
  auto parseOutput = [&]() -> ParseResult {
    std::string name;
    SMLoc loc = parser.getCurrentLocation();
    Type type;
    if (parser.parseKeywordOrString(&name) || parser.parseColonType(type))
      return failure();
    if (!isIdentifier(name))
      return parser.emitError(loc)
             << "graph output name '" << name
             << "' is not an identifier (a letter or '_', then letters, "
                "digits or '_')";
    outputNames.push_back(StringAttr::get(context, name));
    outputTypes.push_back(type);
    return success();
  };
  if (parser.parseArrow() ||
      parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren,
                                     parseOutput))
    return failure();

  if (succeeded(parser.parseOptionalKeyword("priority"))) {
    PriorityAttr priority;
    if (parser.parseAttribute(priority))
      return failure();
    result.addAttribute(getPriorityAttrName(result.name), priority);
  }
  result.addAttribute(getInputNamesAttrName(result.name),
                      ArrayAttr::get(context, inputNames));
  result.addAttribute(getOutputNamesAttrName(result.name),
                      ArrayAttr::get(context, outputNames));
  result.addAttribute(
      getFunctionTypeAttrName(result.name),
      TypeAttr::get(FunctionType::get(context, inputTypes, outputTypes)));
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  return parser.parseRegion(*body, inputs);
}

void GraphOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  p << '(';
  llvm::interleaveComma(getBodyBlock().getArguments(), p,
                        [&](BlockArgument arg) { p.printRegionArgument(arg); });
  p << ") -> (";
  llvm::interleaveComma(llvm::zip(getOutputNames(), getOutputTypes()), p,
                        [&](auto output) {
                          p.printKeywordOrString(
                              cast<StringAttr>(std::get<0>(output)));
                          p << " : " << std::get<1>(output);
                        });
  p << ')';
  if (auto priority = getPriorityAttr())
    p << " priority " << priority;
  p.printOptionalAttrDictWithKeyword(
      (*this)->getDiscardableAttrDictionary().getValue());
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
}

void GraphOp::getAsmBlockArgumentNames(Region &region,
                                       OpAsmSetValueNameFn setNameFn) {
  ArrayAttr names = getInputNames();
  for (auto [arg, name] : llvm::zip(region.getArguments(), names))
    setNameFn(arg, cast<StringAttr>(name).getValue());
}

/// Names must be identifiers, distinct among inputs and outputs together.
static LogicalResult verifyNames(GraphOp graph) {
  llvm::StringSet<> seen;
  auto check = [&](ArrayAttr names, StringRef role) -> LogicalResult {
    for (Attribute attr : names) {
      StringRef name = cast<StringAttr>(attr).getValue();
      if (!isIdentifier(name))
        return graph.emitOpError() << role << " name '" << name
                                   << "' is not an identifier";
      if (!seen.insert(name).second)
        return graph.emitOpError()
               << role << " name '" << name
               << "' is used twice; inputs and outputs need distinct names";
    }
    return success();
  };
  return failure(failed(check(graph.getInputNames(), "input")) ||
                 failed(check(graph.getOutputNames(), "output")));
}

/// Reports the first cycle among the ops of `block` with a note at every op
/// on it. Graph regions allow any order, so this is the only cycle guard.
/// The depth-first walk keeps its own stack: graphs of 100k ops are real.
static LogicalResult verifyAcyclic(GraphOp graph, Block &block) {
  enum class Mark { Unvisited, OnPath, Done };
  llvm::DenseMap<Operation *, Mark> marks;
  // The current path, with the next operand to look at for each op on it.
  SmallVector<std::pair<Operation *, unsigned>> path;
  for (Operation &root : block) {
    if (marks.lookup(&root) != Mark::Unvisited)
      continue;
    marks[&root] = Mark::OnPath;
    path.push_back({&root, 0});
    while (!path.empty()) {
      auto &[op, next] = path.back();
      if (next == op->getNumOperands()) {
        marks[op] = Mark::Done;
        path.pop_back();
        continue;
      }
      Operation *producer = op->getOperand(next++).getDefiningOp();
      if (!producer || producer->getBlock() != &block)
        continue;
      Mark mark = marks.lookup(producer);
      if (mark == Mark::Unvisited) {
        marks[producer] = Mark::OnPath;
        path.push_back({producer, 0});
        continue;
      }
      if (mark == Mark::Done)
        continue;
      // `producer` is on the path: the ops from it to the top form a cycle.
      auto cycleBegin = llvm::find_if(
          path, [&](const auto &entry) { return entry.first == producer; });
      InFlightDiagnostic diag = graph.emitOpError()
                                << "body has a cycle through "
                                << (path.end() - cycleBegin)
                                << " op(s); a graph must be a DAG";
      for (const auto &entry : llvm::make_range(cycleBegin, path.end()))
        diag.attachNote(entry.first->getLoc())
            << "'" << entry.first->getName() << "' is on the cycle";
      return failure();
    }
  }
  return success();
}

/// The yield ending `block`, or null when the block ends otherwise.
static YieldOp getYield(Block &block) {
  return block.empty() ? YieldOp() : dyn_cast<YieldOp>(block.back());
}

LogicalResult GraphOp::verifyRegions() {
  Block &block = getBodyBlock();
  if (block.getNumArguments() != getInputTypes().size() ||
      !llvm::equal(block.getArgumentTypes(), getInputTypes()))
    return emitOpError("body arguments do not match the input types");
  if (getInputNames().size() != getInputTypes().size())
    return emitOpError() << "has " << getInputNames().size()
                         << " input names for " << getInputTypes().size()
                         << " inputs";
  if (getOutputNames().size() != getOutputTypes().size())
    return emitOpError() << "has " << getOutputNames().size()
                         << " output names for " << getOutputTypes().size()
                         << " outputs";
  if (getOutputTypes().empty())
    return emitOpError("needs at least one output");
  // The symbol names the graph in images and the C API, and @"" does not
  // print back as anything that parses.
  if (getSymName().empty())
    return emitOpError("needs a non-empty name");
  if (failed(verifyNames(*this)))
    return failure();
  for (Type type : getFunctionType().getInputs())
    if (!isa<StridedTensorType>(type))
      return emitOpError() << "input of type " << type
                           << " is not a !gpuos.tensor";

  YieldOp yield = getYield(block);
  if (!yield)
    return emitOpError("body must end with gpuos.yield");
  ValueRange values = yield.getValues();
  if (values.size() != getOutputTypes().size()) {
    InFlightDiagnostic diag = yield.emitOpError()
                              << "yields " << values.size() << " value(s) "
                              << "but the graph declares "
                              << getOutputTypes().size() << " output(s)";
    if (values.size() < getOutputTypes().size())
      diag << "; output '"
           << cast<StringAttr>(getOutputNames()[values.size()]).getValue()
           << "' is undefined";
    return diag;
  }
  for (auto [index, value, type] :
       llvm::enumerate(values, getOutputTypes()))
    if (value.getType() != type)
      return yield.emitOpError()
             << "output '"
             << cast<StringAttr>(getOutputNames()[index]).getValue()
             << "' is declared " << type << " but yields " << value.getType();

  for (Operation &op : block) {
    if (isa<GraphOp>(op) || op.getDialect() != (*this)->getDialect())
      return op.emitOpError()
             << "cannot appear in a gpuos.graph; graphs hold gpuos micro-ops "
                "and tasks";
    for (OpResult result : op.getResults())
      if (result.use_empty())
        return op.emitOpError()
               << "result #" << result.getResultNumber()
               << " is never used; every value in a graph must reach an "
                  "output";
  }
  return verifyAcyclic(*this, block);
}

//===----------------------------------------------------------------------===//
// TaskOp
//===----------------------------------------------------------------------===//

/// task ::= `gpuos.task` string `ins` `(` (ssa-id `=` ssa-use `:` type),* `)`
///          `tile` dim-list (`priority` attr)? `->` `(` type,* `)`
///          attr-dict-with-keyword region
ParseResult TaskOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr kind;
  if (parser.parseAttribute(kind, getKindAttrName(result.name),
                            result.attributes) ||
      parser.parseKeyword("ins"))
    return failure();
  SmallVector<OpAsmParser::Argument> args;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  SmallVector<Type> operandTypes;
  auto parseBinding = [&]() -> ParseResult {
    OpAsmParser::Argument arg;
    OpAsmParser::UnresolvedOperand operand;
    if (parser.parseArgument(arg) || parser.parseEqual() ||
        parser.parseOperand(operand) || parser.parseColonType(arg.type))
      return failure();
    args.push_back(arg);
    operands.push_back(operand);
    operandTypes.push_back(arg.type);
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren,
                                     parseBinding) ||
      parser.resolveOperands(operands, operandTypes,
                             parser.getCurrentLocation(), result.operands))
    return failure();

  DenseI64ArrayAttr tile;
  if (parser.parseKeyword("tile") || parseDimList(parser, tile))
    return failure();
  result.addAttribute(getTileAttrName(result.name), tile);
  if (succeeded(parser.parseOptionalKeyword("priority"))) {
    PriorityAttr priority;
    if (parser.parseAttribute(priority))
      return failure();
    result.addAttribute(getPriorityAttrName(result.name), priority);
  }
  SmallVector<Type> resultTypes;
  if (parser.parseArrow() ||
      parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Paren,
          [&]() { return parser.parseType(resultTypes.emplace_back()); }) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  result.addTypes(resultTypes);
  return parser.parseRegion(*result.addRegion(), args);
}

void TaskOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printAttributeWithoutType(getKindAttr());
  p << " ins(";
  llvm::interleaveComma(
      llvm::zip(getBodyBlock().getArguments(), getInputs()), p,
      [&](auto binding) {
        p.printOperand(std::get<0>(binding));
        p << " = ";
        p.printOperand(std::get<1>(binding));
        p << " : " << std::get<1>(binding).getType();
      });
  p << ") tile ";
  printDimList(p, *this, getTileAttr());
  if (auto priority = getPriorityAttr())
    p << " priority " << priority;
  p << " -> (" << getResultTypes() << ')';
  p.printOptionalAttrDictWithKeyword(
      (*this)->getDiscardableAttrDictionary().getValue());
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/true);
}

LogicalResult TaskOp::verifyRegions() {
  Block &block = getBodyBlock();
  if (!llvm::equal(block.getArgumentTypes(), getInputs().getTypes()))
    return emitOpError("body arguments do not match the bound inputs");
  if (getKind().empty())
    return emitOpError("needs a non-empty kind");
  if (getNumResults() == 0)
    return emitOpError("needs at least one result");
  auto first = cast<StridedTensorType>(getResult(0).getType());
  ArrayRef<int64_t> tile = getTile();
  if (static_cast<int64_t>(tile.size()) != first.getRank())
    return emitOpError() << "tile has " << tile.size()
                         << " sizes for a first result of rank "
                         << first.getRank();
  for (auto [axis, size] : llvm::enumerate(tile))
    if (size <= 0)
      return emitOpError() << "tile size " << axis
                           << " must be a positive number of elements";
  YieldOp yield = getYield(block);
  if (!yield)
    return emitOpError("body must end with gpuos.yield");
  if (!llvm::equal(yield.getValues().getTypes(), getResultTypes()))
    return yield.emitOpError()
           << "yields (" << yield.getValues().getTypes()
           << ") but the task produces (" << getResultTypes() << ")";
  for (Operation &op : block.without_terminator())
    if (isa<GraphOp, TaskOp>(op) || op.getDialect() != (*this)->getDialect())
      return op.emitOpError()
             << "cannot appear in a gpuos.task; tasks hold gpuos micro-ops";
  return success();
}
