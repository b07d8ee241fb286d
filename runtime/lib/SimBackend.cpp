//===- SimBackend.cpp - the resident kernel on CPU threads ----------------===//
//
// A "launch" starts one poller thread (block 0) and one thread per worker
// block, running runtime/device/Poller.h and Worker.h compiled for the host
// (Platform.h maps every PTX memory operation to the __atomic builtin of the
// same order). A block is one thread, a warp one lane. Device memory is host
// memory; a device address is the pointer's value. Task kinds are C++
// functions (SimKernel). The host runtime above cannot tell the difference,
// so its rings, handshakes, run slots and validation are all exercised in
// CI without a GPU. Launches are operations of the kernel's SimStream (one
// runs its grid to the end), so they queue as on the GPU, also behind a
// caller's stream (launchResidentAfterStream).
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/Backend.h"

#include "Poller.h"
#include "Worker.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <cstdlib>
#include <cstring>
#include <map>
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
  uint32_t firstTrue(bool v) const { return v ? 0u : 1u; }
  uint32_t exclusiveSum(uint32_t) const { return 0; }
  uint32_t fromLane(uint32_t, uint32_t v) const { return v; }
  RingEntry shuffle(RingEntry e, uint32_t) const { return e; }
  uint32_t broadcast(uint32_t v) const { return v; }
  bool all(bool v) const { return v; }
  void sync() const {}
};

struct HostBlock {
  uint32_t tid() const { return 0; }
  void sync() const {}
};

class SimBackend final : public Backend {
public:
  SimBackend(uint32_t workers, std::map<std::string, SimKernel> images,
             bool anyImage)
      : images_(std::move(images)), anyImage_(anyImage) {
    info_.name = "gpuos CPU simulator (" + std::to_string(workers) + " workers)";
    info_.multiprocessors = (int)workers;
    info_.simulated = true;
  }

  ~SimBackend() override {
    // A runtime parks before it lets go; if a test failed half-way, stop the
    // threads anyway (the poller exits when it sees stop; queued launches
    // see killed_ and do nothing).
    if (!kernelStream_)
      return; // abandoned
    if (!stopAll(5000)) {
      // Stuck threads (a test gone wrong): leave them and their memory.
      (void)kernelStream_.release();
      return;
    }
    kernelStream_.reset();
    dropEvents();
    std::lock_guard<std::mutex> lock(mutex_);
    for (void *p : allocations_)
      std::free(p);
  }

  const BackendInfo &info() const override { return info_; }
  Status makeCurrent() override { return Status::success(); }

