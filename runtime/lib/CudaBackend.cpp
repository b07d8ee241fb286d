//===- CudaBackend.cpp - the runtime on a GPU through the driver API ------===//
//
// Two non-blocking streams: the resident kernel's, and one for copies, so a
// copy never waits behind the kernel that never ends (non-blocking streams
// do not synchronize with the legacy default stream either). Every method
// binds the context to the calling thread first: callers may be any thread.
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/Backend.h"
#include "gpuos/runtime/Driver.h"

namespace gpuos::runtime {

namespace {

class CudaBackend final : public Backend {
public:
  ~CudaBackend() override {
    if (!api)
      return;
    api->cuCtxSetCurrent(ctx);
    if (kernelStream && api->cuStreamQuery(kernelStream) == cu::kErrorNotReady)
      return; // a kernel still runs: unloading would block; leave it to exit
    if (module)
      api->cuModuleUnload(module);
    if (kernelStream)
      api->cuStreamDestroy(kernelStream);
    if (copyStream)
      api->cuStreamDestroy(copyStream);
    if (ownContext && api->cuCtxDestroy)
      api->cuCtxDestroy(ctx);
    else if (ctx)
      api->cuDevicePrimaryCtxRelease(device);
  }

  Status open(int ordinal, bool own) {
    const DriverStatus &driver = loadDriver();
    if (!driver.available())
      return Status::error(ErrorCode::NoGpu, driver.error);
    SystemInfo system = querySystem(driver);
    if (system.devices.empty())
      return Status::error(ErrorCode::NoGpu, system.error);
    if (ordinal < 0 || ordinal >= (int)system.devices.size())
      return Status::error(ErrorCode::InvalidArgument,
                           "device " + std::to_string(ordinal) +
                               " does not exist (" +
                               std::to_string(system.devices.size()) +
                               " visible)");
    const DeviceInfo &d = system.devices[ordinal];
    info_.name = d.name;
    info_.multiprocessors = d.multiprocessors;
    info_.computeMajor = d.computeMajor;
    info_.computeMinor = d.computeMinor;
    const DriverApi &a = *driver.api;
    GPUOS_RETURN_IF_ERROR(check(a, a.cuDeviceGet(&device, ordinal), "cuDeviceGet"));
    int canMap = 0, unified = 0;
    a.cuDeviceGetAttribute(&canMap, cu::kAttrCanMapHostMemory, device);
    a.cuDeviceGetAttribute(&unified, cu::kAttrUnifiedAddressing, device);
    if (!canMap || !unified)
      return Status::error(ErrorCode::Unsupported,
                           "the device cannot map host memory (needed for the "
                           "submission ring and completion words)");
    if (own) {
      if (!a.cuCtxCreate)
        return Status::error(ErrorCode::Unsupported,
                             "the driver lacks cuCtxCreate_v2; use the primary "
                             "context");
      GPUOS_RETURN_IF_ERROR(check(a, a.cuCtxCreate(&ctx, 0, device), "cuCtxCreate"));
    } else {
      GPUOS_RETURN_IF_ERROR(
          check(a, a.cuDevicePrimaryCtxRetain(&ctx, device), "cuDevicePrimaryCtxRetain"));
    }
    api = &a;
    ownContext = own;
    GPUOS_RETURN_IF_ERROR(makeCurrent());
    GPUOS_RETURN_IF_ERROR(check(a.cuStreamCreate(&kernelStream, cu::kStreamNonBlocking),
                                "cuStreamCreate"));
    GPUOS_RETURN_IF_ERROR(check(a.cuStreamCreate(&copyStream, cu::kStreamNonBlocking),
                                "cuStreamCreate"));
    return Status::success();
  }

  const BackendInfo &info() const override { return info_; }

