//===- Compiler.h - graphs in, runnable images out, in-process --*- C++ -*-===//
//
// The library behind `gpuos-jit --emit=image`, for any program that
// compiles graphs at run time (the runtime's front-ends):
//
//   gpuos::jit::Compiler compiler(options);        // once per process
//   auto image = compiler.compileSource(mlirText); // cubin + manifest
//
// An image is one cubin that nvJitLink linked from the tasks' PTX, the
// generated gpuos_dispatch and the runtime's relocatable device library
// (the resident kernel), plus its manifest (docs/abi.md). Images are cached
// by content hash on disk (ImageCache) and in memory, so an unchanged graph
// is compiled once: a repeated source text is found without parsing it.
//
// The expensive start-up steps run in the background: loading nvJitLink
// starts when the Compiler is made, and the link session (created, the
// runtime library added) is prepared on a thread while the tasks are
// lowered and their PTX generated. Needs no GPU or driver.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_JIT_COMPILER_H
#define GPUOS_JIT_COMPILER_H

#include "gpuos/Target/Nvrtc.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>
#include <vector>

namespace gpuos::jit {

/// The resident kernel's occupancy an image is built for (CompileOptions).
enum class Occupancy { Latency, Throughput };

struct CompileOptions {
  std::string arch = "sm_90";
  /// LLVM's optimization level and nvJitLink's (0 to 3).
  int optLevel = 3;
  /// The block size the task functions are tuned for (manifest block_size).
  int64_t blockSize = 256;
  /// CUDA toolkit root for libdevice; empty: $CUDA_HOME, ..., /usr/local/cuda.
  std::string cudaPath;
  /// libnvJitLink.so.13; empty: $GPUOS_NVJITLINK, the loader path, ...
  std::string nvJitLinkPath;
  /// The runtime's relocatable device library (nvcc -rdc: .o or .a) linked
  /// into every image. Empty: $GPUOS_RUNTIME_LIB, else the one this build
  /// made (runtime/CMakeLists.txt). "none": images of the task functions
  /// and test kernels only, which the runtime cannot load.
  std::string runtimeLibrary;
  /// What the image's resident kernel is built for (docs/codegen.md,
  /// "Occupancy"): Latency, the runtime device library and tasks at 128
  /// registers (two 256-thread workers per SM); Throughput, both at 80
  /// (three workers per SM: more bytes in flight, some tasks spill). It
  /// picks the library of that kind (unless runtimeLibrary names one):
  /// $GPUOS_RUNTIME_LIB or $GPUOS_RUNTIME_THROUGHPUT_LIB, else this build's;
  /// and the default maxRegisters.
  Occupancy occupancy = Occupancy::Latency;
  /// Register limit of every task function (nvJitLink -maxrregcount). The
  /// resident kernel calls them, so they must fit its limit (nvJitLink
  /// refuses a task above it): -1 takes the limit of this build's library
  /// for `occupancy` (GPUOS_DEVICE_MAX_REGISTERS in runtime/CMakeLists.txt,
  /// 128; GPUOS_DEVICE_THROUGHPUT_REGISTERS, 80, for Throughput), also when
  /// runtimeLibrary names another library.
  /// 0: no limit, which only images without the runtime can use.
  int maxRegisters = -1;
  /// Background tasks read and write with an L2 evict-first policy
  /// (LowerTasksOptions::backgroundEvictFirst).
  bool backgroundEvictFirst = false;
  /// CUDA C++ sources defining the device functions that gpuos.custom ops
  /// call (extern "C" __device__); compiled with NVRTC when a module has
  /// custom ops, and part of every content hash.
  std::vector<CustomSource> customSources;
  /// Disk cache; empty: ImageCache::defaultDirectory().
  std::string cacheDir;
  bool useDiskCache = true;
  bool useMemoryCache = true;
  /// Prepare the link session on a thread during lowering and codegen.
  bool overlapLink = true;
  /// Start loading nvJitLink when the Compiler is made (else: at the first
  /// compile), so that it overlaps with parsing.
  bool preloadNvJitLink = true;
  /// Ask ptxas for its per-function report (CompiledImage::infoLog).
  bool verbose = false;
};

/// Milliseconds per stage of one compileSource/compileModule call.
struct CompileTimings {
  double parse = 0, hash = 0, lower = 0, codegen = 0, link = 0, total = 0;
};

struct CompiledImage {
  std::vector<char> cubin;
  std::string manifest;
  std::string contentHash;
  enum class Origin { Compiled, MemoryCache, DiskCache } origin = Origin::Compiled;
  /// nvJitLink's info log (ptxas' report with `verbose`).
  std::string infoLog;
  CompileTimings ms;
};

/// A compile that failed with MLIR diagnostics, already reported through
/// the context's handlers at the input's locations.
class DiagnosedError : public llvm::ErrorInfo<DiagnosedError> {
public:
  static char ID;
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;
};

class Compiler {
public:
  /// Starts loading nvJitLink in the background; problems with the options
  /// (arch, runtime library, nvJitLink) are reported by the first compile.
  explicit Compiler(CompileOptions options);
  ~Compiler();
  Compiler(const Compiler &) = delete;
  Compiler &operator=(const Compiler &) = delete;

  /// The context that compileSource parses into, with every dialect an
  /// input or the lowering needs loaded.
  mlir::MLIRContext &getContext();
  const CompileOptions &getOptions() const;
  /// Files whose change changes the images (their content is in every
  /// content hash): the runtime device library, the nvJitLink library,
  /// and the binaries of the compiler itself. Errors as for compiling.
  llvm::Expected<std::vector<std::string>> dependencyFiles();

  /// Compiles MLIR text of partitioned graphs. Diagnostics are returned as
  /// the error's text (`<bufferName>:line:col: error: ...`).
  llvm::Expected<CompiledImage> compileSource(llvm::StringRef source,
                                              llvm::StringRef bufferName = "<source>");
  /// Compiles a parsed module of getContext(), lowering it in place.
  /// Diagnostics go to the context's handlers (a DiagnosedError).
  llvm::Expected<CompiledImage> compileModule(mlir::ModuleOp module);

  /// The content hash compileModule would use for `module` (the cache key).
  llvm::Expected<std::string> contentHash(mlir::ModuleOp module);

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

/// The runtime device library `option` (CompileOptions::runtimeLibrary),
/// else $GPUOS_RUNTIME_LIB (Latency) or $GPUOS_RUNTIME_THROUGHPUT_LIB
/// (Throughput), else this build's library for `occupancy` selects, as an
/// absolute path; "" for "none". The error says which setting named a
/// missing file.
llvm::Expected<std::string>
resolveRuntimeLibrary(llvm::StringRef option,
                      Occupancy occupancy = Occupancy::Latency);

} // namespace gpuos::jit

#endif // GPUOS_JIT_COMPILER_H
