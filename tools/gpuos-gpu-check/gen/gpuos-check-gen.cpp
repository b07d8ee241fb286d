//===- gpuos-check-gen.cpp - test vectors for the GPU check ---------------===//
//
//   gpuos-check-gen tasks.mlir --manifest=img.manifest.json -o DIR
//                   [--image=../img.cubin] [--seed=N]
//
// Runs HERE (with LLVM/MLIR): for every task of the image, draws random
// inputs, evaluates the task on the CPU reference interpreter, and writes
// what the GPU side needs to check it without LLVM (scripts/gpu-check.sh):
//
//   DIR/check.txt                 launch facts and buffer layouts (below)
//   DIR/<kind>.in<i>.bin          input i as device bytes, laid out by its
//                                 strides (gaps filled with 0xFF = NaN)
//   DIR/<kind>.out<i>.expect.bin  output i's logical values, row-major,
//                                 f64 for floats, int64 for integers
//
// check.txt, one token list per line:
//   gpuos-check 1
//   image <cubin path relative to DIR>
//   task <kind> <launcher> <num_tiles> <block_size> <shared_bytes>
//   input  <dtype> <elem_bytes> <span> <rank> <shape...> <strides...> <file>
//   output <dtype> <elem_bytes> <span> <rank> <shape...> <strides...> <file> <atol> <rtol>
//   end
//   graph <name>              (after the tasks: each graph as a whole)
//   input  <name> <dtype> ... <file>              (graph input <name>)
//   output <name> <dtype> ... <file> <atol> <rtol> (graph output <name>)
//   end
//
// Task sections check each task on its own inputs (the launcher and the
// runtime check run them one at a time); graph sections check a whole
// graph from its inputs, intermediates included, as the runtime runs it
// (gpuos-runtime-check). Graph tolerances are the loosest of the graph's
// tasks.
//
// The manifest's buffers are checked against the IR on the way (same
// order, dtypes, shapes and strides), so the generator doubles as a
// manifest consistency test.
//
//===----------------------------------------------------------------------===//

#include "gpuos/Conversion/TaskABI.h"
#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "gpuos/Interpreter/Interpreter.h"
#include "gpuos/runtime/Manifest.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <random>

using namespace mlir;
namespace runtime = gpuos::runtime;
using namespace gpuos;
using namespace gpuos::interp;
namespace cl = llvm::cl;

/// The tool's own options: --help lists only these (the shared libLLVM
/// registers every backend's options too; --help-hidden lists those).
static cl::OptionCategory toolOptions("gpuos-check-gen options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<tasks.mlir>"),
                                          cl::Required, cl::cat(toolOptions));
static cl::opt<std::string> manifestPath("manifest",
                                         cl::desc("The image manifest"),
                                         cl::Required, cl::cat(toolOptions));
static cl::opt<std::string> outputDir("o", cl::desc("Output directory"),
                                      cl::Required, cl::cat(toolOptions));
static cl::opt<std::string>
    imageRef("image",
             cl::desc("The cubin's path as check.txt records it, relative to "
                      "the output directory (default: absolute, next to the "
                      "manifest)"),
             cl::cat(toolOptions));
static cl::opt<uint64_t> seed("seed", cl::desc("Seed of the random inputs"),
                              cl::init(0), cl::cat(toolOptions));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "gpuos-check-gen: " << message << "\n";
  return 1;
}

/// A graph that runs just `task` on its inputs: the interpreter evaluates
/// graphs, and each task is checked on its own inputs.
static GraphOp wrapTask(ModuleOp scratch, TaskOp task) {
  OpBuilder builder = OpBuilder::atBlockEnd(scratch.getBody());
  MLIRContext *context = task.getContext();
  SmallVector<Attribute> inputNames, outputNames;
  for (unsigned i = 0; i < task.getInputs().size(); ++i)
    inputNames.push_back(StringAttr::get(context, "in" + std::to_string(i)));
  for (unsigned i = 0; i < task.getNumResults(); ++i)
    outputNames.push_back(StringAttr::get(context, "out" + std::to_string(i)));
  auto type = FunctionType::get(context, task.getInputs().getTypes(),
                                task.getResultTypes());
  auto graph = GraphOp::create(builder, task.getLoc(), "check_" + task.getKind().str(),
                               type, ArrayAttr::get(context, inputNames),
                               ArrayAttr::get(context, outputNames),
                               PriorityAttr());
  Block *block = new Block();
  graph.getBody().push_back(block);
  IRMapping mapping;
  for (BlockArgument arg : task.getBodyBlock().getArguments())
    mapping.map(arg, block->addArgument(arg.getType(), arg.getLoc()));
  builder.setInsertionPointToEnd(block);
  for (Operation &op : task.getBodyBlock())
    builder.clone(op, mapping);
  return graph;
}

