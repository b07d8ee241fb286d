//===- gpuos-jit-core.cpp - .mlir in, image out ---------------------------===//
//
// The compiler behind the gpuos-jit command (gpuos-jit.cpp, a launcher that
// serves unchanged inputs from the cache without starting it):
//
//   gpuos-jit in.mlir [--arch=sm_90] [-O0..3] [--emit=mlir|llvm|ptx|image]
//             [-o out] [--cache-dir=DIR] [--no-cache] [--runtime-lib=PATH]
//             [--occupancy=latency|throughput] [--background-l2=normal|evict-first]
//             [--custom-source=FILE.cu ...] [-v]
//
// Lowers every gpuos.task to a device function (docs/abi.md), emits PTX with
// LLVM's NVPTX backend in-process, and for --emit=image links it with the
// runtime's device library by nvJitLink into <out>.cubin (the resident
// kernel, gpuos_dispatch, the tasks and their test kernels) plus
// <out>.manifest.json; that part is gpuos::jit::Compiler (lib/JIT). Images
// are cached by content hash, so an unchanged graph never links twice.
// Needs no GPU or driver: nvJitLink is opened with dlopen, only for
// --emit=image.
//
// Exit status: 0 success, 1 bad input or a failed compile (diagnostics give
// file:line:col), 2 bad command-line options.
//
//===----------------------------------------------------------------------===//

#include "SourceKey.h"
#include <optional>
#include "gpuos/Conversion/GpuosToNVVM.h"
#include "gpuos/JIT/Compiler.h"
#include "gpuos/Tools/BackgroundL2.h"
#include "gpuos/Tools/InputFile.h"
#include "gpuos/Target/ImageCache.h"
#include "gpuos/Target/PTX.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/Timer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <memory>

using namespace mlir;
using namespace gpuos;
namespace cl = llvm::cl;

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
static cl::opt<std::string> optLevel("O", cl::desc("Optimization level 0-3 (default 3)"),
                                     cl::Prefix, cl::init("3"), cl::cat(category));
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
static cl::opt<std::string> runtimeLib(
    "runtime-lib",
    cl::desc("The runtime's relocatable device library to link into the "
             "image (default $GPUOS_RUNTIME_LIB, or "
             "$GPUOS_RUNTIME_THROUGHPUT_LIB with --occupancy=throughput, else "
             "the one this build made); 'none': task functions and test "
             "kernels only"),
    cl::value_desc("path"), cl::cat(category));
static cl::list<std::string> customSources(
    "custom-source",
    cl::desc("CUDA C++ file defining device functions that gpuos.custom ops "
             "call (repeatable); compiled with NVRTC and linked into the image"),
    cl::value_desc("file.cu"), cl::cat(category));
static cl::opt<jit::Occupancy> occupancy(
    "occupancy",
    cl::desc("What the image's resident kernel is built for (default latency)"),
    cl::values(clEnumValN(jit::Occupancy::Latency, "latency",
                          "runtime and tasks at 128 registers: two workers per SM"),
               clEnumValN(jit::Occupancy::Throughput, "throughput",
                          "runtime and tasks at 80 registers: three workers per "
                          "SM, for bulk and background images")),
    cl::init(jit::Occupancy::Latency), cl::cat(category));
static cl::opt<gpuos::tools::BackgroundL2> backgroundL2(
    "background-l2",
    cl::desc("How background tasks' global accesses use L2 (default normal)"),
    gpuos::tools::backgroundL2Values(),
    cl::init(gpuos::tools::BackgroundL2::Normal), cl::cat(category));
static cl::opt<int> maxRegisters(
    "maxrregcount",
    cl::desc("Register limit of the task functions (default: the runtime "
             "device library's, 128, or 80 with --occupancy=throughput; 0: "
             "none, only with --runtime-lib=none)"),
    cl::init(-1), cl::cat(category));
