//===- gpuos-compile-bench.cpp - in-process compile times -----------------===//
//
//   gpuos-compile-bench in.mlir [N] [--cache-dir=DIR]
//
// Times gpuos::jit::Compiler as a front-end uses it: one Compiler (context
// made, nvJitLink loaded) compiling the same partitioned graphs again and
// again. Prints the median over N runs, in milliseconds, of
//
//   cold       caches off: parse, lower, LLVM + PTX, nvJitLink (with the
//              runtime library), manifest
//   disk-hit   memory cache off: parse, hash, read the disk cache
//   memory-hit the same text again: one SHA-256 of the text, a map lookup
//
// plus the cold stages. bench/compile-time.sh runs it.
//
//===----------------------------------------------------------------------===//

#include "gpuos/JIT/Compiler.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

using namespace gpuos::jit;

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    llvm::errs() << "usage: gpuos-compile-bench in.mlir [N] [--cache-dir=DIR]\n";
    return 2;
  }
  int n = 15;
  std::string cacheDir;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--cache-dir=", 0) == 0)
      cacheDir = arg.substr(12);
    else
      n = std::max(1, std::atoi(argv[i]));
  }
  auto file = llvm::MemoryBuffer::getFile(argv[1]);
  if (!file) {
    llvm::errs() << "gpuos-compile-bench: cannot read " << argv[1] << "\n";
    return 1;
  }
  std::string source = (*file)->getBuffer().str();

  // One timed series of compiles of the same text.
  auto series = [&](Compiler &compiler, std::vector<CompileTimings> *stages) {
    std::vector<double> ms;
    for (int i = 0; i < n; ++i) {
      auto start = std::chrono::steady_clock::now();
      llvm::Expected<CompiledImage> image = compiler.compileSource(source, argv[1]);
      double elapsed = std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      if (!image) {
        llvm::errs() << "gpuos-compile-bench: " << llvm::toString(image.takeError())
                     << "\n";
        std::exit(1);
      }
      ms.push_back(elapsed);
      if (stages)
        stages->push_back(image->ms);
    }
    return median(ms);
  };

  CompileOptions cold;
  cold.useDiskCache = false;
  cold.useMemoryCache = false;
  Compiler coldCompiler(cold);
  std::vector<CompileTimings> stages;
  double coldMs = series(coldCompiler, &stages);

  CompileOptions disk;
  disk.useMemoryCache = false;
  disk.cacheDir = cacheDir;
  Compiler diskCompiler(disk);
  series(diskCompiler, nullptr); // fills the cache on the first run
  double diskMs = series(diskCompiler, nullptr);

  CompileOptions memory;
  memory.useDiskCache = false;
  Compiler memoryCompiler(memory);
  series(memoryCompiler, nullptr); // the first run compiles
  double memoryMs = series(memoryCompiler, nullptr);

  auto stage = [&](std::function<double(const CompileTimings &)> get) {
    std::vector<double> v;
    for (const CompileTimings &t : stages)
      v.push_back(get(t));
    return median(v);
  };
  llvm::outs() << llvm::format("in-process cold       %8.1f ms\n", coldMs)
               << llvm::format("in-process disk hit   %8.2f ms\n", diskMs)
               << llvm::format("in-process memory hit %8.3f ms\n", memoryMs)
               << llvm::format(
                      "cold stages (median): parse %.1f, hash %.1f, lower %.1f, "
                      "llvm+ptx+manifest %.1f, nvJitLink %.1f ms\n",
                      stage([](auto &t) { return t.parse; }),
                      stage([](auto &t) { return t.hash; }),
                      stage([](auto &t) { return t.lower; }),
                      stage([](auto &t) { return t.codegen; }),
                      stage([](auto &t) { return t.link; }));
  return 0;
}