/// Float inputs in [0.1, 2) where the body takes logs or roots (as
/// gpuos-interp does), else in [-1, 1); integers in [0, 8).
static std::pair<double, double> inputRange(TaskOp task) {
  bool positive = false;
  task.getBodyBlock().walk([&](Operation *op) {
    if (isa<LogOp, SqrtOp, RsqrtOp, PowOp>(op))
      positive = true;
  });
  return positive ? std::pair(0.1, 2.0) : std::pair(-1.0, 1.0);
}

/// atol, rtol against the f64-accumulating reference. f16/bf16 compute in
/// f32 and round once at the store while the interpreter rounds after
/// every op, so they differ by a few units in the last place.
static std::pair<double, double> tolerance(Type element, TaskOp task) {
  bool reduces = false;
  task.getBodyBlock().walk([&](Operation *op) {
    if (isa<ReduceOp, SoftmaxOp, LayerNormOp, RmsNormOp, MatmulOp>(op))
      reduces = true;
  });
  if (element.isF64()) {
    // An f64 result of narrower float math (an f32 layer_norm cast to f64)
    // carries that math's error: the loosest tolerance of the task's
    // narrower float results (1e-10 flagged one f32 ulp as a failure).
    std::pair<double, double> tol{1e-10, 1e-10};
    task.getBodyBlock().walk([&](Operation *op) {
      for (Type type : op->getResultTypes())
        if (auto tensor = dyn_cast<StridedTensorType>(type))
          if (Type e = tensor.getElementType(); isa<FloatType>(e) && !e.isF64()) {
            std::pair<double, double> narrow = tolerance(e, task);
            tol = {std::max(tol.first, narrow.first), std::max(tol.second, narrow.second)};
          }
    });
    return tol;
  }
  if (element.isF32())
    return reduces ? std::pair(1e-4, 1e-4) : std::pair(1e-5, 1e-5);
  if (element.isF16())
    return {1e-2, 1e-2};
  if (element.isBF16())
    return {5e-2, 5e-2};
  return {0, 0}; // integers and i1: exact
}

static int64_t spanOf(StridedTensorType type) {
  int64_t span = 1;
  for (auto [size, stride] : llvm::zip(type.getShape(), type.getEffectiveStrides()))
    span += (std::max<int64_t>(size, 1) - 1) * stride;
  return span;
}

/// Little-endian device bytes of one element.
static void encode(const HostTensor &tensor, int64_t flat, Type type, char *out) {
  auto put = [&](uint64_t bits, unsigned bytes) {
    for (unsigned i = 0; i < bytes; ++i)
      out[i] = char((bits >> (8 * i)) & 0xFF);
  };
  if (!tensor.isFloat()) {
    put(uint64_t(tensor.getIntData()[flat]), elementStorageBytes(type));
    return;
  }
  double value = tensor.getDouble(flat);
  const llvm::fltSemantics *semantics =
      type.isF16()    ? &llvm::APFloat::IEEEhalf()
      : type.isBF16() ? &llvm::APFloat::BFloat()
      : type.isF32()  ? &llvm::APFloat::IEEEsingle()
                      : &llvm::APFloat::IEEEdouble();
  llvm::APFloat converted(value);
  bool lossy;
  converted.convert(*semantics, llvm::APFloat::rmNearestTiesToEven, &lossy);
  put(converted.bitcastToAPInt().getZExtValue(), elementStorageBytes(type));
}

static LogicalResult writeFile(StringRef path, StringRef data) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return failure();
  os << data;
  return success(!os.has_error());
}

static std::string dims(ArrayRef<int64_t> values) {
  std::string text;
  for (int64_t value : values)
    text += " " + std::to_string(value);
  return text;
}

