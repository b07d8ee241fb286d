//===- gpuos-difftest.cpp - random graphs before and after the pipeline ---===//
//
// For each seed S, S+1, ..., S+N-1: build a random graph (lib/Testing),
// run the pipeline on a clone, evaluate both with the reference interpreter
// on the same seeded inputs and compare every output within the tolerances
// of docs/passes.md. Prints one summary line; on a mismatch, the seed, the
// output and the IR before and after, and exits 1.
//
//===----------------------------------------------------------------------===//

#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "gpuos/Dialect/Gpuos/Transforms/Passes.h"
#include "gpuos/Dialect/Gpuos/Transforms/Pipeline.h"
#include "gpuos/Interpreter/Interpreter.h"
#include "gpuos/Testing/RandomGraph.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <cmath>
#include <map>

using namespace mlir;
using namespace gpuos;
using namespace gpuos::interp;

/// The tool's own options: --help lists only these (the shared libLLVM
/// registers every backend's options too; --help-hidden lists those).
static llvm::cl::OptionCategory toolOptions("gpuos-difftest options");

static llvm::cl::opt<unsigned> count("count",
                                     llvm::cl::desc("Number of graphs"),
                                     llvm::cl::init(100),
                                     llvm::cl::cat(toolOptions));
static llvm::cl::opt<uint64_t>
    seed("seed",
         llvm::cl::desc("Seed of the first graph (graph i uses seed+i)"),
         llvm::cl::init(1), llvm::cl::cat(toolOptions));
static llvm::cl::opt<std::string> pipeline(
    "pipeline",
    llvm::cl::desc("Pass pipeline on builtin.module, as in "
                   "--pass-pipeline='builtin.module(...)' without the anchor "
                   "(default: gpuos-pipeline)"),
    llvm::cl::init(""), llvm::cl::cat(toolOptions));
static llvm::cl::opt<std::string>
    dumpFailures("dump-failures",
                 llvm::cl::desc("Write seed-S.mlir and seed-S.after.mlir of "
                                "each failing graph into this directory"),
                 llvm::cl::value_desc("dir"), llvm::cl::init(""),
                 llvm::cl::cat(toolOptions));
static llvm::cl::opt<unsigned> printLimit(
    "print-failures",
    llvm::cl::desc("Print the IR of at most this many failing graphs"),
    llvm::cl::init(3), llvm::cl::cat(toolOptions));
static llvm::cl::opt<bool>
    emitGraphs("emit-graphs",
               llvm::cl::desc("Print the generated graphs (one module's "
                              "worth) and stop"),
               llvm::cl::init(false), llvm::cl::cat(toolOptions));
static llvm::cl::opt<bool>
    stats("op-stats", llvm::cl::desc("Print how often each op was generated"),
          llvm::cl::init(false), llvm::cl::cat(toolOptions));
static llvm::cl::opt<unsigned>
    maxSteps("max-steps", llvm::cl::desc("Most generation steps per graph"),
             llvm::cl::init(testing::RandomGraphOptions().maxSteps),
             llvm::cl::cat(toolOptions));
static llvm::cl::opt<bool> corrupt(
    "self-test-corrupt",
    llvm::cl::desc("Self-test: after the pipeline, negate the first numeric "
                   "result of the first task, which must be reported"),
    llvm::cl::init(false), llvm::cl::Hidden, llvm::cl::cat(toolOptions));

