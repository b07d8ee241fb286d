//===- NvJitLinkApi.h - nvJitLink's entry points, resolved at run time -*- C++ -*-===//
//
// The C ABI of nvJitLink.h (CUDA 13), declared here so that neither the
// runtime's gpuos-link nor the compiler's image linker (lib/Target) needs
// CUDA headers or links libnvJitLink: both dlopen it and fill this table.
// nvJitLink.h maps the API names to versioned symbols
// (__nvJitLinkCreate_13_0 ...); those are looked up first, the plain names
// second. Header-only, no dependency beyond libdl.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_RUNTIME_NVJITLINKAPI_H
#define GPUOS_RUNTIME_NVJITLINKAPI_H

#include <cstddef>
#include <cstdint>
#include <dlfcn.h>
#include <iterator>
#include <string>

namespace gpuos::nvjitlink {

using Handle = void *;
using Result = int; // nvJitLinkResult; 0 is NVJITLINK_SUCCESS

// nvJitLinkInputType.
constexpr int kInputCubin = 1, kInputPtx = 2, kInputFatbin = 4,
              kInputObject = 5, kInputLibrary = 6;

/// The entry points; `version` is optional (older libraries lack it).
struct Api {
  Result (*create)(Handle *, uint32_t, const char **) = nullptr;
  Result (*destroy)(Handle *) = nullptr;
  Result (*addData)(Handle, int, const void *, size_t, const char *) = nullptr;
  Result (*complete)(Handle) = nullptr;
  Result (*cubinSize)(Handle, size_t *) = nullptr;
  Result (*cubin)(Handle, void *) = nullptr;
  Result (*errorLogSize)(Handle, size_t *) = nullptr;
  Result (*errorLog)(Handle, char *) = nullptr;
  Result (*infoLogSize)(Handle, size_t *) = nullptr;
  Result (*infoLog)(Handle, char *) = nullptr;
  Result (*version)(unsigned *, unsigned *) = nullptr;

  /// Fills the table from an opened library; false when a required entry
  /// point is missing.
  bool resolveFrom(void *library) {
    *this = Api();
    bool ok = resolve(library, "nvJitLinkCreate", create) &&
              resolve(library, "nvJitLinkDestroy", destroy) &&
              resolve(library, "nvJitLinkAddData", addData) &&
              resolve(library, "nvJitLinkComplete", complete) &&
              resolve(library, "nvJitLinkGetLinkedCubinSize", cubinSize) &&
              resolve(library, "nvJitLinkGetLinkedCubin", cubin) &&
              resolve(library, "nvJitLinkGetErrorLogSize", errorLogSize) &&
              resolve(library, "nvJitLinkGetErrorLog", errorLog) &&
              resolve(library, "nvJitLinkGetInfoLogSize", infoLogSize) &&
              resolve(library, "nvJitLinkGetInfoLog", infoLog);
    resolve(library, "nvJitLinkVersion", version);
    return ok;
  }

  /// The error (or info) log of a link, without its terminating NUL; empty
  /// when there is none or it cannot be read.
  std::string log(Handle handle, bool error = true) const {
    auto sizeFn = error ? errorLogSize : infoLogSize;
    auto logFn = error ? errorLog : infoLog;
    size_t size = 0;
    if (sizeFn(handle, &size) != 0 || size <= 1)
      return "";
    std::string text(size, '\0');
    if (logFn(handle, text.data()) != 0)
      return "";
    text.resize(text.find('\0') == std::string::npos ? size : text.find('\0'));
    return text;
  }

private:
  template <typename Fn>
  static bool resolve(void *library, const char *name, Fn &slot) {
    void *symbol = dlsym(library, (std::string("__") + name + "_13_0").c_str());
    if (!symbol)
      symbol = dlsym(library, name);
    slot = reinterpret_cast<Fn>(symbol);
    return symbol != nullptr;
  }
};

/// nvJitLink's option for optimization level `level` (0-3). It takes -O0
/// and -O3 only (-O1 and -O2 fail as unrecognized options), so the levels
/// in between link (ptxas) at -O3; the compiler applies them in LLVM.
inline const char *optimizationOption(int level) {
  return level == 0 ? "-O0" : "-O3";
}

/// NVJITLINK_* name of a result code.
inline const char *resultName(Result result) {
  static const char *names[] = {
      "NVJITLINK_SUCCESS", "NVJITLINK_ERROR_UNRECOGNIZED_OPTION",
      "NVJITLINK_ERROR_MISSING_ARCH", "NVJITLINK_ERROR_INVALID_INPUT",
      "NVJITLINK_ERROR_PTX_COMPILE", "NVJITLINK_ERROR_NVVM_COMPILE",
      "NVJITLINK_ERROR_INTERNAL", "NVJITLINK_ERROR_THREADPOOL",
      "NVJITLINK_ERROR_UNRECOGNIZED_INPUT", "NVJITLINK_ERROR_FINALIZE",
      "NVJITLINK_ERROR_NULL_INPUT", "NVJITLINK_ERROR_INCOMPATIBLE_OPTIONS",
      "NVJITLINK_ERROR_INCORRECT_INPUT_TYPE", "NVJITLINK_ERROR_ARCH_MISMATCH",
      "NVJITLINK_ERROR_OUTDATED_LIBRARY", "NVJITLINK_ERROR_MISSING_FATBIN",
      "NVJITLINK_ERROR_UNRECOGNIZED_ARCH", "NVJITLINK_ERROR_UNSUPPORTED_ARCH",
      "NVJITLINK_ERROR_LTO_NOT_ENABLED"};
  if (result >= 0 && result < int(std::size(names)))
    return names[result];
  return "unknown nvJitLink error";
}

} // namespace gpuos::nvjitlink

#endif // GPUOS_RUNTIME_NVJITLINKAPI_H
