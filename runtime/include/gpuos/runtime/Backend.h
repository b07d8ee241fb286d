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

#include "gpuos/runtime/Protocol.h"
#include "gpuos/runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gpuos::runtime {

struct BackendInfo {
  std::string name;
  int multiprocessors = 0;
  int computeMajor = 0, computeMinor = 0;
  bool simulated = false;
  /// The helper process the device's context lives in (openProcessBackend),
  /// 0 when it is in this process.
  int hostProcess = 0;
  /// The context is in a helper process: resetting it ends that process,
  /// so a fault the driver keeps for the whole process, and a tile that
  /// never ends, are survived.
  bool isolated() const { return hostProcess != 0; }
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
  /// Maps host memory that another process allocated (shared memory) for
  /// the device, as allocMapped does for its own: the device host
  /// (DeviceHost.h) serves a process backend's allocMapped with it.
  /// Backends that cannot (the default) say so.
  virtual Status registerMapped(void *, size_t, uint64_t &) {
    return Status::error(ErrorCode::Unsupported,
                         info().name + " cannot map another process's memory");
  }
  virtual void unregisterMapped(void *) {}
  virtual Status copyToDevice(uint64_t dst, const void *src, size_t bytes) = 0;
  virtual Status copyFromDevice(void *dst, uint64_t src, size_t bytes) = 0;

  /// Loads an image beside the current one (staged) and finds
  /// gpuos_resident; reports the protocol version the image's runtime
  /// library was built with. The current image stays until commitImage(),
  /// so a swap that fails half-way leaves the old image working.
  virtual Status loadImage(const std::vector<char> &cubin,
                           uint32_t &protocol) = 0;
  /// The staged image becomes current; the previous one is unloaded.
  virtual void commitImage() = 0;
  /// Unloads the staged image (the current one stays).
  virtual void discardImage() = 0;
  /// Unloads the current (and any staged) image.
  virtual void unloadImage() = 0;
  /// Worker blocks that fit next to each other per multiprocessor, for the
  /// staged image when there is one, else the current one.
  virtual Status blocksPerMultiprocessor(const LaunchShape &shape,
                                         int &blocks) = 0;
  /// After a sticky error (a fault, or a kernel that never exits): destroys
  /// the context with everything in it and creates a fresh one. Every
  /// device address from before is invalid afterwards.
  virtual Status resetContext() = 0;
  /// True, with why, when the context went away without the runtime asking:
  /// an isolated backend's device host that died or was ended inside a
  /// call that does not query the kernel (a copy, an allocation). The
  /// runtime recovers at its next call. (In-process contexts report
  /// failures through residentStatus.)
  virtual bool contextLost(std::string &) { return false; }
  /// The runtime gives up on a kernel that never exits and leaks this
  /// backend (tearing it down would wait for the kernel): detach what
  /// would otherwise wait for it.
  virtual void abandon() {}
  /// Launches gpuos_resident on the kernel's stream (after its earlier
  /// launches) with `ticket` (Protocol.h).
  virtual Status launchResident(uint64_t control, const LaunchShape &shape,
                                proto::LaunchTicket ticket) = 0;
  /// running: the kernel's stream has launches that have not finished
  /// (running or queued). An error means one faulted.
  virtual Status residentStatus(bool &running) = 0;
  /// Waits until every launch has finished.
  virtual Status waitResidentExit() = 0;

  /// Stream-ordered submissions (Runtime::submitOnStream). checkStream:
  /// `stream` is a stream of this backend's context, not capturing a graph.
  /// launchResidentAfterStream: as launchResident, but the launch starts
  /// only after the work enqueued on `stream` so far, and the work enqueued
  /// on `stream` later starts only after the launch ends; `event` tells
  /// when it has ended (streamEventDone). Backends that cannot (the
  /// default) say so.
  virtual Status checkStream(uint64_t) {
    return Status::error(ErrorCode::Unsupported,
                         info().name + " has no streams to order submissions on");
  }
  virtual Status launchResidentAfterStream(uint64_t, const LaunchShape &,
                                           proto::LaunchTicket, uint64_t,
                                           uint64_t &) {
    return Status::error(ErrorCode::Unsupported,
                         info().name + " has no streams to order submissions on");
  }
  /// done: that launch has ended.
  virtual Status streamEventDone(uint64_t, bool &done) {
    done = true;
    return Status::success();
  }
  /// The event is not needed any more (kept for reuse).
  virtual void releaseStreamEvent(uint64_t) {}
  /// Mapped memory a queued launch may still read after the runtime is
  /// closed (a stream-ordered submission whose stream had not reached it):
  /// never freed, also not by the backend's destructor.
  virtual void leakMapped(void *) {}
};

/// The GPU at `ordinal`, through the CUDA driver loaded with dlopen.
Status openCudaBackend(int ordinal, bool ownContext,
                       std::unique_ptr<Backend> &out);

/// A task kind of the simulator: runs one tile, returns 0 or an error code.
/// Throwing SimFault emulates an illegal-address fault: the "kernel" dies,
/// the backend reports a sticky error until resetContext(), which frees
/// all of its memory, as a real context teardown does.
using SimKernel = std::function<int(uint32_t kind, const unsigned char *args,
                                    uint32_t tile)>;
struct SimFault {};

/// `workers` worker threads and one poller thread, as a kernel launch.
/// `kernel` runs every image (the cubin's bytes are ignored).
std::unique_ptr<Backend> makeSimBackend(uint32_t workers, SimKernel kernel);
/// Several images: loadImage picks the kernel whose key equals the cubin's
/// bytes (an unknown key is a BadImage error), so image swaps that change
/// the dispatch table can be tested without a GPU. Trailing NUL bytes are
/// ignored; a key ending in "+slow" loads in 300 ms (a long module load).
std::unique_ptr<Backend>
makeSimBackend(uint32_t workers, std::map<std::string, SimKernel> images);

/// A CUDA stream for the simulator: a thread that runs what is enqueued on
/// it, one operation after another. handle() is what
/// Runtime::submitOnStream takes on a simulated runtime; the simulator
/// orders its kernel launches against it as the GPU backend does with
/// events on a CUstream (its own launches run on another SimStream).
class SimStream {
public:
  SimStream();
  ~SimStream(); // finishes what is queued
  SimStream(const SimStream &) = delete;
  SimStream &operator=(const SimStream &) = delete;
  void enqueue(std::function<void()> op);
  /// Returns once everything enqueued so far has run.
  void synchronize();
  /// Everything enqueued so far has run.
  bool idle() const;
  uint64_t handle() const { return reinterpret_cast<uint64_t>(this); }

private:
  struct State;
  std::unique_ptr<State> state_;
};

} // namespace gpuos::runtime

#endif // GPUOS_RUNTIME_BACKEND_H