namespace {

/// Per element type: |a - e| <= atol + rtol * |e| (numpy.allclose), NaN
/// matches NaN and infinities match exactly; integers and i1 compare
/// exactly. A few ulp of each float type: the pipeline moves ops into tasks
/// and, but for gpuos-split-k, does not reassociate, so results should be
/// identical, and these bounds catch any change of computation while
/// leaving room for rewrites that round differently in the last bits.
CompareOptions tolerance(DType dtype) {
  CompareOptions options;
  switch (dtype) {
  case DType::F64:
    options.atol = options.rtol = 1e-12;
    break;
  case DType::F32:
    options.atol = options.rtol = 1e-6;
    break;
  case DType::F16:
    options.atol = options.rtol = 2e-3;
    break;
  case DType::BF16:
    options.atol = options.rtol = 1.6e-2;
    break;
  default:
    options.atol = options.rtol = 0;
    break;
  }
  return options;
}

/// gpuos-split-k sums a matmul's K slices apart and then together: for
/// outputs it reaches, a bound of the reassociated sum's rounding
/// (docs/passes.md, "Differential testing: gpuos-difftest"; split-k.mlir
/// uses 1e-5 on one matmul, later ops may grow it). Only used once the
/// graph without the split matched within tolerance(), so a wrong
/// computation still fails.
CompareOptions reassociationTolerance(DType dtype) {
  CompareOptions options = tolerance(dtype);
  if (dtype == DType::F32)
    options.atol = options.rtol = 1e-4;
  else if (dtype == DType::F64)
    options.atol = options.rtol = 1e-10;
  return options;
}

/// Exact comparison, NaN equal to NaN.
bool bitIdentical(const HostTensor &a, const HostTensor &b) {
  if (a.getShape() != b.getShape() || a.getDType() != b.getDType())
    return false;
  if (!a.isFloat())
    return a.getIntData() == b.getIntData();
  for (int64_t i = 0; i < a.getNumElements(); ++i) {
    double x = a.getFloatData()[i], y = b.getFloatData()[i];
    if (!(x == y || (std::isnan(x) && std::isnan(y))))
      return false;
  }
  return true;
}

/// Integers: exact, as int64 (doubles would lose i64 bits).
CompareResult compareExact(const HostTensor &actual,
                           const HostTensor &expected) {
  CompareResult result;
  llvm::raw_string_ostream os(result.message);
  if (actual.getShape() != expected.getShape() ||
      actual.getDType() != expected.getDType()) {
    os << "type mismatch: actual " << actual.getTypeString() << ", expected "
       << expected.getTypeString();
    result.numMismatches = 1;
    return result;
  }
  for (int64_t i = 0; i < actual.getNumElements(); ++i) {
    if (actual.getIntData()[i] == expected.getIntData()[i])
      continue;
    if (result.numMismatches++ == 0) {
      result.firstMismatch = i;
      os << "element " << i << ": actual " << actual.getIntData()[i]
         << ", expected " << expected.getIntData()[i];
    }
  }
  result.ok = result.numMismatches == 0;
  return result;
}

struct Totals {
  unsigned graphs = 0, failed = 0;
  uint64_t outputs = 0, identical = 0, opsBefore = 0, tasksAfter = 0;
  /// Graphs whose outputs matched only within reassociationTolerance, and
  /// matched within tolerance() with gpuos-split-k left out.
  uint64_t reassociated = 0;
  double maxAbsError = 0;
  std::map<std::string, uint64_t> opCounts;
};

class DiffTester {
public:
  DiffTester() {
    context.loadDialect<GpuosDialect>();
    context.disableMultithreading();
    context.printOpOnDiagnostic(false);
  }

  int run();

private:
  bool testOne(uint64_t graphSeed);
  LogicalResult buildPipeline(PassManager &pm,
                              const GpuosPipelineOptions &options = {});
  /// The first output of `got` outside `toleranceOf` of `want`, as a
  /// message naming it; empty when all match.
  std::string firstMismatch(GraphOp graph, ArrayRef<HostTensor> want,
                            ArrayRef<HostTensor> got,
                            CompareOptions (*toleranceOf)(DType));
  /// True when the graph evaluates within tolerance() through the default
  /// pipeline without gpuos-split-k.
  bool matchesWithoutSplitK(ModuleOp before, ArrayRef<HostTensor> inputs,
                            ArrayRef<HostTensor> expected);
  void report(uint64_t graphSeed, const Twine &why, ModuleOp before,
              ModuleOp after);
  /// Graph bodies after gpuos-pipeline: tasks and the yield, kinds unique.
  std::string checkStructure(ModuleOp module);

