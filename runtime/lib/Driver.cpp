//===- Driver.cpp - dlopen of libcuda -------------------------------------===//

#include "gpuos/runtime/Driver.h"

#include <cstdlib>
#include <dlfcn.h>

namespace gpuos::runtime {
namespace {

// Attribute ids from cuda.h (CUdevice_attribute); stable across releases.
constexpr int kAttrMultiprocessorCount = 16;
constexpr int kAttrComputeMajor = 75;
constexpr int kAttrComputeMinor = 76;

template <typename Fn>
bool resolve(void *library, const char *symbol, Fn &slot, std::string &error) {
  slot = reinterpret_cast<Fn>(dlsym(library, symbol));
  if (!slot)
    error = std::string("the driver library lacks ") + symbol;
  return slot != nullptr;
}

template <typename Fn> void resolveOptional(void *library, const char *symbol, Fn &slot) {
  slot = reinterpret_cast<Fn>(dlsym(library, symbol));
}

// The entry points of the resident runtime, after the basic ones so that a
// library without cuInit is still reported by that name. Versioned symbols
// (_v2) are the ones cuda.h maps the plain names to.
bool resolveRuntimeEntryPoints(void *library, DriverApi &api,
                               std::string &error) {
  return resolve(library, "cuDevicePrimaryCtxRetain",
                 api.cuDevicePrimaryCtxRetain, error) &&
         resolve(library, "cuDevicePrimaryCtxRelease_v2",
                 api.cuDevicePrimaryCtxRelease, error) &&
         resolve(library, "cuCtxSetCurrent", api.cuCtxSetCurrent, error) &&
         resolve(library, "cuCtxSynchronize", api.cuCtxSynchronize, error) &&
         resolve(library, "cuModuleLoadData", api.cuModuleLoadData, error) &&
         resolve(library, "cuModuleUnload", api.cuModuleUnload, error) &&
         resolve(library, "cuModuleGetFunction", api.cuModuleGetFunction,
                 error) &&
         resolve(library, "cuModuleGetGlobal_v2", api.cuModuleGetGlobal,
                 error) &&
         resolve(library, "cuMemAlloc_v2", api.cuMemAlloc, error) &&
         resolve(library, "cuMemFree_v2", api.cuMemFree, error) &&
         resolve(library, "cuMemHostAlloc", api.cuMemHostAlloc, error) &&
         resolve(library, "cuMemFreeHost", api.cuMemFreeHost, error) &&
         resolve(library, "cuMemHostGetDevicePointer_v2",
                 api.cuMemHostGetDevicePointer, error) &&
         resolve(library, "cuMemcpyHtoDAsync_v2", api.cuMemcpyHtoDAsync,
                 error) &&
         resolve(library, "cuMemcpyDtoHAsync_v2", api.cuMemcpyDtoHAsync,
                 error) &&
         resolve(library, "cuStreamCreate", api.cuStreamCreate, error) &&
         resolve(library, "cuStreamDestroy_v2", api.cuStreamDestroy, error) &&
         resolve(library, "cuStreamSynchronize", api.cuStreamSynchronize,
                 error) &&
         resolve(library, "cuStreamQuery", api.cuStreamQuery, error) &&
         resolve(library, "cuLaunchKernel", api.cuLaunchKernel, error) &&
         resolve(library, "cuOccupancyMaxActiveBlocksPerMultiprocessor",
                 api.cuOccupancyMaxActiveBlocksPerMultiprocessor, error) &&
         resolve(library, "cuFuncSetAttribute", api.cuFuncSetAttribute,
                 error) &&
         resolve(library, "cuFuncGetAttribute", api.cuFuncGetAttribute, error);
}

void resolveOptionalEntryPoints(void *library, DriverApi &api) {
  resolveOptional(library, "cuCtxCreate_v2", api.cuCtxCreate);
  resolveOptional(library, "cuCtxDestroy_v2", api.cuCtxDestroy);
  resolveOptional(library, "cuDevicePrimaryCtxReset_v2", api.cuDevicePrimaryCtxReset);
  resolveOptional(library, "cuMemHostRegister_v2", api.cuMemHostRegister);
  resolveOptional(library, "cuMemHostUnregister", api.cuMemHostUnregister);
  resolveOptional(library, "cuStreamBeginCapture_v2", api.cuStreamBeginCapture);
  resolveOptional(library, "cuStreamEndCapture", api.cuStreamEndCapture);
  resolveOptional(library, "cuGraphInstantiateWithFlags",
                  api.cuGraphInstantiateWithFlags);
  resolveOptional(library, "cuGraphLaunch", api.cuGraphLaunch);
  resolveOptional(library, "cuGraphExecDestroy", api.cuGraphExecDestroy);
  resolveOptional(library, "cuGraphDestroy", api.cuGraphDestroy);
  resolveOptional(library, "cuStreamGetCtx", api.cuStreamGetCtx);
  resolveOptional(library, "cuStreamIsCapturing", api.cuStreamIsCapturing);
  resolveOptional(library, "cuStreamWaitEvent", api.cuStreamWaitEvent);
  resolveOptional(library, "cuStreamWaitValue32_v2", api.cuStreamWaitValue32);
  resolveOptional(library, "cuEventCreate", api.cuEventCreate);
  resolveOptional(library, "cuEventDestroy_v2", api.cuEventDestroy);
  resolveOptional(library, "cuEventRecord", api.cuEventRecord);
  resolveOptional(library, "cuEventQuery", api.cuEventQuery);
}

} // namespace

DriverStatus loadDriverFrom(const char *path) {
  DriverStatus status;
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    status.error = std::string("no GPU: cannot load the CUDA driver (") +
                   path + "): " + (why ? why : "unknown error");
    return status;
  }
  // The table lives for the process: a driver is never unloaded.
  auto *api = new DriverApi;
  std::string error;
  bool ok = resolve(library, "cuInit", api->cuInit, error) &&
            resolve(library, "cuDriverGetVersion", api->cuDriverGetVersion,
                    error) &&
            resolve(library, "cuDeviceGetCount", api->cuDeviceGetCount,
                    error) &&
            resolve(library, "cuDeviceGet", api->cuDeviceGet, error) &&
            resolve(library, "cuDeviceGetName", api->cuDeviceGetName, error) &&
            resolve(library, "cuDeviceGetAttribute", api->cuDeviceGetAttribute,
                    error) &&
            resolve(library, "cuDeviceTotalMem_v2", api->cuDeviceTotalMem,
                    error) &&
            resolve(library, "cuGetErrorString", api->cuGetErrorString, error) &&
            resolveRuntimeEntryPoints(library, *api, error);
  if (!ok) {
    delete api;
    status.error = "no GPU: " + error + " (" + path + ")";
    return status;
  }
  resolveOptionalEntryPoints(library, *api);
  if (CUresult result = api->cuInit(0)) {
    status.error = "no GPU: cuInit failed: " + describeError(*api, result);
    delete api;
    return status;
  }
  status.api = api;
  return status;
}

