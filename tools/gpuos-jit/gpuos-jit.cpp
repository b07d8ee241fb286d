//===- gpuos-jit.cpp - .mlir in, image out --------------------------------===//
//
//   gpuos-jit in.mlir [--arch=sm_90] [-O0..3] [--emit=mlir|llvm|ptx|image]
//             [-o out] [--cache-dir=DIR] [--no-cache] [-v]
//
// Lowers every gpuos.task to a device function (docs/abi.md), emits PTX with
// LLVM's NVPTX backend in-process, and for --emit=image links it with
// nvJitLink into <out>.cubin plus <out>.manifest.json. Images are cached by
// content hash, so an unchanged graph never links twice. Needs no GPU or
// driver: nvJitLink is opened with dlopen, only for --emit=image.
//
// Exit status: 0 success, 1 bad input or a failed compile (diagnostics give
// file:line:col), 2 bad command-line options.
//
//===----------------------------------------------------------------------===//

#include "gpuos/Conversion/GpuosToNVVM.h"
#include "gpuos/Dialect/Gpuos/IR/GpuosDialect.h"
#include "gpuos/Target/ImageCache.h"
#include "gpuos/Target/Manifest.h"
#include "gpuos/Target/NvJitLink.h"
#include "gpuos/Target/PTX.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/Timer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>

using namespace mlir;
using namespace gpuos;
namespace cl = llvm::cl;

/// Bump when the generated code changes for the same input and options:
/// it is part of every content hash, so old cache entries stop matching.
static constexpr llvm::StringLiteral kCodegenVersion = "gpuos-codegen-1";

enum class Emit { MLIR, LLVM, PTX, Image };

static cl::OptionCategory category("gpuos-jit options");
static cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<input.mlir>"),
                                          cl::init("-"), cl::cat(category));
static cl::opt<std::string> outputFilename(
    "o", cl::desc("Output file (--emit=image: writes <out>.cubin and "
                  "<out>.manifest.json; default: the input's stem)"),
    cl::value_desc("out"), cl::cat(category));
static cl::opt<std::string> arch("arch",
                                 cl::desc("GPU architecture: sm_80, sm_89, "
                                          "sm_90 (default), sm_100"),
                                 cl::init(kDefaultArch.str()), cl::cat(category));
static cl::opt<char> optLevel("O", cl::desc("Optimization level 0-3 (default 3)"),
                              cl::Prefix, cl::init('3'), cl::cat(category));
static cl::opt<Emit> emit(
    "emit", cl::desc("What to produce"), cl::init(Emit::Image),
    cl::values(clEnumValN(Emit::MLIR, "mlir", "IR after lowering the tasks"),
               clEnumValN(Emit::LLVM, "llvm", "LLVM IR of the task module, "
                                              "after libdevice and -O"),
               clEnumValN(Emit::PTX, "ptx", "PTX text"),
               clEnumValN(Emit::Image, "image",
                          "<out>.cubin + <out>.manifest.json (default)")),
    cl::cat(category));
static cl::opt<std::string> cacheDir(
    "cache-dir",
    cl::desc("Image cache directory (default $XDG_CACHE_HOME/gpuos or "
             "~/.cache/gpuos)"),
    cl::value_desc("dir"), cl::cat(category));
static cl::opt<bool> noCache("no-cache", cl::desc("Neither read nor write the cache"),
                             cl::cat(category));
static cl::opt<std::string> cudaPath(
    "cuda-path", cl::desc("CUDA toolkit root, for libdevice (default "
                          "$CUDA_HOME, $CUDA_PATH or /usr/local/cuda)"),
    cl::value_desc("dir"), cl::cat(category));
static cl::opt<std::string> nvJitLinkPath(
    "nvjitlink", cl::desc("libnvJitLink.so.13 to use (default: the loader "
                          "path, $CUDA_HOME/lib64, /usr/local/cuda/lib64)"),
    cl::value_desc("path"), cl::cat(category));
