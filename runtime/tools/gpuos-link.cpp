//===- gpuos-link.cpp - link task code with the runtime device library -===//
//
// The image path of docs/abi.md without the compiler: nvJitLink links
// relocatable objects (nvcc -rdc=true -c), archives, cubins and PTX with
// the runtime's device library into one cubin. nvJitLink is opened with
// dlopen (libnvJitLink.so.13), so neither this tool's build nor the runtime
// library depends on it; the runtime loads the finished cubin with the
// driver alone.
//
//   gpuos-link [-arch=sm_90] [-O3] [-maxrregcount=N] -o image.cubin
//              input.o lib.a k.ptx ...
// (-maxrregcount: the register limit gpuos-jit links with, 128 by default
// there, so an image linked here from its PTX matches gpuos-jit's.)
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/LinkInputCheck.h"
#include "gpuos/runtime/NvJitLinkApi.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <sys/stat.h>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace gpuos::nvjitlink;

namespace {

bool loadApi(Api &api, std::string &tried) {
  std::vector<std::string> paths;
  if (const char *env = std::getenv("GPUOS_NVJITLINK"); env && *env)
    paths.push_back(env);
  paths.push_back("libnvJitLink.so.13");
  if (const char *cuda = std::getenv("CUDA_HOME"); cuda && *cuda)
    paths.push_back(std::string(cuda) + "/lib64/libnvJitLink.so.13");
  paths.push_back("/usr/local/cuda/lib64/libnvJitLink.so.13");
  for (const std::string &path : paths) {
    void *lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      tried += "\n  " + path + ": " + dlerror();
      continue;
    }
    if (api.resolveFrom(lib))
      return true;
    tried += "\n  " + path + ": missing nvJitLink entry points";
  }
  return false;
}

bool endsWith(const std::string &s, const char *suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

int usage() {
  std::fprintf(stderr,
               "usage: gpuos-link [-arch=sm_XX] [-O0..3] [-maxrregcount=N] [-v] -o out.cubin "
               "inputs...\n  inputs: .o (nvcc -rdc=true -c), .a, .cubin, "
               ".fatbin, .ptx\n");
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  std::string arch = "-arch=sm_90", opt = "-O3", registers, output;
  bool verbose = false;
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("-arch=", 0) == 0)
      arch = a;
    else if (a.rfind("-O", 0) == 0) {
      if (a.size() != 3 || a[2] < '0' || a[2] > '3') {
        std::fprintf(stderr, "gpuos-link: unsupported %s; use -O0 to -O3\n", a.c_str());
        return 2;
      }
      opt = optimizationOption(a[2] - '0');
    }
    else if (a.rfind("-maxrregcount=", 0) == 0) {
      // nvJitLink took -5 and "abc" without a word (and linked with no cap).
      std::string n = a.substr(14);
      bool digits = !n.empty() && n.size() <= 3 &&
                    n.find_first_not_of("0123456789") == std::string::npos;
      if (!digits || std::stoi(n) < 1 || std::stoi(n) > 255) {
        std::fprintf(stderr, "gpuos-link: unsupported %s; use 1 to 255\n", a.c_str());
        return 2;
      }
      registers = a;
    }
    else if (a == "-v")
      verbose = true;
    else if (a == "-o" && i + 1 < argc)
      output = argv[++i];
    else if (!a.empty() && a[0] == '-')
      return usage();
    else
      inputs.push_back(a);
  }
  if (output.empty() || inputs.empty())
    return usage();

  Api api;
  std::string tried;
  if (!loadApi(api, tried)) {
    std::fprintf(stderr, "gpuos-link: cannot load nvJitLink; tried:%s\n",
                 tried.c_str());
    return 1;
  }
  std::vector<const char *> options = {arch.c_str(), opt.c_str()};
  if (!registers.empty())
    options.push_back(registers.c_str());
  if (verbose)
    options.push_back("-verbose");
  Handle h = nullptr;
  if (Result r = api.create(&h, options.size(), options.data())) {
    std::string given;
    for (const char *o : options)
      given += std::string(" ") + o;
    std::fprintf(stderr, "gpuos-link: nvJitLinkCreate(%s) failed: %s\n", given.c_str() + 1,
                 resultName(r));
    return 1;
  }
  auto fail = [&](const std::string &what, Result r) {
    std::string log = api.log(h);
    std::fprintf(stderr, "gpuos-link: %s failed (nvJitLink error %d)\n%s\n",
                 what.c_str(), r, log.c_str());
    api.destroy(&h);
    return 1;
  };
  for (const std::string &path : inputs) {
    // A directory opens as a stream, and reading it throws (an abort).
    struct stat st;
    const char *why = ::stat(path.c_str(), &st) != 0 ? std::strerror(errno)
                      : !S_ISREG(st.st_mode)          ? "not a regular file"
                                                      : nullptr;
    std::ifstream in(path, std::ios::binary);
    if (why || !in) {
      std::fprintf(stderr, "gpuos-link: cannot read %s: %s\n", path.c_str(),
                   why ? why : "cannot open it");
      return 1;
    }
    std::string data((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    int kind = endsWith(path, ".ptx")      ? kInputPtx
               : endsWith(path, ".a")      ? kInputLibrary
               : endsWith(path, ".cubin")  ? kInputCubin
               : endsWith(path, ".fatbin") ? kInputFatbin
                                           : kInputObject;
    std::string bad = gpuos::linkcheck::checkLinkInput(kind, data.data(), data.size());
    if (!bad.empty()) {
      std::fprintf(stderr, "gpuos-link: %s: %s\n", path.c_str(), bad.c_str());
      api.destroy(&h);
      return 1;
    }
    if (kind == kInputPtx)
      data.push_back('\0');
    if (Result r = api.addData(h, kind, data.data(), data.size(), path.c_str()))
      return fail("adding " + path, r);
  }
  if (Result r = api.complete(h))
    return fail("linking", r);
  size_t size = 0;
  if (Result r = api.cubinSize(h, &size))
    return fail("nvJitLinkGetLinkedCubinSize", r);
  std::vector<char> cubin(size);
  if (Result r = api.cubin(h, cubin.data()))
    return fail("nvJitLinkGetLinkedCubin", r);
  if (verbose)
    std::fprintf(stderr, "%s", api.log(h, /*error=*/false).c_str());
  api.destroy(&h);
  std::ofstream out(output, std::ios::binary);
  out.write(cubin.data(), cubin.size());
  if (!out) {
    std::fprintf(stderr, "gpuos-link: cannot write %s\n", output.c_str());
    return 1;
  }
  return 0;
}
