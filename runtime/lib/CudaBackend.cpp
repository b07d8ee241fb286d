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
#include "gpuos/runtime/LinkInputCheck.h"

#include <list>

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
    for (Image &im : images)
      api->cuModuleUnload(im.module);
    for (CUevent e : spareEvents)
      api->cuEventDestroy(e);
    if (before)
      api->cuEventDestroy(before);
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
    return mappedAddress(host, addr, api->cuMemFreeHost);
  }

  void freeMapped(void *host) override {
    if (makeCurrent().ok())
      api->cuMemFreeHost(host);
  }

  Status registerMapped(void *host, size_t bytes, uint64_t &addr) override {
    GPUOS_RETURN_IF_ERROR(makeCurrent());
    if (!api->cuMemHostRegister || !api->cuMemHostUnregister)
      return Status::error(ErrorCode::Unsupported,
                           "the driver lacks cuMemHostRegister_v2");
    GPUOS_RETURN_IF_ERROR(check(
        api->cuMemHostRegister(host, bytes,
                               cu::kMemHostRegisterPortable | cu::kMemHostRegisterDeviceMap),
        "cuMemHostRegister"));
    return mappedAddress(host, addr, api->cuMemHostUnregister);
  }

  void unregisterMapped(void *host) override {
    if (makeCurrent().ok())
      api->cuMemHostUnregister(host);
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

  // Loaded images are kept (up to kImageCache, most recent first), so a
  // swap back to an image loaded before costs no cuModuleLoadData, which
  // takes milliseconds and blocks while the kernel runs.
  Status loadImage(const std::vector<char> &cubin, uint32_t &protocol) override {
    GPUOS_RETURN_IF_ERROR(makeCurrent());
    staged = nullptr;
    for (auto it = images.begin(); it != images.end(); ++it)
      if (it->bytes == cubin) {
        images.splice(images.begin(), images, it);
        staged = &images.front();
        protocol = staged->protocol;
        return Status::success();
      }
    // The loader trusts the ELF tables: a truncated cubin would crash it.
    std::string bad = linkcheck::checkStructure(cubin.data(), cubin.size());
    if (!bad.empty())
      return Status::error(ErrorCode::BadImage, "the image is not well-formed: " + bad);
    Image im;
    im.bytes = cubin;
    GPUOS_RETURN_IF_ERROR(
        check(api->cuModuleLoadData(&im.module, cubin.data()), "cuModuleLoadData"));
    CUresult r = api->cuModuleGetFunction(&im.resident, im.module, "gpuos_resident");
    if (r) {
      std::string why = describeError(*api, r);
      api->cuModuleUnload(im.module);
      return Status::error(ErrorCode::BadImage,
                           "the image has no gpuos_resident kernel; link it with "
                           "the runtime device library (" + why + ")");
    }
    CUdeviceptr global = 0;
    size_t bytes = 0;
    r = api->cuModuleGetGlobal(&global, &bytes, im.module, "gpuos_runtime_protocol");
    Status st = r || bytes != sizeof(uint32_t)
                    ? Status::error(ErrorCode::BadImage,
                                    "the image lacks gpuos_runtime_protocol")
                    : copyFromDevice(&im.protocol, global, sizeof(im.protocol));
    if (!st.ok()) {
      api->cuModuleUnload(im.module);
      return st;
    }
    protocol = im.protocol;
    images.push_front(std::move(im));
    staged = &images.front();
    return Status::success();
  }

  void commitImage() override {
    if (!staged)
      return;
    current = staged;
    staged = nullptr;
    evict();
  }

  void discardImage() override {
    staged = nullptr;
    evict();
  }

  void unloadImage() override {
    if (makeCurrent().ok())
      for (Image &im : images)
        api->cuModuleUnload(im.module);
    images.clear();
    current = staged = nullptr;
  }

  Status resetContext() override {
    // Everything in the context goes with it (modules, streams, memory);
    // the handles are dropped without unloading (the calls would only
    // report the sticky error again).
    images.clear();
    current = staged = nullptr;
    kernelStream = copyStream = nullptr;
    spareEvents.clear();
    before = nullptr;
    if (ownContext) {
      if (api->cuCtxDestroy)
        api->cuCtxDestroy(ctx);
      ctx = nullptr;
      CUresult r = api->cuCtxCreate(&ctx, 0, device);
      if (r && api->cuDevicePrimaryCtxReset) {
        // Some sticky errors outlive the context that took them; a device
        // reset (of the primary context) is the driver's last resort.
        api->cuDevicePrimaryCtxReset(device);
        r = api->cuCtxCreate(&ctx, 0, device);
      }
      GPUOS_RETURN_IF_ERROR(check(r, "cuCtxCreate (a new context after the error)"));
    } else {
      // The primary context is shared with everyone in the process; a
      // sticky error has already broken it for all of them.
      if (!api->cuDevicePrimaryCtxReset)
        return Status::error(ErrorCode::Unsupported,
                             "the driver lacks cuDevicePrimaryCtxReset_v2");
      api->cuDevicePrimaryCtxRelease(device);
      GPUOS_RETURN_IF_ERROR(
          check(api->cuDevicePrimaryCtxReset(device), "cuDevicePrimaryCtxReset"));
      GPUOS_RETURN_IF_ERROR(check(api->cuDevicePrimaryCtxRetain(&ctx, device),
                                  "cuDevicePrimaryCtxRetain"));
    }
    GPUOS_RETURN_IF_ERROR(makeCurrent());
    GPUOS_RETURN_IF_ERROR(check(api->cuStreamCreate(&kernelStream, cu::kStreamNonBlocking),
                                "cuStreamCreate"));
    return check(api->cuStreamCreate(&copyStream, cu::kStreamNonBlocking),
                 "cuStreamCreate");
  }

  Status blocksPerMultiprocessor(const LaunchShape &shape, int &blocks) override {
    GPUOS_RETURN_IF_ERROR(makeCurrent());
    if (!staged && !current)
      return Status::error(ErrorCode::BadImage, "no image is loaded");
    CUfunction fn = (staged ? staged : current)->resident;
    // Without an opt-in a block gets 48 KiB of shared memory in all, the
    // kernel's static __shared__ (the poller's and workers' state) included.
    int staticShared = 0;
    GPUOS_RETURN_IF_ERROR(check(
        api->cuFuncGetAttribute(&staticShared, cu::kFuncAttrSharedSizeBytes, fn),
        "cuFuncGetAttribute(static shared memory)"));
    if ((uint64_t)staticShared + shape.sharedBytes > 48 * 1024)
      GPUOS_RETURN_IF_ERROR(check(
          api->cuFuncSetAttribute(fn, cu::kFuncAttrMaxDynamicSharedBytes,
                                  (int)shape.sharedBytes),
          "cuFuncSetAttribute(max dynamic shared memory)"));
    return check(api->cuOccupancyMaxActiveBlocksPerMultiprocessor(
                     &blocks, fn, (int)shape.threads, shape.sharedBytes),
                 "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  }

  Status launchResident(uint64_t control, const LaunchShape &shape,
                        proto::LaunchTicket ticket) override {
    GPUOS_RETURN_IF_ERROR(makeCurrent());
    return launch(control, shape, ticket);
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

  Status checkStream(uint64_t stream) override {
    GPUOS_RETURN_IF_ERROR(makeCurrent());
    if (!api->hasStreamOrdering())
      return Status::error(ErrorCode::Unsupported,
                           "the driver lacks cuStreamWaitEvent or the event calls");
    CUcontext of = nullptr;
    GPUOS_RETURN_IF_ERROR(check(api->cuStreamGetCtx(reinterpret_cast<CUstream>(stream), &of),
                                "cuStreamGetCtx (the submission's stream)"));
    if (of != ctx)
      return Status::error(ErrorCode::InvalidArgument,
                           "the stream belongs to another CUDA context than the "
                           "runtime's (open the runtime on the primary context "
                           "of the stream's device)");
    // A run is submitted to the resident kernel when it is called, not
    // recorded: under capture, the launch and its events would become graph
    // nodes while the run's entry is already in the ring.
    int capture = cu::kStreamCaptureStatusNone;
    if (api->cuStreamIsCapturing)
      GPUOS_RETURN_IF_ERROR(
          check(api->cuStreamIsCapturing(reinterpret_cast<CUstream>(stream), &capture),
                "cuStreamIsCapturing (the submission's stream)"));
    if (capture != cu::kStreamCaptureStatusNone)
      return Status::error(ErrorCode::InvalidArgument,
                           "the stream is capturing a CUDA graph: a stream-ordered "
                           "submission runs on the resident kernel when it is made "
                           "and cannot be recorded into a graph (submit it outside "
                           "the capture)");
    return Status::success();
  }

  // The kernel's stream waits for an event of the caller's stream, the
  // launch follows, and the caller's stream waits for an event after it:
  // both waits are on work enqueued before them, so no order of hardware
  // queues can make them wait on each other. A wait takes the event's
  // state when it is enqueued, so `before` serves every call.
  Status launchResidentAfterStream(uint64_t control, const LaunchShape &shape,
                                   proto::LaunchTicket ticket, uint64_t streamHandle,
                                   uint64_t &event) override {
    GPUOS_RETURN_IF_ERROR(makeCurrent());
    CUstream stream = reinterpret_cast<CUstream>(streamHandle);
    if (!before)
      GPUOS_RETURN_IF_ERROR(
          check(api->cuEventCreate(&before, cu::kEventDisableTiming), "cuEventCreate"));
    CUevent after = nullptr;
    if (!spareEvents.empty()) {
      after = spareEvents.back();
      spareEvents.pop_back();
    } else {
      GPUOS_RETURN_IF_ERROR(
          check(api->cuEventCreate(&after, cu::kEventDisableTiming), "cuEventCreate"));
    }
    Status st = check(api->cuEventRecord(before, stream), "cuEventRecord (the caller's stream)");
    if (st.ok())
      st = check(api->cuStreamWaitEvent(kernelStream, before, 0),
                 "cuStreamWaitEvent (the kernel's stream)");
    if (!st.ok()) { // nothing enqueued that waits: the caller launches plainly
      spareEvents.push_back(after);
      return st;
    }
    // From here on the kernel's stream waits for the caller's: a failure
    // still launches, so that what is queued behind it runs.
    st = launch(control, shape, ticket);
    Status record = check(api->cuEventRecord(after, kernelStream), "cuEventRecord (the kernel's stream)");
    if (record.ok())
      record = check(api->cuStreamWaitEvent(stream, after, 0),
                     "cuStreamWaitEvent (the caller's stream)");
    if (!st.ok() || !record.ok()) {
      spareEvents.push_back(after);
      return st.ok() ? record : st;
    }
    event = reinterpret_cast<uint64_t>(after);
    return Status::success();
  }

  Status streamEventDone(uint64_t event, bool &done) override {
    GPUOS_RETURN_IF_ERROR(makeCurrent());
    CUresult r = api->cuEventQuery(reinterpret_cast<CUevent>(event));
    done = r == cu::kSuccess;
    if (done || r == cu::kErrorNotReady)
      return Status::success();
    return check(r, "cuEventQuery (a stream-ordered submission's stream)");
  }

  void releaseStreamEvent(uint64_t event) override {
    spareEvents.push_back(reinterpret_cast<CUevent>(event));
  }

private:
  const DriverApi *api = nullptr;
  BackendInfo info_;
  std::vector<CUevent> spareEvents; // recorded ones whose launch has ended
  CUevent before = nullptr; // recorded on a caller's stream before a launch
  CUdevice device = 0;
  CUcontext ctx = nullptr;
  bool ownContext = false;
  CUstream kernelStream = nullptr, copyStream = nullptr;
  struct Image {
    std::vector<char> bytes;
    CUmodule module = nullptr;
    CUfunction resident = nullptr;
    uint32_t protocol = 0;
  };
  static constexpr size_t kImageCache = 4;
  std::list<Image> images; // most recently loaded or used first
  Image *current = nullptr, *staged = nullptr;

  /// Unloads the least recently used images beyond kImageCache (never the
  /// current or staged one).
  void evict() {
    while (images.size() > kImageCache) {
      auto victim = std::prev(images.end());
      while (&*victim == current || &*victim == staged) {
        if (victim == images.begin())
          return;
        --victim;
      }
      if (makeCurrent().ok())
        api->cuModuleUnload(victim->module);
      images.erase(victim);
    }
  }

  /// The device address of mapped host memory; `release` undoes the
  /// mapping when there is none.
  Status mappedAddress(void *host, uint64_t &addr, CUresult (*release)(void *)) {
    CUdeviceptr p = 0;
    Status st = check(api->cuMemHostGetDevicePointer(&p, host, 0),
                      "cuMemHostGetDevicePointer");
    if (!st.ok()) {
      release(host);
      return st;
    }
    addr = p;
    return Status::success();
  }

  Status launch(uint64_t control, const LaunchShape &shape, proto::LaunchTicket ticket) {
    if (!current)
      return Status::error(ErrorCode::BadImage, "no image is loaded");
    CUdeviceptr arg = control;
    void *params[] = {&arg, &ticket};
    return check(api->cuLaunchKernel(current->resident, shape.blocks, 1, 1, shape.threads,
                                     1, 1, shape.sharedBytes, kernelStream, params, nullptr),
                 "cuLaunchKernel(gpuos_resident)");
  }

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