static cl::opt<int64_t> blockSize(
    "block-size", cl::desc("Block size the task functions are tuned for "
                           "(multiple of 32, at most 1024; default 256)"),
    cl::init(256), cl::cat(category));
static cl::opt<bool> verbose("v", cl::desc("Report cache hits, timings and "
                                           "ptxas' resource usage on stderr"),
                             cl::cat(category));

namespace {
/// Milliseconds since construction, for -v.
struct Stopwatch {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double ms() const {
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now() - start)
        .count();
  }
};
} // namespace

/// Exit status 2 with a message, for bad options.
static int usageError(const llvm::Twine &message) {
  llvm::errs() << "gpuos-jit: " << message << "\n";
  return 2;
}

/// What identifies this compiler build: a rebuilt gpuos-jit never reuses
/// images made by another build (its size or time differs).
static std::string compilerIdentity(const char *argv0) {
  std::string id = kCodegenVersion.str();
  std::string exe = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&compilerIdentity));
  llvm::sys::fs::file_status status;
  if (!exe.empty() && !llvm::sys::fs::status(exe, status))
    id += " " + std::to_string(status.getSize()) + " " +
          std::to_string(status.getLastModificationTime().time_since_epoch().count());
  return id;
}

static std::string canonicalText(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().enableDebugInfo(false));
  return text;
}

/// -o, or stdout for the text outputs.
static std::string outputPath() {
  return outputFilename.empty() ? std::string("-") : outputFilename.getValue();
}

