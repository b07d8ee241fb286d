//===- NvJitLink.h - nvJitLink, loaded at run time --------------*- C++ -*-===//
//
// Links PTX and the runtime's relocatable device library into one cubin
// with NVIDIA's nvJitLink. The library is opened
// with dlopen, so gpuos-jit starts, and compiles to PTX, on a machine
// without it; nvJitLink needs no driver or GPU.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_TARGET_NVJITLINK_H
#define GPUOS_TARGET_NVJITLINK_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <deque>
#include <string>
#include <vector>

namespace gpuos {

struct LinkInput {
  /// nvcc -rdc=true -c objects, their archives (nvcc -lib), cubins, PTX.
  enum Kind { PTX, Object, Library, Cubin, Fatbin } kind = PTX;
  std::string name;
  std::string data;
  /// The kind a file name suggests: .a, .cubin, .fatbin, .ptx, else Object.
  static Kind kindOfFile(llvm::StringRef path);
  /// Why `data` cannot be an input of `kind` (not ELF, a truncated table or
  /// section; gpuos/runtime/LinkInputCheck.h), or "". nvJitLink trusts ELF
  /// tables and crashes on truncated files.
  static std::string structureError(Kind kind, llvm::StringRef data);
  std::string structureError() const { return structureError(kind, data); }
};

struct LinkOptions {
  std::string arch = "sm_90";
  int optLevel = 3;
  /// Ask ptxas for its resource report (registers, stack, spills).
  bool verbose = false;
  /// -maxrregcount for the PTX inputs; 0: no limit.
  int maxRegisters = 0;
};

struct LinkResult {
  std::vector<char> cubin;
  /// nvJitLink's info log: with `verbose`, ptxas' per-function report.
  std::string infoLog;
};

class NvJitLink {
  struct Api;

public:
  /// Opens the library: `path` if given, else $GPUOS_NVJITLINK, else
  /// libnvJitLink.so.13 on the loader path, then under $CUDA_HOME/lib64
  /// and /usr/local/cuda/lib64. The error says where it looked.
  static llvm::Expected<NvJitLink> load(llvm::StringRef path = {});

  /// "13.0".
  std::string version() const;
  /// The file the library was loaded from (empty if unknown).
  std::string libraryPath() const;
  llvm::Expected<LinkResult> link(llvm::ArrayRef<LinkInput> inputs,
                                  const LinkOptions &options) const;

  /// One link, step by step. nvJitLink compiles a PTX input to SASS when it
  /// is added, so a caller can create the session and add the prebuilt
  /// inputs (the runtime library) while it is still generating the PTX.
  class Session {
  public:
    Session(Session &&other) noexcept;
    Session &operator=(Session &&other) noexcept;
    ~Session();
    /// The session keeps `input` (name and data) until it is destroyed:
    /// nvJitLink holds on to the name pointer and quotes it in later
    /// errors ("first defined in ...").
    llvm::Error add(LinkInput input);
    /// Links what was added; the session is spent afterwards.
    llvm::Expected<LinkResult> complete();

  private:
    friend class NvJitLink;
    Session(const Api *api, void *handle) : api(api), handle(handle) {}
    llvm::Error fail(llvm::StringRef what, int result);
    const Api *api = nullptr;
    void *handle = nullptr;
    /// What was added; a deque, so earlier entries never move.
    std::deque<LinkInput> added;
  };
  llvm::Expected<Session> begin(const LinkOptions &options) const;

private:
  const Api *api = nullptr;
};

} // namespace gpuos

#endif // GPUOS_TARGET_NVJITLINK_H
