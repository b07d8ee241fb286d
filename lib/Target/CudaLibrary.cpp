//===- CudaLibrary.cpp - dlopen a CUDA toolkit library --------------------===//

#include "gpuos/Target/CudaLibrary.h"
#include <cstdlib>
#include <dlfcn.h>
#include <string>
#include <unistd.h>
#include <vector>

llvm::Expected<void *>
gpuos::openCudaLibrary(llvm::StringRef soname, llvm::StringRef explicitPath,
                       const char *envVar, llvm::StringRef cudaPath,
                       llvm::function_ref<bool(void *)> accept,
                       llvm::StringRef purpose) {
  std::vector<std::string> candidates;
  if (!explicitPath.empty()) {
    // dlopen searches the loader path for a name without '/', never the
    // working directory: a file there is meant when one exists.
    std::string path = explicitPath.str();
    if (path.find('/') == std::string::npos && access(path.c_str(), F_OK) == 0)
      path = "./" + path;
    candidates.push_back(path);
  } else {
    if (const char *env = envVar ? std::getenv(envVar) : nullptr; env && *env)
      candidates.push_back(env);
    candidates.push_back(soname.str());
    if (!cudaPath.empty())
      candidates.push_back(cudaPath.str() + "/lib64/" + soname.str());
    if (const char *cuda = std::getenv("CUDA_HOME"); cuda && *cuda)
      candidates.push_back(std::string(cuda) + "/lib64/" + soname.str());
    candidates.push_back("/usr/local/cuda/lib64/" + soname.str());
  }
  std::string tried;
  for (const std::string &candidate : candidates) {
    void *library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char *why = dlerror();
      tried += "\n  " + candidate + ": " + (why ? why : "cannot load");
      continue;
    }
    if (accept(library))
      return library;
    tried += "\n  " + candidate + ": missing entry points";
  }
  return llvm::createStringError("cannot load " + soname.str() + " " +
                                 purpose.str() + "; tried:" + tried);
}