static LogicalResult writeOutput(StringRef path, StringRef data) {
  std::string error;
  auto file = openOutputFile(path, &error);
  if (!file) {
    llvm::errs() << "gpuos-jit: " << error << "\n";
    return failure();
  }
  file->os() << data;
  file->keep();
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "gpuos-jit: gpuos graphs to a GPU image\n",
                                   &llvm::errs()))
    return 2;
  if (!isSupportedArch(arch))
    return usageError("unsupported --arch=" + arch +
                      "; use sm_80, sm_89, sm_90 or sm_100");
  if (optLevel < '0' || optLevel > '3')
    return usageError("unsupported -O" + std::string(1, optLevel) + "; use -O0 to -O3");
  if (blockSize < 32 || blockSize > 1024 || blockSize % 32 != 0)
    return usageError("--block-size must be a multiple of 32 up to 1024");
  int opt = optLevel - '0';

  DialectRegistry registry;
  registry.insert<GpuosDialect, arith::ArithDialect, cf::ControlFlowDialect,
                  gpu::GPUDialect, LLVM::LLVMDialect, NVVM::NVVMDialect,
                  scf::SCFDialect>();
  registerPTXEmission(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics point at the source line; the op dump adds only noise.
  context.printOpOnDiagnostic(false);

  std::string error;
  auto input = openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << "gpuos-jit: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  Stopwatch total;
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  // Image paths, the content hash and the cache come first: a hit skips
  // lowering and linking altogether.
  std::string cubinPath, manifestPath, contentHash;
  std::optional<NvJitLink> linker;
  std::optional<ImageCache> cache;
  if (emit == Emit::Image) {
    std::string out = outputFilename;
    if (out.empty())
      out = inputFilename == "-" ? "a"
                                 : llvm::sys::path::stem(inputFilename).str();
    if (StringRef(out).ends_with(".cubin"))
      out.resize(out.size() - 6);
    cubinPath = out + ".cubin";
    manifestPath = out + ".manifest.json";
    llvm::Expected<NvJitLink> loaded = NvJitLink::load(nvJitLinkPath);
    if (!loaded) {
      llvm::errs() << "gpuos-jit: " << llvm::toString(loaded.takeError()) << "\n";
      return 1;
    }
    linker = *loaded;
    std::string key;
    llvm::raw_string_ostream keyStream(key);
    keyStream << compilerIdentity(argv[0]) << "\nnvJitLink " << linker->version()
              << "\narch " << arch << "\nO " << opt << "\nblock-size "
              << blockSize << "\nruntime none\n"
              << canonicalText(*module);
    contentHash = sha256Hex(key);
    if (!noCache) {
      cache.emplace(cacheDir.empty() ? ImageCache::defaultDirectory()
                                     : cacheDir.getValue());
      if (cache->contains(contentHash)) {
        if (llvm::Error e = cache->fetch(contentHash, cubinPath, manifestPath)) {
          llvm::errs() << "gpuos-jit: " << llvm::toString(std::move(e)) << "\n";
          return 1;
        }
        if (verbose)
          llvm::errs() << "cache: hit " << contentHash << " ("
                       << llvm::format("%.1f", total.ms()) << " ms)\n";
        return 0;
      }
    }
  }

  // Images describe tasks only: reject unpartitioned graphs before any work.
  if (emit == Emit::Image && failed(checkPartitioned(*module)))
    return 1;
  Stopwatch lowering;
  LowerTasksOptions lowerOptions;
  lowerOptions.blockSize = blockSize;
  SmallVector<TaskCodegenInfo> infos;
  if (failed(lowerTasksToNVVM(*module, lowerOptions, &infos)))
    return 1;
  double loweringMs = lowering.ms();
  if (emit == Emit::MLIR) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    return failed(writeOutput(outputPath(), text));
  }

  auto gpuModule = module->lookupSymbol<gpu::GPUModuleOp>(kTaskModuleName);
  if (!gpuModule) {
    emitError(module->getLoc()) << "the input has no gpuos.task to compile";
    return 1;
  }
  Stopwatch codegen;
  PTXOptions ptxOptions;
  ptxOptions.arch = arch;
  ptxOptions.optLevel = opt;
  ptxOptions.cudaPath = cudaPath;
  ptxOptions.wantLLVMIR = emit == Emit::LLVM;
  FailureOr<PTXResult> ptx = emitPTX(gpuModule, ptxOptions);
  if (failed(ptx))
    return 1;
  double codegenMs = codegen.ms();
  if (emit == Emit::LLVM)
    return failed(writeOutput(outputPath(),
                              ptx->llvmIR));
  if (emit == Emit::PTX)
    return failed(writeOutput(outputPath(),
                              ptx->ptx));

  Stopwatch linking;
  LinkOptions linkOptions;
  linkOptions.arch = arch;
  linkOptions.optLevel = opt;
  linkOptions.verbose = verbose;
  llvm::Expected<LinkResult> linked =
      linker->link({LinkInput{LinkInput::PTX, "gpuos_tasks.ptx", ptx->ptx}},
                   linkOptions);
  if (!linked) {
    llvm::errs() << "gpuos-jit: " << llvm::toString(linked.takeError()) << "\n";
    return 1;
  }
  double linkMs = linking.ms();
  ManifestOptions manifestOptions{arch, contentHash};
  FailureOr<std::string> manifest = buildManifest(*module, infos, manifestOptions);
  if (failed(manifest))
    return 1;
  llvm::StringRef cubin(linked->cubin.data(), linked->cubin.size());
  if (llvm::Error e = writeFileAtomically(cubinPath, cubin)) {
    llvm::errs() << "gpuos-jit: " << llvm::toString(std::move(e)) << "\n";
    return 1;
  }
  if (llvm::Error e = writeFileAtomically(manifestPath, *manifest)) {
    llvm::errs() << "gpuos-jit: " << llvm::toString(std::move(e)) << "\n";
    return 1;
  }
  if (cache)
    if (llvm::Error e = cache->store(contentHash, linked->cubin, *manifest))
      // A cache that cannot be written costs time, not correctness.
      llvm::errs() << "gpuos-jit: warning: " << llvm::toString(std::move(e))
                   << "\n";
  if (verbose) {
    llvm::errs() << (cache ? "cache: miss " : "cache: off ") << contentHash
                 << "\n"
                 << llvm::format("time: lower %.1f ms, llvm+ptx %.1f ms, "
                                 "nvJitLink %.1f ms, total %.1f ms\n",
                                 loweringMs, codegenMs, linkMs, total.ms());
    if (!linked->infoLog.empty())
      llvm::errs() << linked->infoLog;
  }
  return 0;
}