const DriverStatus &loadDriver() {
  static const DriverStatus status = [] {
    const char *path = std::getenv("GPUOS_LIBCUDA");
    return loadDriverFrom(path && *path ? path : "libcuda.so.1");
  }();
  return status;
}

std::string describeError(const DriverApi &api, CUresult result) {
  const char *text = nullptr;
  if (api.cuGetErrorString && api.cuGetErrorString(result, &text) == 0 && text)
    return std::string(text) + " (CUresult " + std::to_string(result) + ")";
  return "CUresult " + std::to_string(result);
}

SystemInfo querySystem(const DriverStatus &status) {
  SystemInfo info;
  if (!status.available()) {
    info.error = status.error;
    return info;
  }
  const DriverApi &api = *status.api;
  int count = 0;
  if (CUresult r = api.cuDriverGetVersion(&info.driverVersion)) {
    info.error = "cuDriverGetVersion: " + describeError(api, r);
    return info;
  }
  if (CUresult r = api.cuDeviceGetCount(&count)) {
    info.error = "cuDeviceGetCount: " + describeError(api, r);
    return info;
  }
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    DeviceInfo device;
    device.ordinal = ordinal;
    CUdevice handle = 0;
    char name[256] = {};
    if (CUresult r = api.cuDeviceGet(&handle, ordinal)) {
      info.error = "cuDeviceGet(" + std::to_string(ordinal) +
                   "): " + describeError(api, r);
      return info;
    }
    api.cuDeviceGetName(name, sizeof(name) - 1, handle);
    device.name = name;
    api.cuDeviceGetAttribute(&device.computeMajor, kAttrComputeMajor, handle);
    api.cuDeviceGetAttribute(&device.computeMinor, kAttrComputeMinor, handle);
    api.cuDeviceGetAttribute(&device.multiprocessors, kAttrMultiprocessorCount,
                             handle);
    api.cuDeviceTotalMem(&device.totalMemoryBytes, handle);
    info.devices.push_back(device);
  }
  if (info.devices.empty())
    info.error = "no GPU: the driver loaded but reports no devices";
  return info;
}

} // namespace gpuos::runtime