static std::string typeName(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// Writes one buffer's file into the output directory and its line into
/// `check`: an input as device bytes laid out by its strides (gaps 0xFF),
/// an output as its logical values (f64 or int64 each) with tolerances.
/// Graph sections name the buffer (`name`), task sections do not.
static LogicalResult writeBuffer(StridedTensorType type, const HostTensor &tensor,
                                 bool isInput, const std::string &file,
                                 StringRef name, std::pair<double, double> tol,
                                 std::string &check) {
  Type element = type.getElementType();
  std::string data;
  if (isInput) {
    unsigned bytes = elementStorageBytes(element);
    data.assign(spanOf(type) * bytes, char(0xFF));
    SmallVector<int64_t> strides = type.getEffectiveStrides();
    for (int64_t flat = 0; flat < tensor.getNumElements(); ++flat) {
      int64_t rest = flat, offset = 0;
      for (int64_t axis = type.getRank() - 1; axis >= 0; --axis) {
        offset += (rest % type.getDimSize(axis)) * strides[axis];
        rest /= type.getDimSize(axis);
      }
      encode(tensor, flat, element, data.data() + offset * bytes);
    }
  } else {
    for (int64_t flat = 0; flat < tensor.getNumElements(); ++flat) {
      char bytes[8];
      if (tensor.isFloat()) {
        double value = tensor.getDouble(flat);
        memcpy(bytes, &value, 8);
      } else {
        int64_t value = tensor.getIntData()[flat];
        memcpy(bytes, &value, 8);
      }
      data.append(bytes, 8);
    }
  }
  SmallString<256> path(outputDir.getValue());
  llvm::sys::path::append(path, file);
  if (failed(writeFile(path, data))) {
    fail("cannot write " + path);
    return failure();
  }
  check += llvm::formatv("{0}{1}{2} {3} {4} {5} {6}{7}{8} {9}",
                         isInput ? "input" : "output", name.empty() ? "" : " ",
                         name, typeName(element), elementStorageBytes(element),
                         spanOf(type), type.getRank(), dims(type.getShape()),
                         dims(type.getEffectiveStrides()), file)
               .str();
  if (!isInput)
    check += llvm::formatv(" {0:e} {1:e}", tol.first, tol.second).str();
  check += "\n";
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(toolOptions);
  if (!cl::ParseCommandLineOptions(argc, argv, "GPU-check test vectors\n",
                                   &llvm::errs()))
    return 2;
  MLIRContext context;
  context.loadDialect<GpuosDialect>();
  llvm::SourceMgr sourceMgr;
  std::string error;
  auto file = openInputFile(inputFilename, &error);
  if (!file)
    return fail(error);
  sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  // The runtime's own parser: a manifest it would refuse is refused here,
  // with its message, before any field is trusted.
  auto manifestText = llvm::MemoryBuffer::getFile(manifestPath);
  if (!manifestText)
    return fail("cannot read " + manifestPath);
  runtime::ImageManifest manifest;
  runtime::Status parsed =
      runtime::parseManifest((*manifestText)->getBuffer(), manifest);
  if (!parsed.ok())
    return fail(manifestPath + ": " + parsed.toString());

  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
    return fail("cannot create " + outputDir + ": " + ec.message());
  std::string check = "gpuos-check 1\n";
  // The launcher finds the image through this path, relative to DIR.
  std::string image = imageRef;
  if (image.empty()) {
    SmallString<256> cubin(manifestPath.getValue());
    if (StringRef(cubin).ends_with(".manifest.json"))
      cubin.resize(cubin.size() - strlen(".manifest.json"));
    cubin += ".cubin";
    llvm::sys::fs::make_absolute(cubin);
    image = cubin.str().str();
  }
  check += "image " + image + "\n";

  OwningOpRef<ModuleOp> scratch = ModuleOp::create(UnknownLoc::get(&context));
  // Custom ops' reference graphs (their semantics for the interpreter) must
  // sit in the module the wrapped tasks are evaluated in.
  llvm::StringSet<> referenced;
  module->walk([&](CustomOp custom) {
    if (auto reference = custom.getReferenceAttr())
      referenced.insert(reference.getValue());
  });
  {
    OpBuilder builder = OpBuilder::atBlockEnd(scratch->getBody());
    for (GraphOp graph : module->getOps<GraphOp>())
      if (referenced.contains(graph.getSymName()))
        builder.clone(*graph);
  }
  std::mt19937_64 rng(seed);
  SmallVector<TaskOp> tasks;
  module->walk([&](TaskOp task) { tasks.push_back(task); });
  for (TaskOp task : tasks) {
    FailureOr<TaskABI> abi = TaskABI::get(task);
    if (failed(abi))
      return 1;
    int kind = manifest.findKind(abi->kind);
    if (kind < 0)
      return fail("the manifest has no task '" + abi->kind + "'");
    const runtime::ManifestTask &entry = manifest.tasks[kind];
    if (entry.buffers.size() != abi->buffers.size())
      return fail("manifest buffers of '" + abi->kind + "' do not match the IR");
    for (auto [index, type] : llvm::enumerate(abi->buffers)) {
      const runtime::ManifestBuffer &buffer = entry.buffers[index];
      if (buffer.isOutput != (index >= abi->numInputs) ||
          buffer.dtype != typeName(type.getElementType()) ||
          ArrayRef<int64_t>(buffer.shape) != type.getShape() ||
          !llvm::equal(buffer.strides, type.getEffectiveStrides()))
        return fail("manifest buffer '" + buffer.name + "' of '" + abi->kind +
                    "' does not match the IR");
    }

    GraphOp graph = wrapTask(*scratch, task);
    if (failed(checkFitsOnHost(graph)))
      return 1;
    auto [lo, hi] = inputRange(task);
    SmallVector<HostTensor> inputs;
    for (StridedTensorType type : ArrayRef(abi->buffers).take_front(abi->numInputs)) {
      DType dtype = *dtypeFromType(type.getElementType());
      bool isFloat = interp::isFloat(dtype);
      inputs.push_back(makeRandom(type.getShape(), dtype, rng, isFloat ? lo : 0,
                                  isFloat ? hi : 8));
      makeConsistentWithLayout(inputs.back(), type.getEffectiveStrides());
    }
    FailureOr<SmallVector<HostTensor>> outputs = evaluateGraph(graph, inputs);
    if (failed(outputs))
      return fail("the interpreter failed on task '" + abi->kind + "'");

    check += llvm::formatv("task {0} {1} {2} {3} {4}\n", abi->kind, abi->launcher,
                           abi->numTiles, entry.blockSize, entry.sharedBytes)
                 .str();
    for (auto [index, type] : llvm::enumerate(abi->buffers)) {
      bool isInput = index < abi->numInputs;
      unsigned slot = isInput ? index : index - abi->numInputs;
      std::string file = llvm::formatv("{0}.{1}{2}.{3}", abi->kind,
                                       isInput ? "in" : "out", slot,
                                       isInput ? "bin" : "expect.bin");
      const HostTensor &tensor = isInput ? inputs[index] : (*outputs)[slot];
      if (failed(writeBuffer(type, tensor, isInput, file, /*name=*/"",
                             tolerance(type.getElementType(), task), check)))
        return 1;
    }
    check += "end\n";
  }

  // Whole graphs, from their inputs: what the runtime runs.
  SmallVector<GraphOp> graphs;
  module->walk([&](GraphOp graph) { graphs.push_back(graph); });
  for (GraphOp graph : graphs) {
    SmallVector<TaskOp> members;
    graph.getBodyBlock().walk([&](TaskOp task) { members.push_back(task); });
    if (members.empty())
      continue;
    // Positive inputs when any task takes logs or roots (of its inputs,
    // which may be intermediates: those may still go negative, and then
    // both sides compute NaN).
    bool positive = llvm::any_of(
        members, [](TaskOp task) { return inputRange(task).first > 0; });
    auto [lowValue, highValue] = positive ? std::pair(0.1, 2.0) : std::pair(-1.0, 1.0);
    if (failed(checkFitsOnHost(graph)))
      return 1;
    SmallVector<HostTensor> inputs;
    for (Type type : graph.getFunctionType().getInputs()) {
      auto tensor = cast<StridedTensorType>(type);
      DType dtype = *dtypeFromType(tensor.getElementType());
      bool isFloat = interp::isFloat(dtype);
      inputs.push_back(makeRandom(tensor.getShape(), dtype, rng,
                                  isFloat ? lowValue : 0, isFloat ? highValue : 8));
      makeConsistentWithLayout(inputs.back(), tensor.getEffectiveStrides());
    }
    FailureOr<SmallVector<HostTensor>> outputs = evaluateGraph(graph, inputs);
    if (failed(outputs))
      return fail("the interpreter failed on graph '" + graph.getSymName() + "'");
    check += "graph " + graph.getSymName().str() + "\n";
    auto writeSide = [&](TypeRange types, ArrayAttr names,
                         ArrayRef<HostTensor> tensors, bool isInput) -> LogicalResult {
      for (auto [index, type] : llvm::enumerate(types)) {
        auto tensor = cast<StridedTensorType>(type);
        std::pair<double, double> tol(0, 0);
        for (TaskOp task : members) {
          auto [atol, rtol] = tolerance(tensor.getElementType(), task);
          tol = {std::max(tol.first, atol), std::max(tol.second, rtol)};
        }
        std::string file = llvm::formatv("{0}.g{1}{2}.{3}", graph.getSymName(),
                                         isInput ? "in" : "out", index,
                                         isInput ? "bin" : "expect.bin");
        if (failed(writeBuffer(tensor, tensors[index], isInput, file,
                               cast<StringAttr>(names[index]).getValue(), tol,
                               check)))
          return failure();
      }
      return success();
    };
    if (failed(writeSide(graph.getFunctionType().getInputs(),
                         graph.getInputNames(), inputs, true)) ||
        failed(writeSide(graph.getFunctionType().getResults(),
                         graph.getOutputNames(), *outputs, false)))
      return 1;
    check += "end\n";
  }
  SmallString<256> path(outputDir.getValue());
  llvm::sys::path::append(path, "check.txt");
  if (failed(writeFile(path, check)))
    return fail("cannot write " + path);
  return 0;
}
