//===- Nvrtc.cpp - NVRTC through dlopen -----------------------------------===//

#include "gpuos/Target/Nvrtc.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Regex.h"
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <vector>

using namespace gpuos;

namespace {
// The few entry points used, with NVRTC's C signatures (nvrtc.h); results
// are ints, NVRTC_SUCCESS is 0.
struct NvrtcApi {
  using Program = void *;
  int (*create)(Program *, const char *, const char *, int, const char *const *,
                const char *const *) = nullptr;
  int (*destroy)(Program *) = nullptr;
  int (*compile)(Program, int, const char *const *) = nullptr;
  int (*logSize)(Program, size_t *) = nullptr;
  int (*log)(Program, char *) = nullptr;
  int (*ptxSize)(Program, size_t *) = nullptr;
  int (*ptx)(Program, char *) = nullptr;
  const char *(*errorString)(int) = nullptr;
};

template <typename Fn> bool resolve(void *library, const char *name, Fn &slot) {
  slot = reinterpret_cast<Fn>(dlsym(library, name));
  return slot != nullptr;
}

llvm::Expected<const NvrtcApi *> loadNvrtc(llvm::StringRef cudaPath) {
  static std::mutex mutex;
  static const NvrtcApi *loaded = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (loaded)
    return loaded;
  std::vector<std::string> candidates;
  if (!cudaPath.empty())
    candidates.push_back(cudaPath.str() + "/lib64/libnvrtc.so.13");
  candidates.push_back("libnvrtc.so.13");
  if (const char *cuda = std::getenv("CUDA_HOME"); cuda && *cuda)
    candidates.push_back(std::string(cuda) + "/lib64/libnvrtc.so.13");
  candidates.push_back("/usr/local/cuda/lib64/libnvrtc.so.13");
  std::string tried;
  for (const std::string &candidate : candidates) {
    void *library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char *why = dlerror();
      tried += "\n  " + candidate + ": " + (why ? why : "cannot load");
      continue;
    }
    auto *api = new NvrtcApi; // one per process; the library stays loaded
    if (resolve(library, "nvrtcCreateProgram", api->create) &&
        resolve(library, "nvrtcDestroyProgram", api->destroy) &&
        resolve(library, "nvrtcCompileProgram", api->compile) &&
        resolve(library, "nvrtcGetProgramLogSize", api->logSize) &&
        resolve(library, "nvrtcGetProgramLog", api->log) &&
        resolve(library, "nvrtcGetPTXSize", api->ptxSize) &&
        resolve(library, "nvrtcGetPTX", api->ptx) &&
        resolve(library, "nvrtcGetErrorString", api->errorString)) {
      loaded = api;
      return loaded;
    }
    delete api;
    tried += "\n  " + candidate + ": missing NVRTC entry points";
  }
  return llvm::createStringError(
      "custom ops need NVRTC (libnvrtc.so.13 of CUDA 13), which could not be "
      "loaded; tried:" + tried);
}
} // namespace

llvm::Expected<std::string> gpuos::compileCustomSource(const CustomSource &source,
                                                       llvm::StringRef arch,
                                                       llvm::StringRef cudaPath) {
  llvm::Expected<const NvrtcApi *> api = loadNvrtc(cudaPath);
  if (!api)
    return api.takeError();
  const NvrtcApi &nvrtc = **api;
  if (!arch.starts_with("sm_"))
    return llvm::createStringError("custom sources need an sm_XX arch, got '" +
                                   arch.str() + "'");
  std::string virtualArch = "--gpu-architecture=compute_" + arch.drop_front(3).str();
  // -rdc: the function is called from the tasks' PTX, across inputs.
  const char *options[] = {virtualArch.c_str(), "-rdc=true", "-std=c++17",
                           "--device-as-default-execution-space"};
  NvrtcApi::Program program = nullptr;
  int status = nvrtc.create(&program, source.text.c_str(), source.name.c_str(),
                            0, nullptr, nullptr);
  if (status != 0)
    return llvm::createStringError("NVRTC could not start compiling " +
                                   source.name + ": " + nvrtc.errorString(status));
  status = nvrtc.compile(program, 4, options);
  size_t logBytes = 0;
  nvrtc.logSize(program, &logBytes);
  std::string log(logBytes, '\0');
  if (logBytes)
    nvrtc.log(program, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  if (status != 0) {
    nvrtc.destroy(&program);
    return llvm::createStringError("custom source " + source.name +
                                   " does not compile:\n" + log);
  }
  size_t ptxBytes = 0;
  nvrtc.ptxSize(program, &ptxBytes);
  std::string ptx(ptxBytes, '\0');
  nvrtc.ptx(program, ptx.data());
  nvrtc.destroy(&program);
  while (!ptx.empty() && ptx.back() == '\0')
    ptx.pop_back();
  return ptx;
}

bool gpuos::ptxDefinesFunction(llvm::StringRef ptx, llvm::StringRef name) {
  // ".visible .func  (.param .b32 func_retval0) name(" at a line start.
  llvm::Regex definition("(^|\n)\\.visible[ \t]+\\.func[^\n]*[ \t)]" +
                         llvm::Regex::escape(name) + "\\(");
  return definition.match(ptx);
}
