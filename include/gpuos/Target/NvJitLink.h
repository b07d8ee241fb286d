//===- NvJitLink.h - nvJitLink, loaded at run time --------------*- C++ -*-===//
//
// Links PTX (and, once the runtime ships one, its relocatable device
// library) into one cubin with NVIDIA's nvJitLink. The library is opened
// with dlopen, so gpuos-jit starts, and compiles to PTX, on a machine
// without it; nvJitLink needs no driver or GPU.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_TARGET_NVJITLINK_H
#define GPUOS_TARGET_NVJITLINK_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace gpuos {

struct LinkInput {
  enum Kind { PTX, Object } kind = PTX;
  std::string name;
  std::string data;
};

struct LinkOptions {
  std::string arch = "sm_90";
  int optLevel = 3;
  /// Ask ptxas for its resource report (registers, stack, spills).
  bool verbose = false;
};

struct LinkResult {
  std::vector<char> cubin;
  /// nvJitLink's info log: with `verbose`, ptxas' per-function report.
  std::string infoLog;
};

class NvJitLink {
public:
  /// Opens the library: `path` if given, else $GPUOS_NVJITLINK, else
  /// libnvJitLink.so.13 on the loader path, then under $CUDA_HOME/lib64
  /// and /usr/local/cuda/lib64. The error says where it looked.
  static llvm::Expected<NvJitLink> load(llvm::StringRef path = {});

  /// "13.0".
  std::string version() const;
  llvm::Expected<LinkResult> link(llvm::ArrayRef<LinkInput> inputs,
                                  const LinkOptions &options) const;

private:
  struct Api;
  const Api *api = nullptr;
};

} // namespace gpuos

#endif // GPUOS_TARGET_NVJITLINK_H
