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
/// here so the runtime needs no CUDA headers to build.
using CUresult = int;
using CUdevice = int;

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
