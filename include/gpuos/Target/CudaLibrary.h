//===- CudaLibrary.h - dlopen a CUDA toolkit library ------------*- C++ -*-===//
//
// nvJitLink and NVRTC are opened at run time (so gpuos-jit starts, and
// compiles images without custom ops, where one of them is missing). Both
// look in the same places; this is that search.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_TARGET_CUDALIBRARY_H
#define GPUOS_TARGET_CUDALIBRARY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

namespace gpuos {

/// Opens `soname` (e.g. "libnvrtc.so.13"): `explicitPath` alone when given,
/// else $`envVar` (if set), the loader path, `cudaPath`/lib64,
/// $CUDA_HOME/lib64, /usr/local/cuda/lib64. `accept` resolves the entry
/// points from a loaded library and says whether all were there. The
/// library stays loaded. The error lists every place tried and why.
llvm::Expected<void *>
openCudaLibrary(llvm::StringRef soname, llvm::StringRef explicitPath,
                const char *envVar, llvm::StringRef cudaPath,
                llvm::function_ref<bool(void *)> accept,
                llvm::StringRef purpose);

} // namespace gpuos

#endif // GPUOS_TARGET_CUDALIBRARY_H
