//===- Nvrtc.cpp - NVRTC through dlopen -----------------------------------===//

#include "gpuos/Target/Nvrtc.h"
#include "gpuos/Target/CudaLibrary.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"
#include <algorithm>
#include <cctype>
#include <dlfcn.h>
#include <mutex>

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
  auto *api = new NvrtcApi; // one per process; the library stays loaded
  auto accept = [&](void *library) {
    *api = NvrtcApi();
    return resolve(library, "nvrtcCreateProgram", api->create) &&
           resolve(library, "nvrtcDestroyProgram", api->destroy) &&
           resolve(library, "nvrtcCompileProgram", api->compile) &&
           resolve(library, "nvrtcGetProgramLogSize", api->logSize) &&
           resolve(library, "nvrtcGetProgramLog", api->log) &&
           resolve(library, "nvrtcGetPTXSize", api->ptxSize) &&
           resolve(library, "nvrtcGetPTX", api->ptx) &&
           resolve(library, "nvrtcGetErrorString", api->errorString);
  };
  llvm::Expected<void *> library =
      openCudaLibrary("libnvrtc.so.13", "", "GPUOS_NVRTC", cudaPath, accept,
                      "(NVRTC of CUDA 13), which custom ops need");
  if (!library) {
    delete api;
    return library.takeError();
  }
  loaded = api;
  return loaded;
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

/// A PTX parameter list's types: "(.param .b32 f_param_0, .param .align 8
/// .b8 f_param_1[16])" -> "(.param .b32, .param .align 8 .b8 [16])".
static std::string parameterTypes(llvm::StringRef list) {
  std::string text = list.trim().drop_front().drop_back().str();
  std::replace_if(text.begin(), text.end(), [](char c) { return std::isspace(c); }, ' ');
  llvm::SmallVector<llvm::StringRef> params;
  llvm::StringRef(text).split(params, ',', -1, /*KeepEmpty=*/false);
  std::string out = "(";
  for (llvm::StringRef param : params) {
    llvm::SmallVector<llvm::StringRef> tokens;
    param.split(tokens, ' ', -1, /*KeepEmpty=*/false);
    if (tokens.empty())
      continue;
    llvm::StringRef name = tokens.pop_back_val(); // the parameter's own name
    if (out.size() > 1)
      out += ", ";
    out += llvm::join(tokens, " ");
    if (size_t bracket = name.find('['); bracket != llvm::StringRef::npos)
      out += " " + name.drop_front(bracket).str();
  }
  return out + ")";
}

std::optional<std::string> gpuos::ptxFunctionPrototype(llvm::StringRef ptx,
                                                       llvm::StringRef name) {
  // ".extern .func  (.param .b32 func_retval0) name\n(\n ... \n)" or
  // ".visible .func  (.param .b32 func_retval0) name(...)", at a line start.
  llvm::Regex header("(^|\n)\\.(visible|extern)[ \t]+\\.func[ \t]*(\\([^)]*\\))?[ \t]*" +
                     llvm::Regex::escape(name) + "[ \t\n]*\\(");
  llvm::SmallVector<llvm::StringRef> groups;
  if (!header.match(ptx, &groups))
    return std::nullopt;
  size_t open = groups[0].data() + groups[0].size() - 1 - ptx.data();
  size_t close = ptx.find(')', open);
  if (close == llvm::StringRef::npos)
    return std::nullopt;
  std::string result = groups[3].empty() ? "()" : parameterTypes(groups[3]);
  return result + " " + name.str() + parameterTypes(ptx.slice(open, close + 1));
}

bool gpuos::ptxDefinesFunction(llvm::StringRef ptx, llvm::StringRef name) {
  // ".visible .func  (.param .b32 func_retval0) name(" at a line start.
  llvm::Regex definition("(^|\n)\\.visible[ \t]+\\.func[^\n]*[ \t)]" +
                         llvm::Regex::escape(name) + "\\(");
  return definition.match(ptx);
}
