//===- gpuos-interp.cpp - run a gpuos graph on random inputs --------------===//
//
// Parses a file, picks a graph, feeds it seeded random inputs through the
// reference interpreter and prints statistics and leading values of each
// output. The same file and seed always print the same text.
//
// Inputs: floats uniform in [-1, 1), or in [0.1, 2) for every float input
// when the graph contains log, sqrt, rsqrt or pow (which want positive
// operands); integers uniform in [0, 8); i1 in {0, 1}. One
// std::mt19937_64 seeded with --seed draws all inputs in order.
//
// With --inputs-dir, inputs come from files instead (the PyTorch front-end
// and other harnesses use this to check their own values): DIR/<name>.bin,
// row-major, float64 for float dtypes and int64 for integer ones and i1,
// little-endian; values are rounded to the input's dtype as a cast would.
// --outputs-dir writes every output the same way.
//
//===----------------------------------------------------------------------===//

#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "gpuos/Interpreter/Interpreter.h"
#include "gpuos/Tools/InputFile.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace gpuos;
using namespace gpuos::interp;

/// The tool's own options: --help lists only these (the shared libLLVM
/// registers every backend's options too; --help-hidden lists those).
static llvm::cl::OptionCategory toolOptions("gpuos-interp options");

static llvm::cl::opt<std::string> inputFilename(llvm::cl::Positional,
                                                llvm::cl::desc("<input file>"),
                                                llvm::cl::init("-"),
                                                llvm::cl::cat(toolOptions));
static llvm::cl::opt<std::string>
    graphName("graph", llvm::cl::desc("Graph to run (default: the first)"),
              llvm::cl::value_desc("name"), llvm::cl::cat(toolOptions));
static llvm::cl::opt<uint64_t> seed("seed",
                                    llvm::cl::desc("Seed of the random inputs"),
                                    llvm::cl::init(0),
                                    llvm::cl::cat(toolOptions));
static llvm::cl::opt<int64_t>
    printValues("print-values",
                llvm::cl::desc("Leading values to print per output"),
                llvm::cl::init(8), llvm::cl::cat(toolOptions));
static llvm::cl::opt<bool> accumulateInF64(
    "accumulate-in-f64",
    llvm::cl::desc("Accumulate reductions, norms, softmax and matmul in "
                   "double (default) rather than the element type"),
    llvm::cl::init(true), llvm::cl::cat(toolOptions));

static llvm::cl::opt<std::string> inputsDir(
    "inputs-dir",
    llvm::cl::desc("Read each input from DIR/<name>.bin (float64 or int64, "
                   "row-major) instead of drawing it at random"),
    llvm::cl::value_desc("dir"), llvm::cl::cat(toolOptions));
static llvm::cl::opt<std::string> outputsDir(
    "outputs-dir",
    llvm::cl::desc("Write each output to DIR/<name>.bin (float64 or int64, "
                   "row-major)"),
    llvm::cl::value_desc("dir"), llvm::cl::cat(toolOptions));

/// DIR/<name>.bin.
static std::string tensorPath(StringRef dir, StringRef name) {
  SmallString<128> path(dir);
  llvm::sys::path::append(path, name + ".bin");
  return std::string(path);
}

/// Reads an input written as float64 (float dtypes) or int64 (the rest).
static FailureOr<HostTensor> readTensor(StringRef dir, StringRef name,
                                        ArrayRef<int64_t> shape,
                                        DType dtype) {
  std::string path = tensorPath(dir, name);
  if (std::string why = gpuos::tools::unreadableInput(path); !why.empty()) {
    llvm::errs() << "gpuos-interp: error: input '" << name << "': cannot read "
                 << path << ": " << why << "\n";
    return failure();
  }
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer) {
    llvm::errs() << "gpuos-interp: error: input '" << name << "': cannot read "
                 << path << ": " << buffer.getError().message() << "\n";
    return failure();
  }
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  StringRef bytes = (*buffer)->getBuffer();
  if (static_cast<int64_t>(bytes.size()) != count * 8) {
    llvm::errs() << "gpuos-interp: error: input '" << name << "': " << path
                 << " holds " << bytes.size() << " bytes; "
                 << count << " elements of "
                 << (isFloat(dtype) ? "float64" : "int64") << " need "
                 << count * 8 << "\n";
    return failure();
  }
  if (isFloat(dtype)) {
    std::vector<double> values(count);
    std::memcpy(values.data(), bytes.data(), bytes.size());
    return HostTensor::fromDoubles(shape, dtype, values);
  }
  std::vector<int64_t> values(count);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return HostTensor::fromInts(shape, dtype, values);
}

static LogicalResult writeTensor(StringRef dir, StringRef name,
                                 const HostTensor &tensor) {
  std::string path = tensorPath(dir, name);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    llvm::errs() << "gpuos-interp: error: output '" << name
                 << "': cannot write " << path << ": " << ec.message() << "\n";
    return failure();
  }
  if (tensor.isFloat()) {
    ArrayRef<double> data = tensor.getFloatData();
    os.write(reinterpret_cast<const char *>(data.data()), data.size() * 8);
  } else {
    ArrayRef<int64_t> data = tensor.getIntData();
    os.write(reinterpret_cast<const char *>(data.data()), data.size() * 8);
  }
  os.close();
  if (os.has_error()) { // a full disk: named, not "LLVM ERROR: IO failure"
    llvm::errs() << "gpuos-interp: error: output '" << name << "': cannot write "
                 << path << ": " << os.error().message() << "\n";
    os.clear_error();
    return failure();
  }
  return success();
}

