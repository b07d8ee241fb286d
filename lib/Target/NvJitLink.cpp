//===- NvJitLink.cpp - nvJitLink, loaded at run time ----------------------===//
//
// The entry points come from gpuos/runtime/NvJitLinkApi.h (the C ABI of
// nvJitLink.h, CUDA 13), so building gpuos needs no CUDA headers.
//
//===----------------------------------------------------------------------===//

#include "gpuos/Target/NvJitLink.h"
#include "gpuos/Target/CudaLibrary.h"
#include "gpuos/runtime/LinkInputCheck.h"
#include "gpuos/runtime/NvJitLinkApi.h"
#include "llvm/Support/FormatVariadic.h"
#include <cstdint>
#include <cstdlib>
#include <dlfcn.h>

using namespace gpuos;
using namespace gpuos::nvjitlink;

// The entry-point table (runtime/include/gpuos/runtime/NvJitLinkApi.h,
// shared with the runtime's gpuos-link).
struct NvJitLink::Api : nvjitlink::Api {};

llvm::Expected<NvJitLink> NvJitLink::load(llvm::StringRef path) {
  // One table per process: the library stays loaded.
  auto *api = new Api;
  auto accept = [&](void *library) { return api->resolveFrom(library); };
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

std::string NvJitLink::libraryPath() const {
  Dl_info info;
  if (api->version && dladdr(reinterpret_cast<void *>(api->version), &info) &&
      info.dli_fname)
    return info.dli_fname;
  return "";
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
    return kInputPtx;
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
  std::string opt = optimizationOption(options.optLevel);
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
    : api(other.api), handle(other.handle), added(std::move(other.added)) {
  other.handle = nullptr;
}

NvJitLink::Session &NvJitLink::Session::operator=(Session &&other) noexcept {
  std::swap(api, other.api);
  std::swap(handle, other.handle);
  std::swap(added, other.added);
  return *this;
}

NvJitLink::Session::~Session() {
  if (handle)
    api->destroy(&handle);
}

llvm::Error NvJitLink::Session::fail(llvm::StringRef what, int result) {
  std::string log = handle ? api->log(handle)
                           : std::string();
  if (handle)
    api->destroy(&handle);
  handle = nullptr;
  return llvm::createStringError(
      llvm::formatv("{0} failed: {1}{2}{3}", what, resultName(result),
                    log.empty() ? "" : "\n", log)
          .str());
}

std::string LinkInput::structureError(Kind kind, llvm::StringRef data) {
  return linkcheck::checkLinkInput(inputType(kind), data.data(), data.size());
}

llvm::Error NvJitLink::Session::add(LinkInput moved) {
  if (!handle)
    return llvm::createStringError("nvJitLink session already completed");
  // nvJitLink keeps the name pointer (a link error names the file that
  // first defined a symbol); the data is kept too, as nothing documents
  // that it is copied.
  std::string bad = moved.structureError();
  if (!bad.empty())
    return llvm::createStringError(moved.name + ": " + bad);
  const LinkInput &input = added.emplace_back(std::move(moved));
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
  result.infoLog = api->log(handle, /*error=*/false);
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
