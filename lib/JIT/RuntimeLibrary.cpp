//===- RuntimeLibrary.cpp - finding the runtime's device library ---------===//
//
// Every image links the runtime's relocatable device library (the resident
// kernel that calls gpuos_dispatch). It is found by, in order: the explicit
// option (gpuos-jit --runtime-lib), $GPUOS_RUNTIME_LIB, and the library this
// build made, whose path CMake bakes in (GPUOS_DEFAULT_RUNTIME_LIB); for
// images built for throughput, $GPUOS_RUNTIME_THROUGHPUT_LIB and
// GPUOS_THROUGHPUT_RUNTIME_LIB instead of the last two.
//
//===----------------------------------------------------------------------===//

#include "gpuos/JIT/Compiler.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <cstdlib>

#ifndef GPUOS_DEFAULT_RUNTIME_LIB
#define GPUOS_DEFAULT_RUNTIME_LIB ""
#endif
#ifndef GPUOS_THROUGHPUT_RUNTIME_LIB
#define GPUOS_THROUGHPUT_RUNTIME_LIB ""
#endif

llvm::Expected<std::string>
gpuos::jit::resolveRuntimeLibrary(llvm::StringRef option, Occupancy occupancy) {
  // Each occupancy has its own variable and build default: the libraries
  // differ in their register limit, which the image's tasks must fit.
  bool throughput = occupancy == Occupancy::Throughput;
  const char *variable = throughput ? "GPUOS_RUNTIME_THROUGHPUT_LIB" : "GPUOS_RUNTIME_LIB";
  std::string path, origin;
  if (!option.empty()) {
    path = option.str();
    origin = "--runtime-lib";
  } else if (const char *env = std::getenv(variable); env && *env) {
    path = env;
    origin = std::string("$") + variable;
  } else {
    path = throughput ? GPUOS_THROUGHPUT_RUNTIME_LIB : GPUOS_DEFAULT_RUNTIME_LIB;
    origin = "this build's default";
  }
  if (path == "none")
    return std::string();
  if (path.empty())
    return llvm::createStringError(
        "no runtime device library to link into the image: this build has "
        "none (it needs nvcc); pass --runtime-lib=PATH (nvcc -rdc=true "
        "object or archive), set " + std::string(variable) +
        ", or --runtime-lib=none for an image of test kernels only");
  if (!llvm::sys::fs::is_regular_file(path))
    return llvm::createStringError(
        "the runtime device library '" + path + "' (from " + origin +
        ") does not exist" +
        (origin == "this build's default"
             ? "; build the gpuos_runtime_device target, or pass "
               "--runtime-lib=PATH"
             : ""));
  llvm::SmallString<256> absolute(path);
  llvm::sys::fs::make_absolute(absolute);
  return absolute.str().str();
}