static void printSummary(llvm::raw_ostream &os, const HostTensor &tensor,
                         int64_t limit) {
  int64_t count = tensor.getNumElements();
  if (count == 0) {
    os << "  empty\n";
    return;
  }
  double min = tensor.getDouble(0), max = min, sum = 0;
  for (int64_t i = 0; i < count; ++i) {
    double value = tensor.getDouble(i);
    // NaN-propagating, so a NaN anywhere shows in the summary.
    if (std::isnan(value) || value < min)
      min = std::isnan(min) ? min : value;
    if (std::isnan(value) || value > max)
      max = std::isnan(max) ? max : value;
    sum += value;
  }
  os << llvm::format("  min %.6g max %.6g mean %.6g sum %.6g\n", min, max,
                     sum / count, sum);
  if (limit <= 0)
    return;
  os << "  values:";
  for (int64_t i = 0, e = std::min(limit, count); i < e; ++i) {
    if (tensor.isFloat())
      os << llvm::format(" %.6g", tensor.getDouble(i));
    else
      os << ' ' << tensor.getIntData()[i];
  }
  if (limit < count)
    os << " ...";
  os << '\n';
}

static bool wantsPositiveInputs(GraphOp graph) {
  bool positive = false;
  graph.walk([&](Operation *op) {
    if (isa<LogOp, SqrtOp, RsqrtOp, PowOp>(op))
      positive = true;
  });
  return positive;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::HideUnrelatedOptions(toolOptions);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "gpuos reference interpreter: runs a graph on seeded "
      "random inputs\n");

  MLIRContext context;
  context.loadDialect<GpuosDialect>();
  // Diagnostics point at the source line; the generic op dump adds noise.
  context.printOpOnDiagnostic(false);
  if (std::string why = gpuos::tools::unreadableInput(inputFilename);
      !why.empty()) {
    llvm::errs() << "gpuos-interp: error: cannot read '" << inputFilename
                 << "': " << why << "\n";
    return 1;
  }
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << "gpuos-interp: error: " << errorMessage << "\n";
    return 1;
  }
  if (std::string deep = gpuos::tools::tooDeepError(inputFilename, file->getBuffer());
      !deep.empty()) {
    llvm::errs() << deep << "\n";
    return 1;
  }
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(*sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return 1;

  SmallVector<GraphOp> graphs;
  module->walk([&](GraphOp graph) { graphs.push_back(graph); });
  if (graphs.empty()) {
    llvm::errs() << "gpuos-interp: error: " << inputFilename
                 << " contains no gpuos.graph\n";
    return 1;
  }
  GraphOp graph = graphs.front();
  if (!graphName.empty()) {
    auto it = llvm::find_if(graphs, [](GraphOp candidate) {
      return candidate.getSymName() == graphName;
    });
    if (it == graphs.end()) {
      llvm::errs() << "gpuos-interp: error: no graph named '" << graphName
                   << "' in " << inputFilename << "; it has ";
      llvm::interleaveComma(graphs, llvm::errs(), [](GraphOp candidate) {
        llvm::errs() << '@' << candidate.getSymName();
      });
      llvm::errs() << "\n";
      return 1;
    }
    graph = *it;
  }

  llvm::raw_ostream &os = llvm::outs();
  os << "graph @" << graph.getSymName();
  if (inputsDir.empty())
    os << " seed " << seed;
  os << "\n";
  if (failed(checkFitsOnHost(graph)))
    return 1;
  bool positive = wantsPositiveInputs(graph);
  std::mt19937_64 rng(seed);
  SmallVector<HostTensor> inputs;
  for (auto [name, type] :
       llvm::zip(graph.getInputNames(), graph.getInputTypes())) {
    auto tensorType = cast<StridedTensorType>(type);
    StringRef inputName = cast<StringAttr>(name).getValue();
    if (!tensorType.hasStaticShape()) {
      emitError(graph.getLoc())
          << "input '" << inputName << "' of graph @" << graph.getSymName()
          << " has the dynamic type " << type
          << "; gpuos-interp generates inputs only for static shapes";
      return 1;
    }
    DType dtype = *dtypeFromType(tensorType.getElementType());
    if (!inputsDir.empty()) {
      FailureOr<HostTensor> tensor =
          readTensor(inputsDir, inputName, tensorType.getShape(), dtype);
      if (failed(tensor))
        return 1;
      inputs.push_back(std::move(*tensor));
      os << "input " << inputName << " : " << type << " from "
         << tensorPath(inputsDir, inputName) << "\n";
      continue;
    }
    double lo = 0, hi = 8;
    if (isFloat(dtype)) {
      lo = positive ? 0.1 : -1.0;
      hi = positive ? 2.0 : 1.0;
    }
    inputs.push_back(makeRandom(tensorType.getShape(), dtype, rng, lo, hi));
    makeConsistentWithLayout(inputs.back(), tensorType.getEffectiveStrides());
    os << "input " << inputName << " : " << type;
    if (dtype == DType::I1)
      os << " random {0, 1}\n";
    else
      os << llvm::format(" uniform [%g, %g)\n", lo, hi);
  }

  InterpreterOptions options;
  options.accumulateInF64 = accumulateInF64;
  FailureOr<SmallVector<HostTensor>> outputs =
      evaluateGraph(graph, inputs, options);
  if (failed(outputs))
    return 1;
  for (auto [name, type, tensor] :
       llvm::zip(graph.getOutputNames(), graph.getOutputTypes(), *outputs)) {
    os << "output " << cast<StringAttr>(name).getValue() << " : " << type
       << "\n";
    printSummary(os, tensor, printValues);
    if (!outputsDir.empty() &&
        failed(writeTensor(outputsDir, cast<StringAttr>(name).getValue(),
                           tensor)))
      return 1;
  }
  return 0;
}