static cl::opt<bool> noOverlap(
    "no-overlap", cl::desc("Prepare the nvJitLink session after the PTX, not "
                           "during it (for measurements)"),
    cl::Hidden, cl::cat(category));
static cl::opt<int64_t> blockSize(
    "block-size", cl::desc("Block size the task functions are tuned for "
                           "(multiple of 32, at most 1024; default 256)"),
    cl::init(256), cl::cat(category));
static cl::opt<std::string> sourceKey(
    "source-key", cl::desc("From the gpuos-jit launcher: <key>:<the input's "
                           "SHA-256>, index the image under the key (SourceKey.h)"),
    cl::Hidden, cl::cat(category));
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
  file->os().flush();
  if (file->os().has_error()) { // a full disk: named, not "LLVM ERROR: IO failure"
    llvm::errs() << "gpuos-jit: cannot write '" << path
                 << "': " << file->os().error().message() << "\n";
    file->os().clear_error();
    return failure();
  }
  file->keep();
  return success();
}

/// The launcher's index entry for --source-key=<key>:<input sha-256>: this
/// image, and the files it depends on with their sizes and times. Recorded
/// only when the input the core parsed is the one the launcher hashed, and
/// the dependencies did not change while it compiled (they are stamped
/// before and after). Best effort, like the cache: without an entry the
/// next run only takes longer.
struct SourceKeyRecord {
  std::string key;
  std::vector<sourcekey::FileStamp> before;
};
static std::optional<SourceKeyRecord> pendingSourceKey;

static bool isHex64(llvm::StringRef text) {
  return text.size() == 64 && llvm::all_of(text, llvm::isHexDigit);
}

/// The dependencies' stamps now, or nothing.
static std::optional<std::vector<sourcekey::FileStamp>>
stampDependencies(jit::Compiler &compiler) {
  llvm::Expected<std::vector<std::string>> files = compiler.dependencyFiles();
  if (!files) {
    llvm::consumeError(files.takeError());
    return std::nullopt;
  }
  std::vector<sourcekey::FileStamp> stamps;
  for (const std::string &path : *files) {
    sourcekey::FileStamp stamp;
    if (!sourcekey::stampOf(path, stamp))
      return std::nullopt; // a dependency the launcher could not check
    stamps.push_back(stamp);
  }
  return stamps;
}

static void beginSourceKey(jit::Compiler &compiler, llvm::StringRef input) {
  auto [key, inputSha] = llvm::StringRef(sourceKey).split(':');
  if (sourceKey.empty() || noCache || !isHex64(key) || !isHex64(inputSha) ||
      sha256Hex(input) != inputSha)
    return;
  if (std::optional<std::vector<sourcekey::FileStamp>> stamps = stampDependencies(compiler))
    pendingSourceKey = SourceKeyRecord{key.str(), std::move(*stamps)};
}

static void recordSourceKey(jit::Compiler &compiler, const std::string &hash,
                            llvm::StringRef manifest) {
  if (!pendingSourceKey)
    return;
  std::optional<std::vector<sourcekey::FileStamp>> after = stampDependencies(compiler);
  if (!after || *after != pendingSourceKey->before)
    return;
  sourcekey::Entry entry;
  entry.contentHash = hash;
  entry.deps = std::move(*after);
  llvm::SmallString<256> dir(cacheDir.empty() ? ImageCache::defaultDirectory()
                                              : std::string(cacheDir));
  // This source's manifest first (its ops' locations): the launcher serves
  // it instead of the content-keyed one, which may name another source.
  llvm::SmallString<256> manifestPath = dir;
  llvm::sys::path::append(manifestPath, sourcekey::kManifestSubdir);
  llvm::sys::path::append(dir, sourcekey::kSubdir);
  if (llvm::sys::fs::create_directories(dir) ||
      llvm::sys::fs::create_directories(manifestPath))
    return;
  llvm::sys::path::append(manifestPath, pendingSourceKey->key + ".json");
  llvm::sys::path::append(dir, pendingSourceKey->key);
  if (llvm::Error e = writeFileAtomically(manifestPath, manifest)) {
    llvm::consumeError(std::move(e));
    return;
  }
  llvm::consumeError(writeFileAtomically(dir, sourcekey::format(entry)));
}

