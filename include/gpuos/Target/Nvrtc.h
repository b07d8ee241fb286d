//===- Nvrtc.h - custom CUDA C++ ops compiled with NVRTC --------*- C++ -*-===//
//
// gpuos.custom ops call device functions a user writes in CUDA C++. NVRTC
// (opened with dlopen, like nvJitLink, so nothing needs it until a custom op
// appears) compiles each source to relocatable PTX that nvJitLink links
// beside the generated tasks. The program is named after the user's file,
// so NVRTC's errors read "file.cu(12): error: ..." with their own lines.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_TARGET_NVRTC_H
#define GPUOS_TARGET_NVRTC_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>

namespace gpuos {

struct CustomSource {
  /// The user's file name (or any label): NVRTC's diagnostics use it.
  std::string name;
  std::string text;
};

/// Compiles `source` to relocatable PTX for `arch` (sm_90 -> compute_90).
/// Errors carry NVRTC's log. `cudaPath` locates libnvrtc (empty: the loader
/// path, $CUDA_HOME, /usr/local/cuda).
llvm::Expected<std::string> compileCustomSource(const CustomSource &source,
                                                llvm::StringRef arch,
                                                llvm::StringRef cudaPath = "");

/// Whether `ptx` defines a visible device function named `name`.
bool ptxDefinesFunction(llvm::StringRef ptx, llvm::StringRef name);

/// The prototype `ptx` declares or defines for the device function `name`,
/// parameter names dropped: "(.param .b32) f(.param .b32, .param .b64)"
/// ("()" for no result); nullopt when `ptx` has no such function.
std::optional<std::string> ptxFunctionPrototype(llvm::StringRef ptx, llvm::StringRef name);

} // namespace gpuos

#endif // GPUOS_TARGET_NVRTC_H