  Status allocDevice(size_t bytes, uint64_t &addr) override {
    if (bytes > SIZE_MAX - 255) // as cuMemAlloc answers
      return Status::error(ErrorCode::OutOfMemory,
                           "cannot allocate " + std::to_string(bytes) + " bytes");
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
    if (addr == control_)
      control_ = 0; // the destructor's stopAll must not write it any more
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
  // The simulator's device addresses are its process's pointers.
  Status registerMapped(void *host, size_t, uint64_t &addr) override {
    addr = reinterpret_cast<uint64_t>(host);
    return Status::success();
  }
  void unregisterMapped(void *) override {}

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

  Status loadImage(const std::vector<char> &cubin, uint32_t &protocol) override {
    std::string key(cubin.begin(), cubin.end());
    while (!key.empty() && key.back() == '\0')
      key.pop_back(); // padding, as a cubin loader ignores bytes after the ELF
    const std::string slow = "+slow";
    if (key.size() > slow.size() &&
        key.compare(key.size() - slow.size(), slow.size(), slow) == 0) {
      // A stand-in for a long cuModuleLoadData: tests use the window.
      key.resize(key.size() - slow.size());
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    auto it = anyImage_ ? images_.begin() : images_.find(key);
    if (it == images_.end())
      return Status::error(ErrorCode::BadImage,
                           "the simulator has no image '" + key + "'");
    staged_ = it->second;
    hasStaged_ = true;
    protocol = kProtocolVersion;
    return Status::success();
  }
  void commitImage() override {
    if (hasStaged_)
      kernel_ = std::move(staged_);
    hasStaged_ = false;
  }
  void discardImage() override { hasStaged_ = false; }
  void unloadImage() override { hasStaged_ = false; }

  /// Emulates a context teardown: the "kernel" is killed (threads leave at
  /// their next dispatch, as a destroyed context stops every block), then
  /// all memory is freed, so a runtime that used a stale address after a
  /// reset would crash here as it would fault on the GPU.
  Status resetContext() override {
    if (!stopAll(30000))
      return Status::error(ErrorCode::Faulted,
                           "simulated context reset: threads did not stop");
    std::lock_guard<std::mutex> lock(mutex_);
    for (void *p : allocations_)
      std::free(p);
    allocations_.clear();
    dropEvents(); // the runtime forgets the launches' events with the context
    control_ = 0;
    faulted_.store(false);
    killed_.store(false);
    return Status::success();
  }

  Status blocksPerMultiprocessor(const LaunchShape &, int &blocks) override {
    blocks = 2; // a worker per "SM", and room for the poller
    return Status::success();
  }

  Status launchResident(uint64_t control, const LaunchShape &shape,
                        LaunchTicket ticket) override {
    if (faulted_.load())
      return Status::error(ErrorCode::Cuda, kFaultMessage);
    control_ = control;
    kernelStream_->enqueue([=] { runGrid(control, shape, ticket); });
    return Status::success();
  }

  Status residentStatus(bool &running) override {
    running = !kernelStream_->idle();
    if (faulted_.load())
      return Status::error(ErrorCode::Cuda, kFaultMessage);
    return Status::success();
  }

  void abandon() override {
    (void)kernelStream_.release(); // its grid finishes on its own; leaked
  }

  Status waitResidentExit() override {
    kernelStream_->synchronize();
    if (faulted_.load())
      return Status::error(ErrorCode::Cuda, kFaultMessage);
    return Status::success();
  }

  // Stream-ordered submissions: the handle is a SimStream. The caller's
  // stream raises `reached`, the kernel's stream waits for it before the
  // grid, then raises `ended`, which the caller's stream waits for (the
  // event).
  Status checkStream(uint64_t stream) override {
    if (!stream)
      return Status::error(ErrorCode::InvalidArgument,
                           "the simulator has no default stream: pass a SimStream");
    return Status::success();
  }

  Status launchResidentAfterStream(uint64_t control, const LaunchShape &shape,
                                   LaunchTicket ticket, uint64_t streamHandle,
                                   uint64_t &event) override {
    if (faulted_.load())
      return Status::error(ErrorCode::Cuda, kFaultMessage);
    auto *stream = reinterpret_cast<SimStream *>(streamHandle);
    auto reached = std::make_shared<std::atomic<bool>>(false);
    auto ended = std::make_shared<std::atomic<bool>>(false);
    control_ = control;
    stream->enqueue([reached] { reached->store(true, std::memory_order_release); });
    kernelStream_->enqueue([=] {
      while (!reached->load(std::memory_order_acquire) && !killed_.load())
        std::this_thread::yield();
      runGrid(control, shape, ticket);
      ended->store(true, std::memory_order_release);
    });
    stream->enqueue([ended] {
      while (!ended->load(std::memory_order_acquire))
        std::this_thread::yield();
    });
    event = ++lastEvent_;
    events_.emplace(event, std::move(ended));
    return Status::success();
  }

  Status streamEventDone(uint64_t event, bool &done) override {
    auto it = events_.find(event);
    done = it == events_.end() || it->second->load(std::memory_order_acquire);
    return Status::success();
  }

  void releaseStreamEvent(uint64_t event) override { events_.erase(event); }

  void leakMapped(void *host) override { allocations_.erase(host); }

private:
  static constexpr const char *kFaultMessage =
      "simulated illegal address (a task threw SimFault)";
  BackendInfo info_;
  std::map<std::string, SimKernel> images_;
  bool anyImage_;
  SimKernel kernel_, staged_;
  bool hasStaged_ = false;
  std::atomic<bool> faulted_{false}, killed_{false};
  std::mutex mutex_;
  std::set<void *> allocations_;
  std::unique_ptr<SimStream> kernelStream_ = std::make_unique<SimStream>();
  // The last launch's; freeDevice clears it (under mutex_) while a
  // destructor or launch may read or set it.
  std::atomic<uint64_t> control_{0};
  /// A launch's end, raised by the kernel's stream: the events handed to
  /// the runtime and not released, by handle (host threads only).
  using Event = std::shared_ptr<std::atomic<bool>>;
  std::map<uint64_t, Event> events_;
  uint64_t lastEvent_ = 0;

  void dropEvents() { events_.clear(); }

  /// One launch, on the kernel's stream: the grid's threads, run to the end.
  void runGrid(uint64_t control, const LaunchShape &shape, LaunchTicket ticket) {
    if (killed_.load() || faulted_.load())
      return; // a launch after a fault fails, as on the GPU
    auto *c = reinterpret_cast<DeviceControl *>(control);
    auto dispatch = [this](uint32_t kind, const unsigned char *args,
                           uint32_t tile) {
      if (killed_.load() || faulted_.load())
        throw SimFault{}; // the context is gone: the block dies
      int rc = kernel_(kind, args, tile);
      if (killed_.load())
        throw SimFault{};
      return rc;
    };
    // A SimFault ends the thread where it is, like a fault ends the grid;
    // the others are told to stop (they would die with the context).
    auto guard = [this, c](auto body) {
      try {
        body();
      } catch (const SimFault &) {
        faulted_.store(true);
        __atomic_store_n(&c->stop.value, 1u, __ATOMIC_RELEASE);
      }
    };
    std::vector<std::thread> grid;
    grid.emplace_back([=] {
      guard([&] {
        PollerShared shared{};
        pollerMain(c, ticket, HostWarp{}, HostBlock{}, shared, dispatch);
      });
    });
    for (uint32_t b = 1; b < shape.blocks; ++b)
      grid.emplace_back([=] {
        guard([&] {
          WorkerShared shared{};
          workerMain(c, b, shared, HostWarp{}, HostBlock{}, dispatch);
        });
      });
    for (std::thread &t : grid)
      t.join();
  }

  /// Kills the running grid and empties the kernel's stream (queued
  /// launches do nothing), as a context teardown does; false if that takes
  /// longer than `ms`.
  bool stopAll(int ms) {
    killed_.store(true);
    if (uint64_t control = control_.load())
      __atomic_store_n(&reinterpret_cast<DeviceControl *>(control)->stop.value,
                       1u, __ATOMIC_RELEASE);
    for (int i = 0; i < ms && !kernelStream_->idle(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (!kernelStream_->idle())
      return false;
    killed_.store(false);
    return true;
  }
};

} // namespace

struct SimStream::State {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::function<void()>> ops;
  uint64_t enqueued = 0, finished = 0;
  bool closing = false;
  std::thread thread;
};

SimStream::SimStream() : state_(std::make_unique<State>()) {
  State *st = state_.get();
  st->thread = std::thread([st] {
    std::unique_lock<std::mutex> lock(st->mutex);
    for (;;) {
      st->changed.wait(lock, [st] { return st->closing || !st->ops.empty(); });
      if (st->ops.empty())
        return;
      std::function<void()> op = std::move(st->ops.front());
      st->ops.pop_front();
      lock.unlock();
      op();
      lock.lock();
      ++st->finished;
      st->changed.notify_all();
    }
  });
}

SimStream::~SimStream() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->closing = true;
  }
  state_->changed.notify_all();
  state_->thread.join();
}

void SimStream::enqueue(std::function<void()> op) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->ops.push_back(std::move(op));
  ++state_->enqueued;
  state_->changed.notify_all();
}

bool SimStream::idle() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->finished >= state_->enqueued;
}

void SimStream::synchronize() {
  std::unique_lock<std::mutex> lock(state_->mutex);
  uint64_t target = state_->enqueued;
  state_->changed.wait(lock, [&] { return state_->finished >= target; });
}

std::unique_ptr<Backend> makeSimBackend(uint32_t workers, SimKernel kernel) {
  std::map<std::string, SimKernel> images{{"", std::move(kernel)}};
  return std::make_unique<SimBackend>(workers ? workers : 1, std::move(images),
                                      true);
}

std::unique_ptr<Backend>
makeSimBackend(uint32_t workers, std::map<std::string, SimKernel> images) {
  return std::make_unique<SimBackend>(workers ? workers : 1, std::move(images),
                                      false);
}

} // namespace gpuos::runtime