/// --emit=image: <out>.cubin and <out>.manifest.json through the compiler
/// library (cache, runtime library, nvJitLink).
/// <out> of --emit=image: -o without ".cubin", or the input's stem.
static std::string imageStem() {
  std::string out = outputFilename;
  if (out.empty())
    out = inputFilename == "-" ? "a" : llvm::sys::path::stem(inputFilename).str();
  if (StringRef(out).ends_with(".cubin"))
    out.resize(out.size() - 6);
  return out;
}

static int writeImage(jit::Compiler &compiler, ModuleOp module,
                      const Stopwatch &total) {
  std::string out = imageStem();
  llvm::Expected<jit::CompiledImage> image = compiler.compileModule(module);
  if (!image) {
    // Diagnostics were printed at their locations already; other errors
    // (linking, the runtime library) name the input they stopped.
    llvm::handleAllErrors(
        image.takeError(), [](const jit::DiagnosedError &) {},
        [](const llvm::ErrorInfoBase &e) {
          llvm::errs() << "gpuos-jit: " << inputFilename << ": " << e.message() << "\n";
        });
    return 1;
  }
  llvm::StringRef cubin(image->cubin.data(), image->cubin.size());
  for (auto [path, data] : {std::pair(out + ".cubin", cubin),
                            std::pair(out + ".manifest.json",
                                      llvm::StringRef(image->manifest))})
    if (llvm::Error e = writeFileAtomically(path, data)) {
      llvm::errs() << "gpuos-jit: " << llvm::toString(std::move(e)) << "\n";
      return 1;
    }
  recordSourceKey(compiler, image->contentHash, image->manifest);
  if (verbose) {
    using Origin = jit::CompiledImage::Origin;
    bool compiled = image->origin == Origin::Compiled;
    llvm::errs() << (!compiled ? "cache: hit " : noCache ? "cache: off " : "cache: miss ")
                 << image->contentHash;
    if (!compiled)
      llvm::errs() << llvm::format(" (%.1f ms)", total.ms());
    llvm::errs() << "\n";
    if (compiled)
      llvm::errs() << llvm::format("time: lower %.1f ms, llvm+ptx %.1f ms, "
                                   "nvJitLink %.1f ms, total %.1f ms\n",
                                   image->ms.lower, image->ms.codegen,
                                   image->ms.link, total.ms());
    llvm::errs() << image->infoLog;
  }
  return 0;
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
  if (optLevel.size() != 1 || optLevel[0] < '0' || optLevel[0] > '3')
    return usageError("unsupported -O" + optLevel + "; use -O0 to -O3");
  if (blockSize < 32 || blockSize > 1024 || blockSize % 32 != 0)
    return usageError("--block-size must be a multiple of 32 up to 1024");
  if (maxRegisters < -1 || maxRegisters > 255)
    return usageError("--maxrregcount must be 0 (no limit) to 255");
  // Options of the link step do nothing to --emit=mlir/llvm/ptx: refused
  // rather than ignored (a register limit there would seem to apply).
  // (std::addressof: a cl::list's operator& gives its vector.)
  const cl::Option *linkOptions[] = {&nvJitLinkPath, &runtimeLib,
                                     std::addressof(customSources), &occupancy,
                                     &maxRegisters,  &sourceKey,  &noOverlap};
  if (emit != Emit::Image)
    for (const cl::Option *option : linkOptions)
      if (option->getNumOccurrences())
        return usageError("--" + option->ArgStr + " applies to --emit=image only");
  if (emit != Emit::Image && inputFilename != "-" && !outputFilename.empty() &&
      outputFilename != "-" &&
      llvm::sys::fs::equivalent(inputFilename, outputFilename))
    return usageError("the output '" + outputFilename +
                      "' is the input file; name another with -o");
  // An image is <stem>.cubin and <stem>.manifest.json: a directory as the
  // stem would write hidden files ".cubin" into it.
  if (emit == Emit::Image &&
      (StringRef(outputFilename).ends_with("/") ||
       (!outputFilename.empty() && llvm::sys::fs::is_directory(outputFilename))))
    return usageError("the output '" + outputFilename +
                      "' is a directory; -o takes the image's path without "
                      "its suffix (dir/name writes dir/name.cubin and "
                      "dir/name.manifest.json)");
  if (emit == Emit::Image && inputFilename != "-")
    for (const char *suffix : {".cubin", ".manifest.json"})
      if (llvm::sys::fs::equivalent(inputFilename, imageStem() + suffix))
        return usageError("the output '" + imageStem() + suffix +
                          "' is the input file; name another with -o");
  int opt = optLevel[0] - '0';

  jit::CompileOptions options;
  options.arch = arch;
  options.optLevel = opt;
  options.blockSize = blockSize;
  options.cudaPath = cudaPath;
  options.nvJitLinkPath = nvJitLinkPath;
  options.runtimeLibrary = runtimeLib;
  options.occupancy = occupancy;
  options.maxRegisters = maxRegisters;
  const bool evictFirst = backgroundL2 == gpuos::tools::BackgroundL2::EvictFirst;
  options.backgroundEvictFirst = evictFirst;
  for (const std::string &path : customSources) {
    // A file: a device such as /dev/zero would be read until memory ran out.
    if (llvm::sys::fs::exists(path) && !llvm::sys::fs::is_regular_file(path)) {
      llvm::errs() << "gpuos-jit: cannot read custom source '" << path
                   << "': not a regular file\n";
      return 1;
    }
    auto source = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    if (!source) {
      llvm::errs() << "gpuos-jit: cannot read custom source '" << path
                   << "': " << source.getError().message() << "\n";
      return 1;
    }
    options.customSources.push_back({path, (*source)->getBuffer().str()});
  }
  options.cacheDir = cacheDir;
  options.useDiskCache = !noCache;
  options.useMemoryCache = false; // one compile per process
  options.overlapLink = !noOverlap;
  options.preloadNvJitLink = emit == Emit::Image; // overlaps with parsing
  options.verbose = verbose;
  jit::Compiler compiler(options);
  MLIRContext &context = compiler.getContext();

  if (std::string why = gpuos::tools::unreadableInput(inputFilename);
      !why.empty()) {
    llvm::errs() << "gpuos-jit: cannot read '" << inputFilename << "': " << why
                 << "\n";
    return 1;
  }
  std::string error;
  auto input = openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << "gpuos-jit: " << error << "\n";
    return 1;
  }
  if (std::string deep = gpuos::tools::tooDeepError(inputFilename, input->getBuffer());
      !deep.empty()) {
    llvm::errs() << deep << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  Stopwatch total;
  if (emit == Emit::Image)
    beginSourceKey(compiler,
                   sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  if (emit == Emit::Image)
    return writeImage(compiler, *module, total);

  Stopwatch lowering;
  LowerTasksOptions lowerOptions;
  lowerOptions.blockSize = blockSize;
  lowerOptions.bulkPrefetch = hasBulkCopy(arch);
  lowerOptions.backgroundEvictFirst = evictFirst;
  if (failed(lowerTasksToNVVM(*module, lowerOptions)))
    return 1;
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
  PTXOptions ptxOptions;
  ptxOptions.arch = arch;
  ptxOptions.optLevel = opt;
  ptxOptions.cudaPath = cudaPath;
  ptxOptions.wantLLVMIR = emit == Emit::LLVM;
  FailureOr<PTXResult> ptx = emitPTX(gpuModule, ptxOptions);
  if (failed(ptx))
    return 1;
  return failed(writeOutput(outputPath(),
                            emit == Emit::LLVM ? ptx->llvmIR : ptx->ptx));
}
