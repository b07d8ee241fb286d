//===- SimBackend.cpp - the resident kernel on CPU threads ----------------===//
//
// A "launch" starts one poller thread (block 0) and one thread per worker
// block, running runtime/device/Poller.h and Worker.h compiled for the host
// (Platform.h maps every PTX memory operation to the __atomic builtin of the
// same order). A block is one thread, a warp one lane. Device memory is host
// memory; a device address is the pointer's value. Task kinds are C++
// functions (SimKernel). The host runtime above cannot tell the difference,
// so its rings, handshakes, run slots and validation are all exercised in
// CI without a GPU.
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/Backend.h"

#include "Poller.h"
#include "Worker.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

namespace gpuos::runtime {

namespace {

using namespace gpuos::dev;

struct HostWarp {
  uint32_t lane() const { return 0; }
  uint32_t width() const { return 1; }
  uint32_t leadingTrue(bool v) const { return v ? 1u : 0u; }
  RingEntry shuffle(RingEntry e, uint32_t) const { return e; }
  uint32_t broadcast(uint32_t v) const { return v; }
  void sync() const {}
};

struct HostBlock {
  uint32_t tid() const { return 0; }
  void sync() const {}
};

class SimBackend final : public Backend {
public:
  SimBackend(uint32_t workers, SimKernel kernel) : kernel_(std::move(kernel)) {
    info_.name = "gpuos CPU simulator (" + std::to_string(workers) + " workers)";
    info_.multiprocessors = (int)workers;
    info_.simulated = true;
  }

  ~SimBackend() override {
    // A runtime parks before it lets go; if a test failed half-way, stop the
    // threads anyway (the poller exits when it sees stop).
    if (control_ && alive_.load())
      __atomic_store_n(&reinterpret_cast<DeviceControl *>(control_)->stop.value,
                       1u, __ATOMIC_RELEASE);
    for (int i = 0; i < 5000 && alive_.load(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (alive_.load()) {
      // Stuck threads (a test gone wrong): leave them and their memory.
      for (std::thread &t : threads_)
        t.detach();
      return;
    }
    joinAll();
    std::lock_guard<std::mutex> lock(mutex_);
    for (void *p : allocations_)
      std::free(p);
  }

  const BackendInfo &info() const override { return info_; }
  Status makeCurrent() override { return Status::success(); }

  Status allocDevice(size_t bytes, uint64_t &addr) override {
    size_t rounded = (bytes + 255) & ~size_t(255);
    void *p = std::aligned_alloc(256, rounded ? rounded : 256);
    if (!p)
      return Status::error(ErrorCode::OutOfMemory, "aligned_alloc failed");
    std::memset(p, 0, rounded);
    std::lock_guard<std::mutex> lock(mutex_);
    allocations_.insert(p);
    addr = reinterpret_cast<uint64_t>(p);
    return Status::success();
  }

  Status freeDevice(uint64_t addr) override {
    void *p = reinterpret_cast<void *>(addr);
    std::lock_guard<std::mutex> lock(mutex_);
    if (!allocations_.erase(p))
      return Status::error(ErrorCode::InvalidArgument, "freeDevice: unknown address");
    std::free(p);
    return Status::success();
  }

  Status allocMapped(size_t bytes, void *&host, uint64_t &addr) override {
    GPUOS_RETURN_IF_ERROR(allocDevice(bytes, addr));
    host = reinterpret_cast<void *>(addr);
    return Status::success();
  }
  void freeMapped(void *host) override {
    (void)freeDevice(reinterpret_cast<uint64_t>(host));
  }

  // Copies run while "the kernel" runs, as DMA does on the GPU: word by
  // word with relaxed atomics, so reading live counters (stats) is not a
  // data race; ordering with the kernel comes from the ring and completion
  // words, as on the GPU.
  Status copyToDevice(uint64_t dst, const void *src, size_t bytes) override {
    copyWords(reinterpret_cast<char *>(dst), static_cast<const char *>(src), bytes);
    return Status::success();
  }
  Status copyFromDevice(void *dst, uint64_t src, size_t bytes) override {
    copyWords(static_cast<char *>(dst), reinterpret_cast<const char *>(src), bytes);
    return Status::success();
  }

  static void copyWords(char *dst, const char *src, size_t bytes) {
    size_t i = 0;
    if (((uintptr_t)dst | (uintptr_t)src) % 8 == 0)
      for (; i + 8 <= bytes; i += 8)
        __atomic_store_n(reinterpret_cast<uint64_t *>(dst + i),
                         __atomic_load_n(reinterpret_cast<const uint64_t *>(src + i),
                                         __ATOMIC_RELAXED),
                         __ATOMIC_RELAXED);
    for (; i < bytes; ++i)
      __atomic_store_n(dst + i, __atomic_load_n(src + i, __ATOMIC_RELAXED),
                       __ATOMIC_RELAXED);
  }

  Status loadImage(const std::vector<char> &, uint32_t &protocol) override {
    protocol = kProtocolVersion;
    return Status::success();
  }
  void unloadImage() override {}

  Status blocksPerMultiprocessor(const LaunchShape &, int &blocks) override {
    blocks = 2; // a worker per "SM", and room for the poller
    return Status::success();
  }

  Status launchResident(uint64_t control, const LaunchShape &shape) override {
    joinAll(); // stream order: the previous launch finishes first
    control_ = control;
    auto *c = reinterpret_cast<DeviceControl *>(control);
    alive_.store(shape.blocks);
    threads_.emplace_back([this, c] {
      PollerShared shared;
      pollerMain(c, HostWarp{}, HostBlock{}, shared,
                 [this](uint32_t kind, const unsigned char *args,
                        uint32_t tile) { return kernel_(kind, args, tile); });
      alive_.fetch_sub(1);
    });
    for (uint32_t b = 1; b < shape.blocks; ++b)
      threads_.emplace_back([this, c, b] {
        WorkerShared shared;
        workerMain(c, b, shared, HostBlock{},
                   [this](uint32_t kind, const unsigned char *args,
                          uint32_t tile) { return kernel_(kind, args, tile); });
        alive_.fetch_sub(1);
      });
    return Status::success();
  }

  Status residentStatus(bool &running) override {
    running = alive_.load() != 0;
    return Status::success();
  }

  Status waitResidentExit() override {
    joinAll();
    return Status::success();
  }

private:
  BackendInfo info_;
  SimKernel kernel_;
  std::mutex mutex_;
  std::set<void *> allocations_;
  std::vector<std::thread> threads_;
  std::atomic<uint32_t> alive_{0};
  uint64_t control_ = 0;

  void joinAll() {
    for (std::thread &t : threads_)
      t.join();
    threads_.clear();
  }
};

} // namespace

std::unique_ptr<Backend> makeSimBackend(uint32_t workers, SimKernel kernel) {
  return std::make_unique<SimBackend>(workers ? workers : 1, std::move(kernel));
}

} // namespace gpuos::runtime