  MLIRContext context;
  Totals totals;
  testing::RandomGraphOptions options;
};

LogicalResult DiffTester::buildPipeline(PassManager &pm,
                                        const GpuosPipelineOptions &options) {
  if (pipeline.empty()) {
    buildGpuosPipeline(pm, options);
    return success();
  }
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (failed(parsePassPipeline(pipeline, pm, os))) {
    llvm::errs() << "gpuos-difftest: error: bad --pipeline '" << pipeline
                 << "': " << errors << "\n";
    return failure();
  }
  return success();
}

void DiffTester::report(uint64_t graphSeed, const Twine &why, ModuleOp before,
                        ModuleOp after) {
  ++totals.failed;
  llvm::outs() << "FAIL seed " << graphSeed << ": " << why << "\n";
  // Every option that changes the graph or the check, so the line makes
  // the same failure again.
  llvm::outs() << "  reproduce: gpuos-difftest --count=1 --seed=" << graphSeed
               << (pipeline.empty() ? "" : " --pipeline='" + pipeline + "'");
  if (maxSteps.getNumOccurrences())
    llvm::outs() << " --max-steps=" << maxSteps;
  if (corrupt)
    llvm::outs() << " --self-test-corrupt";
  llvm::outs() << "\n";
  OpPrintingFlags flags;
  flags.assumeVerified();
  if (totals.failed <= printLimit) {
    llvm::outs() << "// ----- graph before the pipeline\n";
    before->print(llvm::outs(), flags);
    if (after) {
      llvm::outs() << "// ----- after the pipeline\n";
      after->print(llvm::outs(), flags);
    }
  }
  if (dumpFailures.empty())
    return;
  llvm::sys::fs::create_directories(dumpFailures);
  auto write = [&](ModuleOp module, StringRef suffix) {
    SmallString<128> path(dumpFailures);
    llvm::sys::path::append(path, "seed-" + std::to_string(graphSeed) + suffix);
    std::error_code error;
    llvm::raw_fd_ostream file(path, error);
    if (error) {
      llvm::errs() << "gpuos-difftest: cannot write " << path << ": "
                   << error.message() << "\n";
      return;
    }
    module->print(file, flags);
  };
  write(before, ".mlir");
  if (after)
    write(after, ".after.mlir");
}

std::string DiffTester::checkStructure(ModuleOp module) {
  auto shapeOf = [](Value value) {
    return cast<StridedTensorType>(value.getType()).getShape();
  };
  llvm::StringSet<> kinds;
  std::string problem;
  module.walk([&](GraphOp graph) {
    llvm::SmallPtrSet<Operation *, 32> placed;
    for (Operation &op : graph.getBodyBlock()) {
      // gpuos-assign-priorities leaves the body in topological order.
      for (Value operand : op.getOperands())
        if (Operation *def = operand.getDefiningOp(); def && !placed.count(def))
          problem = ("'" + op.getName().getStringRef() +
                     "' precedes the producer of its operand")
                        .str();
      placed.insert(&op);
      if (!problem.empty())
        return;
      if (isa<YieldOp>(op))
        continue;
      auto task = dyn_cast<TaskOp>(op);
      if (!task) {
        problem = ("graph body holds '" + op.getName().getStringRef() +
                   "' outside a task")
                      .str();
        return;
      }
      if (!kinds.insert(task.getKind()).second) {
        problem = ("task kind '" + task.getKind() + "' is used twice").str();
        return;
      }
      // The body forms of docs/passes.md. Every result has the iteration
      // space's shape; elementwise ops compute over it or over the input of
      // a reduction, softmax or norm, or over a matmul's lhs (a prologue).
      ArrayRef<int64_t> space = shapeOf(task.getResult(0));
      SmallVector<ArrayRef<int64_t>> spaces = {space};
      // Views between a small-M matmul and the prologue it reads as its
      // lhs (gpuos-split-k's reshape): the lowering stages the prologue,
      // computed at any index, so they may view a value the task computes.
      DenseSet<Operation *> lhsViews;
      for (Operation &inner : task.getBodyBlock()) {
        if (isa<ReduceOp, ArgmaxOp, SoftmaxOp, LayerNormOp, RmsNormOp>(inner))
          spaces.push_back(shapeOf(inner.getOperand(0)));
        // A small-M matmul's lhs (gpuos-fuse-matmul-prologues; M <= 16,
        // kSmallMatmulM of the passes).
        if (auto matmul = dyn_cast<MatmulOp>(inner)) {
          ArrayRef<int64_t> result = shapeOf(matmul.getResult());
          if (result.size() >= 2 && result.end()[-2] >= 1 && result.end()[-2] <= 16) {
            Value lhs = matmul.getLhs();
            spaces.push_back(shapeOf(lhs));
            // Only views that the matmul alone reads, one after the other.
            Operation *reader = matmul;
            while (Operation *def = lhs.getDefiningOp()) {
              if (!def->hasTrait<gpuos::OpTrait::View>() || def->getNumOperands() != 1 ||
                  !llvm::all_of(lhs.getUsers(), [&](Operation *user) { return user == reader; }))
                break;
              lhsViews.insert(def);
              reader = def;
              lhs = def->getOperand(0);
              spaces.push_back(shapeOf(lhs));
            }
          }
        }
      }
      for (Value result : task.getResults())
        if (shapeOf(result) != space)
          problem = ("task '" + task.getKind() +
                     "' has results of different shapes")
                        .str();
      for (Operation &inner : task.getBodyBlock())
        if (inner.hasTrait<gpuos::OpTrait::Elementwise>() &&
            !llvm::is_contained(spaces, shapeOf(inner.getResult(0))))
          problem = ("task '" + task.getKind() + "' computes '" +
                     inner.getName().getStringRef() +
                     "' over a shape that is neither its iteration space nor "
                     "a prologue's")
                        .str();
      if (!problem.empty())
        return;
      // Views read task inputs (or other views, constants, and concats the
      // task cloned, which are index maps too): a view of a value the task
      // computes would need it at other indices than the tile's, which
      // docs/passes.md rules out.
      for (Operation &inner : task.getBodyBlock()) {
        if ((!inner.hasTrait<gpuos::OpTrait::View>() && !isa<ConcatOp>(inner)) ||
            lhsViews.contains(&inner))
          continue;
        for (Value operand : inner.getOperands()) {
          Operation *def = operand.getDefiningOp();
          if (def && !def->hasTrait<gpuos::OpTrait::View>() &&
              !isa<ConstantOp, ConcatOp>(def)) {
            problem = ("task '" + task.getKind() + "' views the value of '" +
                       def->getName().getStringRef() + "' it computes")
                          .str();
            return;
          }
        }
      }
    }
  });
  return problem;
}

bool DiffTester::testOne(uint64_t graphSeed) {
  OwningOpRef<ModuleOp> before = ModuleOp::create(UnknownLoc::get(&context));
  GraphOp graph = testing::buildRandomGraph(
      *before, graphSeed, "random_" + std::to_string(graphSeed), options);

  // Diagnostics (verifier, passes, interpreter) go into the failure report.
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    llvm::raw_string_ostream os(diagnostics);
    os << "  " << diag << "\n";
    for (Diagnostic &note : diag.getNotes())
      os << "    note: " << note << "\n";
    return success();
  });

  if (failed(verify(*before))) {
    report(graphSeed, "the generated graph does not verify (generator bug):\n" +
                          diagnostics,
           *before, ModuleOp());
    return false;
  }
  if (emitGraphs) {
    // Bare graphs: a file of them parses as one module.
    graph->print(llvm::outs());
    llvm::outs() << "\n";
    return true;
  }
  graph.walk([&](Operation *op) {
    if (op != graph && !isa<YieldOp>(op))
      ++totals.opCounts[op->getName().stripDialect().str()];
  });
  totals.opsBefore += std::distance(graph.getBodyBlock().begin(),
                                    graph.getBodyBlock().end()) - 1;

  OwningOpRef<ModuleOp> after = before->clone();
  PassManager pm(&context);
  if (failed(buildPipeline(pm)))
    return false;
  if (failed(pm.run(*after))) {
    report(graphSeed, "the pipeline failed:\n" + diagnostics, *before, *after);
    return false;
  }
  if (failed(verify(*after))) {
    report(graphSeed, "the pipeline's output does not verify:\n" + diagnostics,
           *before, *after);
    return false;
  }
  if (pipeline.empty()) {
    std::string problem = checkStructure(*after);
    if (!problem.empty()) {
      report(graphSeed, problem, *before, *after);
      return false;
    }
  }
  GraphOp transformed = *after->getOps<GraphOp>().begin();
  after->walk([&](TaskOp) { ++totals.tasksAfter; });

  if (corrupt) {
    // Negate the first numeric result of the first task that has one.
    for (TaskOp task : transformed.getBodyBlock().getOps<TaskOp>()) {
      Operation *yield = task.getBodyBlock().getTerminator();
      Value value = yield->getOperand(0);
      auto type = cast<StridedTensorType>(value.getType());
      if (type.getElementType().isInteger(1))
        continue;
      OpBuilder builder(yield);
      yield->setOperand(0, NegOp::create(builder, task.getLoc(), value));
      break;
    }
  }

  // The same inputs for both: floats uniform in [-1, 1), integers in
  // [-8, 8), i1 in {0, 1}, from a generator seeded with the graph's seed.
  std::mt19937_64 rng(graphSeed);
  SmallVector<HostTensor> inputs;
  for (Type type : graph.getInputTypes()) {
    auto tensorType = cast<StridedTensorType>(type);
    DType dtype = *dtypeFromType(tensorType.getElementType());
    bool isFloatType = isFloat(dtype);
    inputs.push_back(makeRandom(tensorType.getShape(), dtype, rng,
                                isFloatType ? -1.0 : -8.0,
                                isFloatType ? 1.0 : 8.0));
    makeConsistentWithLayout(inputs.back(), tensorType.getEffectiveStrides());
  }
  FailureOr<SmallVector<HostTensor>> expected = evaluateGraph(graph, inputs);
  if (failed(expected)) {
    report(graphSeed,
           "the interpreter fails on the generated graph:\n" + diagnostics,
           *before, *after);
    return false;
  }
  FailureOr<SmallVector<HostTensor>> actual =
      evaluateGraph(transformed, inputs);
  if (failed(actual)) {
    report(graphSeed,
           "the interpreter fails after the pipeline:\n" + diagnostics,
           *before, *after);
    return false;
  }
  for (auto [want, got] : llvm::zip(*expected, *actual)) {
    ++totals.outputs;
    if (bitIdentical(got, want))
      ++totals.identical;
  }
  std::string mismatch = firstMismatch(graph, *expected, *actual, tolerance);
  if (mismatch.empty())
    return true;
  // gpuos-split-k reassociates: accept a looser bound only when the same
  // graph without the split matches within the tight one.
  if (pipeline.empty() &&
      firstMismatch(graph, *expected, *actual, reassociationTolerance).empty() &&
      matchesWithoutSplitK(*before, inputs, *expected)) {
    ++totals.reassociated;
    return true;
  }
  report(graphSeed, mismatch, *before, *after);
  return false;
}

