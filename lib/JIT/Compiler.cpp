//===- Compiler.cpp - graphs in, runnable images out, in-process ----------===//
//
//   compileSource: source memo -> parse -> compileModule
//   compileModule: content hash -> memory cache -> disk cache ->
//                  [thread: nvJitLink session + runtime library]
//                  lower -> PTX -> manifest -> add PTX, link -> store
//
//===----------------------------------------------------------------------===//

#include "gpuos/JIT/Compiler.h"
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
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <dlfcn.h>
#include <link.h>
#include <future>
#include <optional>

using namespace mlir;
using namespace gpuos;
using namespace gpuos::jit;

#ifndef GPUOS_DEVICE_THROUGHPUT_REGISTERS
#define GPUOS_DEVICE_THROUGHPUT_REGISTERS 80 // runtime/CMakeLists.txt's default
#endif
#ifndef GPUOS_DEVICE_MAX_REGISTERS
#define GPUOS_DEVICE_MAX_REGISTERS 128 // runtime/CMakeLists.txt's default
#endif

/// Bump when the generated code changes for the same input and options:
/// it is part of every content hash, so old cache entries stop matching.
static constexpr llvm::StringLiteral kCodegenVersion = "gpuos-codegen-3";

char DiagnosedError::ID = 0;
void DiagnosedError::log(llvm::raw_ostream &os) const {
  os << "the input could not be compiled (see the diagnostics)";
}
std::error_code DiagnosedError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

namespace {
using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// The file holding `symbol`: a shared library, or the main executable.
/// dladdr names the main executable by argv[0], which the gpuos-jit launcher
/// sets to its own name, so that case reads /proc/self/exe instead.
std::string fileOf(const void *symbol) {
  Dl_info info;
  link_map *map = nullptr;
  if (!dladdr1(symbol, &info, reinterpret_cast<void **>(&map), RTLD_DL_LINKMAP))
    return "";
  if (map && map->l_name && *map->l_name)
    return map->l_name;
  return llvm::sys::fs::getMainExecutable(nullptr, nullptr);
}

/// What identifies this compiler build: the codegen version and the size
/// and time of the binary that holds this code (gpuos-jit-core, or a
/// front-end's shared library), so a rebuilt compiler never reuses another's
/// images.
std::string compilerIdentity() {
  std::string id = kCodegenVersion.str();
  llvm::sys::fs::file_status status;
  std::string file = fileOf(reinterpret_cast<const void *>(&compilerIdentity));
  if (!file.empty() && !llvm::sys::fs::status(file, status))
    id += " " + std::to_string(status.getSize()) + " " +
          std::to_string(status.getLastModificationTime().time_since_epoch().count());
  return id;
}

std::string canonicalText(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().enableDebugInfo(false));
  return text;
}
} // namespace

struct Compiler::Impl {
  CompileOptions options;
  MLIRContext context;

  // Loaded in the background from the constructor on.
  std::future<void> loading;
  std::optional<NvJitLink> linker;
  std::string linkerError;

  // Checked once, by the first compile.
  bool prepared = false;
  std::string runtimePath, runtimeHash; // empty: no runtime library
  LinkInput runtimeInput;
  std::string keyPrefix;
  std::optional<ImageCache> disk;

  llvm::StringMap<CompiledImage> memory;     // content hash -> image
  /// sha256(name, source) -> its image's content hash and the manifest
  /// made for that source (its ops' locations; the image cache's manifest
  /// may name another source of the same content).
  struct KnownSource {
    std::string contentHash, manifest;
  };
  llvm::StringMap<KnownSource> sourceHashes;

  explicit Impl(CompileOptions opts)
      : options(std::move(opts)), context(makeRegistry()) {
    context.loadAllAvailableDialects();
    // Diagnostics point at the source line; the op dump adds only noise.
    context.printOpOnDiagnostic(false);
    if (options.preloadNvJitLink)
      startLoading();
  }
  void startLoading() {
    if (loading.valid())
      return;
    loading = std::async(std::launch::async, [this] {
      llvm::Expected<NvJitLink> loaded = NvJitLink::load(options.nvJitLinkPath);
      if (loaded)
        linker = *loaded;
      else
        linkerError = llvm::toString(loaded.takeError());
    });
  }
  ~Impl() {
    if (loading.valid())
      loading.wait();
  }

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registry.insert<GpuosDialect, arith::ArithDialect, cf::ControlFlowDialect,
                    gpu::GPUDialect, LLVM::LLVMDialect, NVVM::NVVMDialect,
                    scf::SCFDialect>();
    registerPTXEmission(registry);
    return registry;
  }

  llvm::Error prepare();
  llvm::Expected<CompiledImage> lookup(llvm::StringRef hash);
  llvm::Expected<CompiledImage> build(ModuleOp module, const std::string &hash);
  void remember(const CompiledImage &image) {
    if (options.useMemoryCache)
      memory[image.contentHash] = image;
  }
};

