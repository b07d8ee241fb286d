//===- NvJitLink.cpp - nvJitLink, loaded at run time ----------------------===//
//
// The entry points are declared here with the C ABI of nvJitLink.h (CUDA
// 13), so building gpuos needs no CUDA headers. nvJitLink.h maps its API
// names to versioned symbols (__nvJitLinkCreate_13_0 ...); those are
// looked up first, the plain names second.
//
//===----------------------------------------------------------------------===//

#include "gpuos/Target/NvJitLink.h"
#include "gpuos/Target/CudaLibrary.h"
#include "llvm/Support/FormatVariadic.h"
#include <cstdint>
#include <cstdlib>
#include <dlfcn.h>

using namespace gpuos;

namespace {
using Handle = void *;
using Result = int; // nvJitLinkResult; 0 is NVJITLINK_SUCCESS
// nvJitLinkInputType (nvJitLink.h, CUDA 13).
constexpr int kInputCubin = 1, kInputPTX = 2, kInputFatbin = 4,
              kInputObject = 5, kInputLibrary = 6;

const char *resultName(Result result) {
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
} // namespace

struct NvJitLink::Api {
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
};

template <typename Fn>
static bool resolve(void *library, const char *name, Fn &slot) {
  std::string versioned = std::string("__") + name + "_13_0";
  void *symbol = dlsym(library, versioned.c_str());
  if (!symbol)
    symbol = dlsym(library, name);
  slot = reinterpret_cast<Fn>(symbol);
  return symbol != nullptr;
}

llvm::Expected<NvJitLink> NvJitLink::load(llvm::StringRef path) {
  // One table per process: the library stays loaded.
  auto *api = new Api;
  auto accept = [&](void *library) {
    *api = Api();
    bool ok = resolve(library, "nvJitLinkCreate", api->create) &&
              resolve(library, "nvJitLinkDestroy", api->destroy) &&
              resolve(library, "nvJitLinkAddData", api->addData) &&
              resolve(library, "nvJitLinkComplete", api->complete) &&
              resolve(library, "nvJitLinkGetLinkedCubinSize", api->cubinSize) &&
              resolve(library, "nvJitLinkGetLinkedCubin", api->cubin) &&
              resolve(library, "nvJitLinkGetErrorLogSize", api->errorLogSize) &&
              resolve(library, "nvJitLinkGetErrorLog", api->errorLog) &&
              resolve(library, "nvJitLinkGetInfoLogSize", api->infoLogSize) &&
              resolve(library, "nvJitLinkGetInfoLog", api->infoLog);
    resolve(library, "nvJitLinkVersion", api->version); // optional
    return ok;
  };
  llvm::Expected<void *> library =
      openCudaLibrary("libnvJitLink.so.13", path, "GPUOS_NVJITLINK", "", accept,
                      "(nvJitLink of CUDA 13) to link the image");
  if (!library) {
    delete api;
    return library.takeError();
  }
  NvJitLink linker;
  linker.api = api;
  return linker;
}

std::string NvJitLink::version() const {
  unsigned major = 0, minor = 0;
  if (api->version && api->version(&major, &minor) == 0)
    return llvm::formatv("{0}.{1}", major, minor).str();
  return "unknown";
}

static std::string readLog(Result (*sizeFn)(Handle, size_t *),
                           Result (*logFn)(Handle, char *), Handle handle) {
  size_t size = 0;
  if (sizeFn(handle, &size) != 0 || size <= 1)
    return "";
  std::string log(size, '\0');
  if (logFn(handle, log.data()) != 0)
    return "";
  log.resize(log.find('\0') == std::string::npos ? size : log.find('\0'));
  return log;
}

LinkInput::Kind LinkInput::kindOfFile(llvm::StringRef path) {
  if (path.ends_with(".a"))
    return Library;
  if (path.ends_with(".cubin"))
    return Cubin;
  if (path.ends_with(".fatbin"))
    return Fatbin;
  if (path.ends_with(".ptx"))
    return PTX;
  return Object;
}

static int inputType(LinkInput::Kind kind) {
  switch (kind) {
  case LinkInput::PTX:
    return kInputPTX;
  case LinkInput::Object:
    return kInputObject;
  case LinkInput::Library:
    return kInputLibrary;
  case LinkInput::Cubin:
    return kInputCubin;
  case LinkInput::Fatbin:
    return kInputFatbin;
  }
  return kInputObject;
}

llvm::Expected<NvJitLink::Session>
NvJitLink::begin(const LinkOptions &options) const {
  std::string arch = "-arch=" + options.arch;
  std::string opt = "-O" + std::to_string(options.optLevel);
  std::string registers = "-maxrregcount=" + std::to_string(options.maxRegisters);
  std::vector<const char *> args = {arch.c_str(), opt.c_str()};
  if (options.maxRegisters > 0)
    args.push_back(registers.c_str());
  if (options.verbose)
    args.push_back("-verbose");
  Handle handle = nullptr;
  if (Result r = api->create(&handle, args.size(), args.data()))
    return llvm::createStringError(llvm::formatv(
        "nvJitLinkCreate({0} {1}) failed: {2}", arch, opt, resultName(r)));
  return Session(api, handle);
}

NvJitLink::Session::Session(Session &&other) noexcept
    : api(other.api), handle(other.handle) {
  other.handle = nullptr;
}

NvJitLink::Session &NvJitLink::Session::operator=(Session &&other) noexcept {
  std::swap(api, other.api);
  std::swap(handle, other.handle);
  return *this;
}

NvJitLink::Session::~Session() {
  if (handle)
    api->destroy(&handle);
}

llvm::Error NvJitLink::Session::fail(llvm::StringRef what, int result) {
  std::string log = handle ? readLog(api->errorLogSize, api->errorLog, handle)
                           : std::string();
  if (handle)
    api->destroy(&handle);
  handle = nullptr;
  return llvm::createStringError(
      llvm::formatv("{0} failed: {1}{2}{3}", what, resultName(result),
                    log.empty() ? "" : "\n", log)
          .str());
}

llvm::Error NvJitLink::Session::add(const LinkInput &input) {
  if (!handle)
    return llvm::createStringError("nvJitLink session already completed");
  if (Result r = api->addData(handle, inputType(input.kind), input.data.data(),
                              input.data.size(), input.name.c_str()))
    return fail("nvJitLinkAddData(" + input.name + ")", r);
  return llvm::Error::success();
}

llvm::Expected<LinkResult> NvJitLink::Session::complete() {
  if (!handle)
    return llvm::createStringError("nvJitLink session already completed");
  if (Result r = api->complete(handle))
    return fail("nvJitLinkComplete", r);
  LinkResult result;
  size_t size = 0;
  if (Result r = api->cubinSize(handle, &size))
    return fail("nvJitLinkGetLinkedCubinSize", r);
  result.cubin.resize(size);
  if (Result r = api->cubin(handle, result.cubin.data()))
    return fail("nvJitLinkGetLinkedCubin", r);
  result.infoLog = readLog(api->infoLogSize, api->infoLog, handle);
  api->destroy(&handle);
  handle = nullptr;
  return result;
}

llvm::Expected<LinkResult> NvJitLink::link(llvm::ArrayRef<LinkInput> inputs,
                                           const LinkOptions &options) const {
  llvm::Expected<Session> session = begin(options);
  if (!session)
    return session.takeError();
  for (const LinkInput &input : inputs)
    if (llvm::Error error = session->add(input))
      return std::move(error);
  return session->complete();
}