std::string DiffTester::firstMismatch(GraphOp graph, ArrayRef<HostTensor> want,
                                      ArrayRef<HostTensor> got,
                                      CompareOptions (*toleranceOf)(DType)) {
  for (auto [index, pair] : llvm::enumerate(llvm::zip(want, got))) {
    auto [expected, actual] = pair;
    if (bitIdentical(actual, expected))
      continue;
    CompareResult result =
        expected.isFloat()
            ? compareTensors(actual, expected, toleranceOf(expected.getDType()))
            : compareExact(actual, expected);
    totals.maxAbsError = std::max(totals.maxAbsError, result.maxAbsError);
    if (result.ok)
      continue;
    StringRef name = cast<StringAttr>(graph.getOutputNames()[index]).getValue();
    return ("output '" + name + "' (" + expected.getTypeString() +
            ") differs: " + result.message)
        .str();
  }
  return "";
}

bool DiffTester::matchesWithoutSplitK(ModuleOp before,
                                      ArrayRef<HostTensor> inputs,
                                      ArrayRef<HostTensor> expected) {
  OwningOpRef<ModuleOp> unsplit = before.clone();
  PassManager pm(&context);
  GpuosPipelineOptions noSplit;
  noSplit.splitK = false;
  if (failed(buildPipeline(pm, noSplit)) || failed(pm.run(*unsplit)))
    return false;
  GraphOp graph = *unsplit->getOps<GraphOp>().begin();
  FailureOr<SmallVector<HostTensor>> actual = evaluateGraph(graph, inputs);
  return succeeded(actual) &&
         firstMismatch(graph, expected, *actual, tolerance).empty();
}

