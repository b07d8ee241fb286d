//===- Driver.h - the CUDA driver, loaded at run time -----------*- C++ -*-===//
//
// The runtime reaches the GPU only through this table of driver entry points,
// filled by dlopen("libcuda.so.1"). Nothing links libcuda, so every gpuos
// tool starts on a machine without an NVIDIA driver and reports "no GPU"
// instead of failing to load.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_RUNTIME_DRIVER_H
#define GPUOS_RUNTIME_DRIVER_H

#include <string>
#include <vector>

namespace gpuos::runtime {

/// CUresult and CUdevice as the driver ABI defines them (ints); declared
/// here so the runtime needs no CUDA headers to build. The handle types are
/// opaque pointers in cuda.h; CUdeviceptr is an unsigned 64-bit integer.
using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUevent = void *;
using CUgraph = void *;
using CUgraphExec = void *;
using CUdeviceptr = unsigned long long;

/// The few cuda.h constants the runtime passes (values are ABI-stable).
namespace cu {
constexpr CUresult kSuccess = 0;
constexpr CUresult kErrorNotReady = 600;
constexpr unsigned kMemHostAllocPortable = 0x1;
constexpr unsigned kMemHostAllocDeviceMap = 0x2;
constexpr unsigned kMemHostRegisterPortable = 0x1;
constexpr unsigned kMemHostRegisterDeviceMap = 0x2;
constexpr unsigned kStreamNonBlocking = 0x1;
constexpr unsigned kEventDisableTiming = 0x2;
constexpr unsigned kStreamWaitValueGeq = 0x0; // (int32)(*addr - value) >= 0
constexpr int kFuncAttrSharedSizeBytes = 1; // static __shared__
constexpr int kFuncAttrNumRegs = 4;
constexpr int kFuncAttrMaxDynamicSharedBytes = 8;
constexpr int kStreamCaptureModeThreadLocal = 1;
constexpr int kStreamCaptureStatusNone = 0;
constexpr int kAttrCanMapHostMemory = 19;
constexpr int kAttrUnifiedAddressing = 41;
constexpr int kAttrMaxSharedPerBlockOptin = 97;
} // namespace cu

/// The driver entry points the runtime uses, resolved once.
struct DriverApi {
  CUresult (*cuInit)(unsigned flags) = nullptr;
  CUresult (*cuDriverGetVersion)(int *version) = nullptr;
  CUresult (*cuDeviceGetCount)(int *count) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal) = nullptr;
  CUresult (*cuDeviceGetName)(char *name, int length, CUdevice device) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute,
                                   CUdevice device) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t *bytes, CUdevice device) = nullptr;
  CUresult (*cuGetErrorString)(CUresult error, const char **text) = nullptr;

  // Contexts, modules, memory, streams and launches: what the resident
  // runtime needs (all required).
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice device) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext ctx) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule *module, const void *image) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule module) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *fn, CUmodule module,
                                  const char *name) = nullptr;
  CUresult (*cuModuleGetGlobal)(CUdeviceptr *ptr, size_t *bytes,
                                CUmodule module, const char *name) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr ptr) = nullptr;
  CUresult (*cuMemHostAlloc)(void **ptr, size_t bytes, unsigned flags) = nullptr;
  CUresult (*cuMemFreeHost)(void *ptr) = nullptr;
  CUresult (*cuMemHostGetDevicePointer)(CUdeviceptr *ptr, void *host,
                                        unsigned flags) = nullptr;
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t bytes,
                                CUstream stream) = nullptr;
  CUresult (*cuMemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes,
                                CUstream stream) = nullptr;
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream stream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream stream) = nullptr;
  CUresult (*cuStreamQuery)(CUstream stream) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction fn, unsigned gx, unsigned gy,
                             unsigned gz, unsigned bx, unsigned by, unsigned bz,
                             unsigned sharedBytes, CUstream stream,
                             void **params, void **extra) = nullptr;
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(
      int *blocks, CUfunction fn, int blockSize, size_t dynamicShared) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction fn, int attribute,
                                 int value) = nullptr;
  CUresult (*cuFuncGetAttribute)(int *value, int attribute,
                                 CUfunction fn) = nullptr;

  // Optional (null when the driver lacks them): a private context, and
  // CUDA graph capture for the benchmark's comparison.
  CUresult (*cuCtxCreate)(CUcontext *ctx, unsigned flags,
                          CUdevice device) = nullptr;
  CUresult (*cuCtxDestroy)(CUcontext ctx) = nullptr;
  CUresult (*cuDevicePrimaryCtxReset)(CUdevice device) = nullptr;
  // The device host (a process backend's helper) maps shared memory.
  CUresult (*cuMemHostRegister)(void *ptr, size_t bytes, unsigned flags) = nullptr;
  CUresult (*cuMemHostUnregister)(void *ptr) = nullptr;
  CUresult (*cuStreamBeginCapture)(CUstream stream, int mode) = nullptr;
  CUresult (*cuStreamEndCapture)(CUstream stream, CUgraph *graph) = nullptr;
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *exec, CUgraph graph,
                                          unsigned long long flags) = nullptr;
  CUresult (*cuGraphLaunch)(CUgraphExec exec, CUstream stream) = nullptr;
  CUresult (*cuGraphExecDestroy)(CUgraphExec exec) = nullptr;
  CUresult (*cuGraphDestroy)(CUgraph graph) = nullptr;
  // Stream-ordered submissions (Runtime::submitOnStream): the kernel's
  // stream waits for an event of the caller's stream before the launch,
  // the caller's stream for an event after it.
  CUresult (*cuStreamGetCtx)(CUstream stream, CUcontext *ctx) = nullptr;
  // status: kStreamCaptureStatusNone unless the stream is capturing a graph.
  CUresult (*cuStreamIsCapturing)(CUstream stream, int *status) = nullptr;
  CUresult (*cuStreamWaitEvent)(CUstream stream, CUevent event,
                                unsigned flags) = nullptr;
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags) = nullptr;
  CUresult (*cuEventDestroy)(CUevent event) = nullptr;
  CUresult (*cuEventRecord)(CUevent event, CUstream stream) = nullptr;
  CUresult (*cuEventQuery)(CUevent event) = nullptr;
  bool hasStreamOrdering() const {
    return cuStreamGetCtx && cuStreamWaitEvent && cuEventCreate && cuEventDestroy &&
           cuEventRecord && cuEventQuery;
  }
  // Tests hold a stream at a point with it (a wait on a mapped word).
  CUresult (*cuStreamWaitValue32)(CUstream stream, CUdeviceptr addr,
                                  unsigned value, unsigned flags) = nullptr;
};

/// What loading the driver found: the API table when it loaded and
/// initialized, otherwise a message that says why there is no GPU.
struct DriverStatus {
  const DriverApi *api = nullptr; // null when unavailable
  std::string error;              // set when api is null
  bool available() const { return api != nullptr; }
};

/// Loads and initializes the driver once per process. The library path
/// defaults to "libcuda.so.1"; the GPUOS_LIBCUDA environment variable
/// overrides it (tests use this to simulate a machine without a driver).
const DriverStatus &loadDriver();

/// Loads from an explicit path, without caching: for tests.
DriverStatus loadDriverFrom(const char *path);

/// "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)".
std::string describeError(const DriverApi &api, CUresult result);

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int computeMajor = 0, computeMinor = 0;
  int multiprocessors = 0;
  size_t totalMemoryBytes = 0;
};

/// Driver version (e.g. 13000) and the visible devices, or the reason there
/// are none in `error`.
struct SystemInfo {
  int driverVersion = 0;
  std::vector<DeviceInfo> devices;
  std::string error;
};
SystemInfo querySystem(const DriverStatus &status);

} // namespace gpuos::runtime

#endif // GPUOS_RUNTIME_DRIVER_H