  Status makeCurrent() override {
    return check(api->cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  }

  Status allocDevice(size_t bytes, uint64_t &addr) override {
    GPUOS_RETURN_IF_ERROR(makeCurrent());
    CUdeviceptr p = 0;
    GPUOS_RETURN_IF_ERROR(check(api->cuMemAlloc(&p, bytes), "cuMemAlloc"));
    addr = p;
    return Status::success();
  }

  Status freeDevice(uint64_t addr) override {
    GPUOS_RETURN_IF_ERROR(makeCurrent());
    return check(api->cuMemFree(addr), "cuMemFree");
  }

  Status allocMapped(size_t bytes, void *&host, uint64_t &addr) override {
    GPUOS_RETURN_IF_ERROR(makeCurrent());
    GPUOS_RETURN_IF_ERROR(check(
        api->cuMemHostAlloc(&host, bytes,
                            cu::kMemHostAllocPortable | cu::kMemHostAllocDeviceMap),
        "cuMemHostAlloc"));
    CUdeviceptr p = 0;
    Status st = check(api->cuMemHostGetDevicePointer(&p, host, 0),
                      "cuMemHostGetDevicePointer");
    if (!st.ok()) {
      api->cuMemFreeHost(host);
      return st;
    }
    addr = p;
    return Status::success();
  }

  void freeMapped(void *host) override {
    if (makeCurrent().ok())
      api->cuMemFreeHost(host);
  }

  Status copyToDevice(uint64_t dst, const void *src, size_t bytes) override {
    GPUOS_RETURN_IF_ERROR(makeCurrent());
    GPUOS_RETURN_IF_ERROR(check(api->cuMemcpyHtoDAsync(dst, src, bytes, copyStream),
                                "cuMemcpyHtoDAsync"));
    return check(api->cuStreamSynchronize(copyStream), "cuStreamSynchronize");
  }

  Status copyFromDevice(void *dst, uint64_t src, size_t bytes) override {
    GPUOS_RETURN_IF_ERROR(makeCurrent());
    GPUOS_RETURN_IF_ERROR(check(api->cuMemcpyDtoHAsync(dst, src, bytes, copyStream),
                                "cuMemcpyDtoHAsync"));
    return check(api->cuStreamSynchronize(copyStream), "cuStreamSynchronize");
  }

  Status loadImage(const std::vector<char> &cubin, uint32_t &protocol) override {
    GPUOS_RETURN_IF_ERROR(makeCurrent());
    GPUOS_RETURN_IF_ERROR(
        check(api->cuModuleLoadData(&module, cubin.data()), "cuModuleLoadData"));
    CUresult r = api->cuModuleGetFunction(&resident, module, "gpuos_resident");
    if (r) {
      unloadImage();
      return Status::error(ErrorCode::BadImage,
                           "the image has no gpuos_resident kernel; link it with "
                           "the runtime device library (" +
                               describeError(*api, r) + ")");
    }
    CUdeviceptr global = 0;
    size_t bytes = 0;
    r = api->cuModuleGetGlobal(&global, &bytes, module, "gpuos_runtime_protocol");
    if (r || bytes != sizeof(uint32_t)) {
      unloadImage();
      return Status::error(ErrorCode::BadImage,
                           "the image lacks gpuos_runtime_protocol");
    }
    return copyFromDevice(&protocol, global, sizeof(protocol));
  }

  void unloadImage() override {
    if (module && makeCurrent().ok())
      api->cuModuleUnload(module);
    module = nullptr;
    resident = nullptr;
  }

  Status blocksPerMultiprocessor(const LaunchShape &shape, int &blocks) override {
    GPUOS_RETURN_IF_ERROR(makeCurrent());
    if (shape.sharedBytes > 48 * 1024)
      GPUOS_RETURN_IF_ERROR(check(
          api->cuFuncSetAttribute(resident, cu::kFuncAttrMaxDynamicSharedBytes,
                                  (int)shape.sharedBytes),
          "cuFuncSetAttribute(max dynamic shared memory)"));
    return check(api->cuOccupancyMaxActiveBlocksPerMultiprocessor(
                     &blocks, resident, (int)shape.threads, shape.sharedBytes),
                 "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  }

  Status launchResident(uint64_t control, const LaunchShape &shape) override {
    GPUOS_RETURN_IF_ERROR(makeCurrent());
    CUdeviceptr arg = control;
    void *params[] = {&arg};
    return check(api->cuLaunchKernel(resident, shape.blocks, 1, 1, shape.threads,
                                     1, 1, shape.sharedBytes, kernelStream,
                                     params, nullptr),
                 "cuLaunchKernel(gpuos_resident)");
  }

  Status residentStatus(bool &running) override {
    GPUOS_RETURN_IF_ERROR(makeCurrent());
    CUresult r = api->cuStreamQuery(kernelStream);
    running = r == cu::kErrorNotReady;
    if (r == cu::kSuccess || running)
      return Status::success();
    return check(r, "the resident kernel's stream");
  }

  Status waitResidentExit() override {
    GPUOS_RETURN_IF_ERROR(makeCurrent());
    return check(api->cuStreamSynchronize(kernelStream), "cuStreamSynchronize");
  }

private:
  const DriverApi *api = nullptr;
  BackendInfo info_;
  CUdevice device = 0;
  CUcontext ctx = nullptr;
  bool ownContext = false;
  CUstream kernelStream = nullptr, copyStream = nullptr;
  CUmodule module = nullptr;
  CUfunction resident = nullptr;

  Status check(CUresult r, const char *what) const { return check(*api, r, what); }
  static Status check(const DriverApi &a, CUresult r, const char *what) {
    if (r == cu::kSuccess)
      return Status::success();
    return Status::error(ErrorCode::Cuda,
                         std::string(what) + ": " + describeError(a, r));
  }
};

} // namespace

Status openCudaBackend(int ordinal, bool ownContext,
                       std::unique_ptr<Backend> &out) {
  auto backend = std::make_unique<CudaBackend>();
  GPUOS_RETURN_IF_ERROR(backend->open(ordinal, ownContext));
  out = std::move(backend);
  return Status::success();
}

} // namespace gpuos::runtime