int DiffTester::run() {
  options.maxSteps = maxSteps;
  options.minSteps = std::min(options.minSteps, options.maxSteps);
  if (!pipeline.empty()) {
    PassManager pm(&context);
    if (failed(buildPipeline(pm)))
      return 2;
  }
  auto start = std::chrono::steady_clock::now();
  for (unsigned i = 0; i < count; ++i) {
    ++totals.graphs;
    testOne(seed + i);
  }
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  if (emitGraphs)
    return 0;

  llvm::raw_ostream &os = llvm::outs();
  if (stats) {
    os << "ops generated:";
    for (const auto &[name, n] : totals.opCounts)
      os << " " << name << "=" << n;
    os << "\n";
  }
  os << "gpuos-difftest: " << totals.graphs << " graphs, seeds " << seed
     << " to " << seed + count - 1 << ": " << totals.failed << " failed; "
     << totals.outputs << " outputs compared, " << totals.identical
     << " bit-identical, ";
  if (totals.reassociated)
    os << totals.reassociated
       << " graphs within gpuos-split-k's reassociation bound (and within "
          "tolerance without the split), ";
  os << "max abs error "
     << llvm::format("%g", totals.maxAbsError)
     << "; " << totals.opsBefore << " ops became " << totals.tasksAfter
     << " tasks; " << llvm::format("%.1f", seconds) << " s\n";
  return totals.failed ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerGpuosPasses();
  registerGpuosPipeline();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  llvm::cl::HideUnrelatedOptions(toolOptions);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "gpuos differential test: random graphs through the pass pipeline, "
      "checked against the reference interpreter\n");
  DiffTester tester;
  return tester.run();
}