llvm::Error Compiler::Impl::prepare() {
  if (prepared)
    return llvm::Error::success();
  if (!isSupportedArch(options.arch))
    return llvm::createStringError("unsupported arch '" + options.arch +
                                   "'; use sm_80, sm_89, sm_90 or sm_100");
  if (options.optLevel < 0 || options.optLevel > 3)
    return llvm::createStringError("unsupported optimization level " +
                                   std::to_string(options.optLevel));
  if (options.blockSize < 32 || options.blockSize > 1024 ||
      options.blockSize % 32 != 0)
    return llvm::createStringError(
        "the block size must be a multiple of 32 up to 1024");
  llvm::Expected<std::string> runtime =
      resolveRuntimeLibrary(options.runtimeLibrary, options.occupancy);
  if (!runtime)
    return runtime.takeError();
  runtimePath = *runtime;
  if (options.maxRegisters < -1 || options.maxRegisters > 255)
    return llvm::createStringError(
        "maxRegisters " + std::to_string(options.maxRegisters) +
        " is not -1 (the default), 0 (no limit) or 1 to 255");
  if (options.maxRegisters == 0 && !runtimePath.empty())
    return llvm::createStringError(
        "maxRegisters 0 (no limit) needs runtimeLibrary \"none\": the "
        "resident kernel's registers bound every task linked into it");
  if (options.maxRegisters < 0) {
    // The device library's own limit; without the library, none.
    int limit = options.occupancy == Occupancy::Throughput
                    ? GPUOS_DEVICE_THROUGHPUT_REGISTERS
                    : GPUOS_DEVICE_MAX_REGISTERS;
    options.maxRegisters = runtimePath.empty() ? 0 : limit;
  }
  if (!runtimePath.empty()) {
    auto buffer = llvm::MemoryBuffer::getFile(runtimePath, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return llvm::createStringError(buffer.getError(),
                                     "cannot read the runtime device library '" +
                                         runtimePath + "'");
    runtimeInput.kind = LinkInput::kindOfFile(runtimePath);
    runtimeInput.name = llvm::sys::path::filename(runtimePath).str();
    runtimeInput.data = (*buffer)->getBuffer().str();
    std::string bad = runtimeInput.structureError();
    if (!bad.empty())
      return llvm::createStringError("the runtime device library '" +
                                     runtimePath + "' is not well-formed: " + bad);
    runtimeHash = sha256Hex(runtimeInput.data);
  }
  startLoading();
  loading.wait();
  if (!linker)
    return llvm::createStringError(linkerError);
  std::string prefix;
  llvm::raw_string_ostream key(prefix);
  key << compilerIdentity() << "\nnvJitLink " << linker->version() << "\narch "
      << options.arch << "\nO " << options.optLevel << "\nblock-size "
      << options.blockSize << "\nmaxrregcount " << options.maxRegisters
      << "\nbackground-l2 "
      << (options.backgroundEvictFirst ? "evict-first" : "normal")
      << "\nruntime "
      << (runtimeHash.empty() ? "none" : runtimeHash) << "\n";
  for (const CustomSource &source : options.customSources)
    key << "custom " << source.name << " " << sha256Hex(source.text) << "\n";
  keyPrefix = prefix;
  if (options.useDiskCache)
    disk.emplace(options.cacheDir.empty() ? ImageCache::defaultDirectory()
                                          : options.cacheDir);
  prepared = true;
  return llvm::Error::success();
}

/// The image of `hash` from memory or disk; an empty contentHash if none.
llvm::Expected<CompiledImage> Compiler::Impl::lookup(llvm::StringRef hash) {
  if (auto it = memory.find(hash); it != memory.end()) {
    CompiledImage image = it->second;
    image.origin = CompiledImage::Origin::MemoryCache;
    image.infoLog.clear();
    return image;
  }
  CompiledImage image;
  if (!disk || !disk->contains(hash))
    return image;
  if (llvm::Error error = disk->load(hash, image.cubin, image.manifest))
    return std::move(error);
  // A damaged entry (truncated by a full disk or a hand) is a miss: the
  // image is compiled again and the entry overwritten.
  if (!LinkInput::structureError(
           LinkInput::Cubin, llvm::StringRef(image.cubin.data(), image.cubin.size()))
           .empty())
    return CompiledImage();
  image.contentHash = hash.str();
  image.origin = CompiledImage::Origin::DiskCache;
  remember(image);
  return image;
}

llvm::Expected<CompiledImage>
Compiler::Impl::build(ModuleOp module, const std::string &hash) {
  // Images describe tasks only: reject unpartitioned graphs before any work.
  if (failed(checkPartitioned(module)))
    return llvm::make_error<DiagnosedError>();
  CompiledImage image;
  image.contentHash = hash;
  LinkOptions linkOptions;
  linkOptions.arch = options.arch;
  linkOptions.optLevel = options.optLevel;
  linkOptions.verbose = options.verbose;
  linkOptions.maxRegisters = options.maxRegisters;

  // The link session and the runtime library do not depend on the tasks:
  // prepare them while the tasks are lowered and compiled to PTX.
  auto startSession = [this, linkOptions]() -> llvm::Expected<NvJitLink::Session> {
    llvm::Expected<NvJitLink::Session> session = linker->begin(linkOptions);
    if (session && !runtimePath.empty())
      if (llvm::Error error = session->add(runtimeInput))
        return llvm::createStringError(
            "linking the runtime device library '" + runtimePath + "' for " +
            options.arch + " (it must hold code for " + options.arch +
            ": configure with -DGPUOS_CUDA_ARCH=" + options.arch +
            ", or pass --runtime-lib): " + llvm::toString(std::move(error)));
    return session;
  };
  std::future<llvm::Expected<NvJitLink::Session>> pending;
  if (options.overlapLink)
    pending = std::async(std::launch::async, startSession);
  auto session = [&]() {
    return options.overlapLink ? pending.get() : startSession();
  };
  auto failWithDiagnostics = [&]() -> llvm::Error {
    if (pending.valid())
      llvm::consumeError(pending.get().takeError());
    return llvm::make_error<DiagnosedError>();
  };

  auto start = Clock::now();
  LowerTasksOptions lowerOptions;
  lowerOptions.blockSize = options.blockSize;
  lowerOptions.bulkPrefetch = hasBulkCopy(options.arch);
  lowerOptions.backgroundEvictFirst = options.backgroundEvictFirst;
  SmallVector<TaskCodegenInfo> infos;
  if (failed(lowerTasksToNVVM(module, lowerOptions, &infos)))
    return failWithDiagnostics();
  auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>(kTaskModuleName);
  if (!gpuModule) {
    emitError(module.getLoc()) << "the input has no gpuos.task to compile";
    return failWithDiagnostics();
  }
  image.ms.lower = msSince(start);

  start = Clock::now();
  PTXOptions ptxOptions;
  ptxOptions.arch = options.arch;
  ptxOptions.optLevel = options.optLevel;
  ptxOptions.cudaPath = options.cudaPath;
  FailureOr<PTXResult> ptx = emitPTX(gpuModule, ptxOptions);
  if (failed(ptx))
    return failWithDiagnostics();
  ManifestOptions manifestOptions;
  manifestOptions.arch = options.arch;
  manifestOptions.contentHash = hash;
  if (!runtimePath.empty()) {
    manifestOptions.runtimeLibrary = runtimeInput.name;
    manifestOptions.runtimeHash = runtimeHash;
  }
  FailureOr<std::string> manifest = buildManifest(module, infos, manifestOptions);
  if (failed(manifest))
    return failWithDiagnostics();
  image.manifest = std::move(*manifest);
  image.ms.codegen = msSince(start);

  // Custom ops: the user's CUDA C++ through NVRTC, linked beside the tasks.
  SmallVector<CustomOp> customOps;
  module.walk([&](CustomOp op) { customOps.push_back(op); });
  std::vector<std::pair<std::string, std::string>> customPtx;
  if (!customOps.empty()) {
    for (const CustomSource &source : options.customSources) {
      llvm::Expected<std::string> ptxText =
          compileCustomSource(source, options.arch, options.cudaPath);
      if (!ptxText) {
        if (pending.valid())
          llvm::consumeError(pending.get().takeError());
        return ptxText.takeError();
      }
      customPtx.emplace_back(source.name, std::move(*ptxText));
    }
    bool missing = false;
    for (CustomOp op : customOps) {
      StringRef callee = op.getCallee();
      auto source = llvm::find_if(customPtx, [&](const auto &input) {
        return ptxDefinesFunction(input.second, callee);
      });
      if (source != customPtx.end()) {
        // nvJitLink reports a prototype that differs from the call and
        // still links an image that passes the wrong arguments.
        std::optional<std::string> called = ptxFunctionPrototype(ptx->ptx, callee);
        std::optional<std::string> defined = ptxFunctionPrototype(source->second, callee);
        if (called && defined && *called != *defined) {
          op.emitOpError() << "calls @" << callee << " as '" << *called << "', but "
                           << source->first << " defines it as '" << *defined
                           << "' (arguments and result in compute types: float, "
                              "double, int, long long)";
          missing = true;
        }
        continue;
      }
      InFlightDiagnostic diag = op.emitOpError()
                                << "calls @" << callee << ", but ";
      if (options.customSources.empty()) {
        diag << "no custom source was given (gpuos-jit --custom-source=FILE.cu)";
      } else {
        diag << "no custom source defines extern \"C\" __device__ " << callee
             << " (sources: ";
        llvm::interleaveComma(options.customSources, diag,
                              [&](const CustomSource &s) { diag << s.name; });
        diag << ")";
      }
      missing = true;
    }
    if (missing)
      return failWithDiagnostics();
  }

  // nvJitLink compiles the PTX to SASS as it is added, then resolves
  // gpuos_dispatch and the task functions against the runtime library.
  start = Clock::now();
  llvm::Expected<NvJitLink::Session> linking = session();
  if (!linking)
    return linking.takeError();
  for (auto &[name, text] : customPtx)
    if (llvm::Error error =
            linking->add({LinkInput::PTX, name + ".ptx", std::move(text)}))
      return std::move(error);
  if (llvm::Error error =
          linking->add({LinkInput::PTX, "gpuos_tasks.ptx", std::move(ptx->ptx)}))
    return std::move(error);
  llvm::Expected<LinkResult> linked = linking->complete();
  if (!linked) {
    std::string message = llvm::toString(linked.takeError());
    // nvJitLink's own words ("max regcount of N calls function ... with
    // regcount of M") do not say which setting to change.
    if (llvm::StringRef(message).contains("max regcount"))
      message += "\nthe task functions' register limit (--maxrregcount=" +
                 std::to_string(options.maxRegisters) +
                 ") is above the runtime device library's '" +
                 llvm::sys::path::filename(runtimePath).str() +
                 "': lower it, or link a library built with more registers";
    return llvm::createStringError(message);
  }
  image.ms.link = msSince(start);
  image.cubin = std::move(linked->cubin);
  image.infoLog = std::move(linked->infoLog);

  if (disk)
    if (llvm::Error error = disk->store(hash, image.cubin, image.manifest))
      // A cache that cannot be written costs time, not correctness.
      llvm::errs() << "gpuos-jit: warning: " << llvm::toString(std::move(error))
                   << "\n";
  remember(image);
  return image;
}

Compiler::Compiler(CompileOptions options)
    : impl(std::make_unique<Impl>(std::move(options))) {}
Compiler::~Compiler() = default;

MLIRContext &Compiler::getContext() { return impl->context; }
const CompileOptions &Compiler::getOptions() const { return impl->options; }

llvm::Expected<std::vector<std::string>> Compiler::dependencyFiles() {
  if (llvm::Error error = impl->prepare())
    return std::move(error);
  std::vector<std::string> files;
  auto add = [&](const std::string &path, const char *what) -> llvm::Error {
    if (path.empty())
      return llvm::createStringError(std::string("cannot tell which file ") + what +
                                     " is");
    llvm::SmallString<256> absolute(path);
    llvm::sys::fs::make_absolute(absolute);
    if (llvm::find(files, absolute.str()) == files.end())
      files.push_back(absolute.str().str());
    return llvm::Error::success();
  };
  if (!impl->runtimePath.empty())
    if (llvm::Error e = add(impl->runtimePath, "the runtime library"))
      return std::move(e);
  for (auto [path, what] :
       {std::pair(impl->linker->libraryPath(), "nvJitLink"),
        std::pair(fileOf(reinterpret_cast<const void *>(&compilerIdentity)),
                  "the compiler"),
        // LLVM's code generator (libLLVM.so, or the compiler when static).
        std::pair(fileOf(reinterpret_cast<const void *>(&llvm::errs)), "LLVM")})
    if (llvm::Error e = add(path, what))
      return std::move(e);
  // libdevice, when the toolkit has one (tasks that call exp, tanh, ...).
  llvm::SmallString<256> libdevice(findCudaToolkit(impl->options.cudaPath));
  llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
  if (llvm::sys::fs::is_regular_file(libdevice))
    if (llvm::Error e = add(libdevice.str().str(), "libdevice"))
      return std::move(e);
  // Which libraries the loader finds by name (nvJitLink is opened by its
  // soname) changes with the loader's cache.
  if (llvm::sys::fs::is_regular_file("/etc/ld.so.cache"))
    if (llvm::Error e = add("/etc/ld.so.cache", "the loader's cache"))
      return std::move(e);
  return files;
}

llvm::Expected<std::string> Compiler::contentHash(ModuleOp module) {
  if (llvm::Error error = impl->prepare())
    return std::move(error);
  return sha256Hex(impl->keyPrefix + canonicalText(module));
}

llvm::Expected<CompiledImage> Compiler::compileModule(ModuleOp module) {
  auto start = Clock::now();
  llvm::Expected<std::string> hash = contentHash(module);
  if (!hash)
    return hash.takeError();
  double hashMs = msSince(start);
  llvm::Expected<CompiledImage> image = impl->lookup(*hash);
  if (image && image->contentHash.empty()) {
    image = impl->build(module, *hash);
  } else if (image) {
    // The content hash leaves locations out; the manifest's ops name this
    // module's (the cached one may come from another file or line). One
    // that cannot be rebuilt (damaged, or from another format) is not
    // served with another file's locations: compile again.
    if (FailureOr<std::string> manifest = rebuildManifest(module, image->manifest);
        succeeded(manifest))
      image->manifest = std::move(*manifest);
    else
      image = impl->build(module, *hash);
  }
  if (image) {
    image->ms.hash = hashMs;
    image->ms.total = msSince(start);
  }
  return image;
}

llvm::Expected<CompiledImage> Compiler::compileSource(llvm::StringRef source,
                                                      llvm::StringRef bufferName) {
  auto start = Clock::now();
  // The same text again: no parse (the options are fixed per Compiler).
  std::string sourceHash;
  if (impl->options.useMemoryCache) {
    // The buffer's name too: locations of a text without explicit ones
    // name it (the manifest's ops).
    sourceHash = sha256Hex((bufferName + "\n" + source).str());
    auto known = impl->sourceHashes.find(sourceHash);
    if (known != impl->sourceHashes.end()) {
      llvm::Expected<CompiledImage> image = impl->lookup(known->second.contentHash);
      if (!image || !image->contentHash.empty()) {
        if (image) {
          image->manifest = known->second.manifest;
          image->ms.total = msSince(start);
        }
        return image;
      }
    }
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, bufferName), llvm::SMLoc());
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  SourceMgrDiagnosticHandler handler(sourceMgr, &impl->context, os);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, &impl->context);
  if (!module)
    return llvm::createStringError(diagnostics);
  double parseMs = msSince(start);
  llvm::Expected<CompiledImage> image = compileModule(*module);
  if (!image) {
    llvm::Error error = image.takeError();
    if (!error.isA<DiagnosedError>())
      return std::move(error);
    llvm::consumeError(std::move(error));
    return llvm::createStringError(diagnostics);
  }
  if (!sourceHash.empty())
    impl->sourceHashes[sourceHash] = {image->contentHash, image->manifest};
  image->ms.parse = parseMs;
  image->ms.total = msSince(start);
  return image;
}
