//===- Backend.h - the device under the runtime ---------------*- C++ -*-===//
//
// The runtime's host logic (rings, run slots, park/relaunch, validation)
// talks to the device through this interface. CudaBackend is the GPU
// (driver API through Driver.h); SimBackend runs the very same scheduler
// code (runtime/device/*.h) on CPU threads, with task kinds implemented in
// C++, so the whole protocol is tested where there is no GPU.
//
// Device addresses are uint64_t. Mapped host memory has a host pointer and
// a device address. copyTo/FromDevice must work while the resident kernel
// runs (an async copy on a separate non-blocking stream); freeDevice and
// loadImage are only called while it is not running.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_RUNTIME_BACKEND_H
#define GPUOS_RUNTIME_BACKEND_H

#include "gpuos/runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpuos::runtime {

struct BackendInfo {
  std::string name;
  int multiprocessors = 0;
  int computeMajor = 0, computeMinor = 0;
  bool simulated = false;
};

struct LaunchShape {
  uint32_t blocks = 0;  // 1 poller block + workers
  uint32_t threads = 0; // per block
  uint32_t sharedBytes = 0;
};

class Backend {
public:
  virtual ~Backend() = default;
  virtual const BackendInfo &info() const = 0;
  /// Binds the backend's context to the calling thread.
  virtual Status makeCurrent() = 0;

  virtual Status allocDevice(size_t bytes, uint64_t &addr) = 0;
  virtual Status freeDevice(uint64_t addr) = 0;
  virtual Status allocMapped(size_t bytes, void *&host, uint64_t &addr) = 0;
  virtual void freeMapped(void *host) = 0;
  virtual Status copyToDevice(uint64_t dst, const void *src, size_t bytes) = 0;
  virtual Status copyFromDevice(void *dst, uint64_t src, size_t bytes) = 0;

  /// Loads an image and finds gpuos_resident; reports the protocol version
  /// the image's runtime library was built with.
  virtual Status loadImage(const std::vector<char> &cubin,
                           uint32_t &protocol) = 0;
  virtual void unloadImage() = 0;
  /// Worker blocks that fit next to each other per multiprocessor.
  virtual Status blocksPerMultiprocessor(const LaunchShape &shape,
                                         int &blocks) = 0;
  virtual Status launchResident(uint64_t control, const LaunchShape &shape) = 0;
  /// running: the last launch has not finished. An error means it faulted.
  virtual Status residentStatus(bool &running) = 0;
  /// Waits until the last launch has finished.
  virtual Status waitResidentExit() = 0;
};

/// The GPU at `ordinal`, through the CUDA driver loaded with dlopen.
Status openCudaBackend(int ordinal, bool ownContext,
                       std::unique_ptr<Backend> &out);

/// A task kind of the simulator: runs one tile, returns 0 or an error code.
using SimKernel = std::function<int(uint32_t kind, const unsigned char *args,
                                    uint32_t tile)>;

/// `workers` worker threads and one poller thread, as a kernel launch.
std::unique_ptr<Backend> makeSimBackend(uint32_t workers, SimKernel kernel);

} // namespace gpuos::runtime

#endif // GPUOS_RUNTIME_BACKEND_H
