//===- CudaApi.h - the few driver calls the stream-priority baseline uses -===//
//
// The suite driver's baseline for GPU sharing runs the image's own task
// functions (their gpuos_launch_<kind> test kernels) on two CUDA streams
// with stream priorities. The runtime's driver table does not carry stream
// priorities or events, so this is a second, tiny table, loaded with dlopen
// like the runtime's (the driver starts, and says "no GPU", on a machine
// without libcuda). Types are the cuda.h ABI types, declared here.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_BENCH_SUITE_CUDAAPI_H
#define GPUOS_BENCH_SUITE_CUDAAPI_H

#include <dlfcn.h>
#include <string>

namespace suite {

using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUevent = void *;
using CUdeviceptr = unsigned long long;

constexpr CUresult kCudaSuccess = 0;
constexpr CUresult kCudaNotReady = 600;
constexpr unsigned kStreamNonBlocking = 0x1;
constexpr unsigned kEventDisableTiming = 0x2;
constexpr int kFuncAttrMaxDynamicShared = 8;

struct CudaApi {
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuCtxGetStreamPriorityRange)(int *, int *) = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule *, const void *) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuStreamCreateWithPriority)(CUstream *, unsigned, int) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int) = nullptr;
  CUresult (*cuEventCreate)(CUevent *, unsigned) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventQuery)(CUevent) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char **) = nullptr;

  std::string error; // why loading failed

  /// A symbol newer drivers add (cuEventElapsedTime_v2, CUDA 12.8): its
  /// absence is no error, the caller falls back to the older name.
  template <typename Fn> bool getOptional(void *lib, const char *name, Fn &slot) {
    slot = reinterpret_cast<Fn>(dlsym(lib, name));
    return slot != nullptr;
  }

  template <typename Fn> bool get(void *lib, const char *name, Fn &slot) {
    slot = reinterpret_cast<Fn>(dlsym(lib, name));
    if (!slot)
      error = std::string("libcuda lacks ") + name;
    return slot != nullptr;
  }

  bool load() {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
      error = std::string("no GPU: cannot load libcuda.so.1: ") + dlerror();
      return false;
    }
    return get(lib, "cuInit", cuInit) && get(lib, "cuDeviceGet", cuDeviceGet) &&
           get(lib, "cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain) &&
           get(lib, "cuCtxSetCurrent", cuCtxSetCurrent) &&
           get(lib, "cuCtxSynchronize", cuCtxSynchronize) &&
           get(lib, "cuCtxGetStreamPriorityRange", cuCtxGetStreamPriorityRange) &&
           get(lib, "cuModuleLoadData", cuModuleLoadData) &&
           get(lib, "cuModuleGetFunction", cuModuleGetFunction) &&
           get(lib, "cuMemAlloc_v2", cuMemAlloc) &&
           get(lib, "cuMemcpyHtoD_v2", cuMemcpyHtoD) &&
           get(lib, "cuMemcpyDtoH_v2", cuMemcpyDtoH) &&
           get(lib, "cuStreamCreateWithPriority", cuStreamCreateWithPriority) &&
           get(lib, "cuStreamSynchronize", cuStreamSynchronize) &&
           get(lib, "cuLaunchKernel", cuLaunchKernel) &&
           get(lib, "cuFuncSetAttribute", cuFuncSetAttribute) &&
           get(lib, "cuEventCreate", cuEventCreate) &&
           get(lib, "cuEventRecord", cuEventRecord) &&
           get(lib, "cuEventQuery", cuEventQuery) &&
           get(lib, "cuEventSynchronize", cuEventSynchronize) &&
           (getOptional(lib, "cuEventElapsedTime_v2", cuEventElapsedTime) ||
            get(lib, "cuEventElapsedTime", cuEventElapsedTime)) &&
           get(lib, "cuGetErrorString", cuGetErrorString);
  }

  std::string describe(CUresult r) const {
    const char *text = nullptr;
    if (cuGetErrorString && cuGetErrorString(r, &text) == kCudaSuccess && text)
      return std::string(text) + " (" + std::to_string(r) + ")";
    return "CUDA error " + std::to_string(r);
  }
};

} // namespace suite

#endif // GPUOS_BENCH_SUITE_CUDAAPI_H
