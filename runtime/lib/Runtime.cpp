//===- Runtime.cpp - the host half of the resident-kernel protocol --------===//
//
// Protocol.h describes the shared memory; runtime/device/ the kernel. This
// file owns the host side:
//
//  * submit: pick a free run slot of the graph, write a 16-byte ring entry
//    into pinned host memory (fields, then seq), then the park handshake
//    (mfence; read parkPhase; relaunch if the kernel parked);
//  * wait/poll: read the run slot's completion word (written by the device
//    with st.release.sys), never any device call on the fast path;
//  * safe points: park() drains and waits for the kernel to exit; frees and
//    image loads happen only then.
//
//===----------------------------------------------------------------------===//

#include "gpuos/runtime/Runtime.h"
#include "gpuos/runtime/Arena.h"
#include "gpuos/runtime/Protocol.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace gpuos::runtime {

using namespace proto;

const char *errorCodeName(ErrorCode code) {
  switch (code) {
  case ErrorCode::Ok: return "ok";
  case ErrorCode::InvalidArgument: return "invalid argument";
  case ErrorCode::NoGpu: return "no GPU";
  case ErrorCode::Cuda: return "CUDA error";
  case ErrorCode::Closed: return "closed";
  case ErrorCode::Timeout: return "timeout";
  case ErrorCode::NotReady: return "not ready";
  case ErrorCode::TaskFailed: return "task failed";
  case ErrorCode::Faulted: return "faulted";
  case ErrorCode::BadImage: return "bad image";
  case ErrorCode::OutOfMemory: return "out of memory";
  case ErrorCode::Unsupported: return "unsupported";
  }
  return "unknown error";
}

std::string Status::toString() const {
  if (ok())
    return "";
  return std::string(errorCodeName(code_)) + ": " + message_;
}

Status readFile(const std::string &path, std::vector<char> &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error(ErrorCode::InvalidArgument, "cannot read " + path);
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return Status::success();
}

namespace {

using Clock = std::chrono::steady_clock;

void cpuPause() {
#if defined(__x86_64__)
  _mm_pause();
#endif
}

uint32_t loadAcquire(const uint32_t *p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
uint64_t loadAcquire(const uint64_t *p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

bool isPowerOfTwo(uint64_t v) { return v && !(v & (v - 1)); }

Status invalid(std::string message) {
  return Status::error(ErrorCode::InvalidArgument, std::move(message));
}

} // namespace

//===----------------------------------------------------------------------===//
// State
//===----------------------------------------------------------------------===//

struct GraphRecord {
  GraphLayout layout;
  uint64_t blobDev = 0;
  Priority priority = Priority::Normal;
  std::vector<uint32_t> runSlots;
  std::vector<uint64_t> ownedBuffers; // intermediates of manifest graphs
};

struct RunSlot {
  uint32_t graph = 0;
  uint64_t countersDev = 0;
  uint64_t rootsDev = 0;
  uint16_t epoch = 0; // last epoch used (kept across reuse of the index)
  bool busy = false;
  bool inUse = false;
  uint64_t serial = 0;
  uint32_t queue = 0;
  uint64_t tiles = 0;
  uint32_t numTasks = 0;
};

struct Runtime::Impl {
  std::unique_ptr<Backend> backend;
  RuntimeOptions options;
  mutable std::mutex mutex;
  bool closed = false;
  Status fault; // set once the kernel faulted

  // Pinned host memory, mapped: ring | HostShared | completion words.
  void *mappedHost = nullptr;
  uint64_t mappedDev = 0;
  RingEntry *ring = nullptr;
  HostShared *hs = nullptr;
  uint32_t *completion = nullptr;
  uint64_t ringDev = 0, hsDev = 0, completionDev = 0;

  // Device memory.
  uint64_t ctlDev = 0, runTableDev = 0, queueDev[kNumQueues] = {};
  uint64_t blockTilesDev = 0, arenaDev = 0;
  Arena arena;

  // Image and launch shape.
  bool imageLoaded = false;
  ImageManifest manifest;
  LaunchShape shape;
  uint32_t workers = 0;

  // Kernel and ring.
  bool launched = false;
  uint64_t ringTail = 0;

  // Graphs, run slots, submissions.
  std::map<GraphId, GraphRecord> graphs;
  GraphId nextGraph = 1;
  std::vector<RunSlot> runs;
  std::vector<uint32_t> freeRuns;
  std::vector<uint32_t> busyRuns;
  uint64_t nextSerial = 1;
  uint64_t inFlightTiles[kNumPriorities] = {};
  std::unordered_map<uint64_t, std::string> failures; // serial -> message
  std::deque<uint64_t> failureOrder;

  // Buffers.
  std::map<uint64_t, uint64_t> allocations; // base -> bytes
  std::vector<uint64_t> pendingFrees;

  // Statistics.
  uint64_t submissions = 0, completed = 0, failed = 0, tasksRun = 0;
  uint64_t launches = 0, parkRequests = 0;
  uint64_t queued[kNumPriorities] = {};

  ~Impl() { shutdown(); }

  //===--------------------------------------------------------------------===//
  // Helpers
  //===--------------------------------------------------------------------===//

  Status usable() const {
    if (closed)
      return Status::error(ErrorCode::Closed, "the runtime is closed");
    if (!fault.ok())
      return fault;
    return Status::success();
  }

  Status needImage() const {
    GPUOS_RETURN_IF_ERROR(usable());
    if (!imageLoaded)
      return invalid("no image is loaded");
    return Status::success();
  }

  uint64_t maxTilesInFlight() const { return options.queueCapacity / 2; }

  uint64_t capacityAt(uint64_t ptr) const {
    auto it = allocations.upper_bound(ptr);
    if (it == allocations.begin())
      return 0;
    --it;
    if (ptr < it->first + it->second)
      return it->first + it->second - ptr;
    return 0;
  }

  /// The kernel faulted (or another sticky error): remember it.
  Status checkResident() {
    if (!fault.ok())
      return fault;
    bool running = false;
    Status st = backend->residentStatus(running);
    if (!st.ok()) {
      fault = Status::error(ErrorCode::Faulted,
                            "the resident kernel failed: " + st.message());
      return fault;
    }
    if (!running && launched && loadAcquire(&hs->parkPhase) != kPhaseParked) {
      fault = Status::error(ErrorCode::Faulted,
                            "the resident kernel exited without parking");
      return fault;
    }
    return Status::success();
  }

  //===--------------------------------------------------------------------===//
  // Ring and park handshake
  //===--------------------------------------------------------------------===//

  /// Writes ring position ringTail (waiting for space) and advances it.
  Status postEntry(uint32_t run, uint32_t epoch, uint32_t op, uint32_t queue) {
    auto start = Clock::now();
    for (uint32_t spins = 0;
         ringTail - loadAcquire(&hs->ringHead) >= options.ringCapacity;
         ++spins) {
      // Full: the poller consumes entries whenever the kernel runs.
      if (!launched || loadAcquire(&hs->parkPhase) == kPhaseParked)
        break; // it will read them after the relaunch below
      if ((spins & 1023) == 1023) {
        GPUOS_RETURN_IF_ERROR(checkResident());
        if (Clock::now() - start > std::chrono::seconds(60))
          return Status::error(ErrorCode::Timeout,
                               "the submission ring stayed full for 60 s");
      }
      cpuPause();
    }
    RingEntry e = makeRingEntry((uint32_t)(ringTail + 1), run, epoch, op, queue);
    RingEntry *slot = ring + (ringTail & (options.ringCapacity - 1));
    // Fields first, seq last: x86 makes stores visible in program order, and
    // the poller reads the 16 bytes at once (the check byte covers tearing).
    __atomic_store_n(&slot->run, e.run, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->epoch, e.epoch, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->ctl, e.ctl, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->seq, e.seq, __ATOMIC_RELEASE);
    ++ringTail;
    return ensureRunning();
  }

  /// The host half of the park handshake (Park.h): after our ring store, a
  /// full fence, then read the phase. RUNNING: the poller will see the
  /// entry. PARKING: wait for the poller's decision. PARKED (or never
  /// launched): the kernel will not see it; launch it.
  Status ensureRunning() {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (!launched)
      return relaunch();
    uint32_t phase = loadAcquire(&hs->parkPhase);
    for (uint32_t spins = 0; phase == kPhaseParking; ++spins) {
      cpuPause();
      phase = loadAcquire(&hs->parkPhase);
      if ((spins & 4095) == 4095)
        GPUOS_RETURN_IF_ERROR(checkResident());
    }
    if (phase == kPhaseParked)
      return relaunch();
    return Status::success();
  }

  Status relaunch() {
    if (launched && !pendingFrees.empty()) {
      GPUOS_RETURN_IF_ERROR(waitExit());
      safePoint();
    }
    __atomic_store_n(&hs->parkPhase, kPhaseRunning, __ATOMIC_RELEASE);
    Status st = backend->launchResident(ctlDev, shape);
    if (!st.ok()) {
      fault = Status::error(ErrorCode::Faulted,
                            "launching the resident kernel failed: " +
                                st.message());
      return fault;
    }
    launched = true;
    ++launches;
    return Status::success();
  }

  Status waitExit() {
    Status st = backend->waitResidentExit();
    if (!st.ok()) {
      fault = Status::error(ErrorCode::Faulted,
                            "the resident kernel failed: " + st.message());
      return fault;
    }
    return Status::success();
  }

  /// The kernel has exited: deferred frees are safe now.
  void safePoint() {
    arena.reclaim();
    for (uint64_t p : pendingFrees)
      (void)backend->freeDevice(p);
    pendingFrees.clear();
  }

  /// Drains and parks; returns once the kernel has exited. Timeout (and
  /// the kernel still resident) if it does not park within `timeoutUs`.
  Status parkLocked(int64_t timeoutUs = 60'000'000) {
    if (!launched)
      return Status::success();
    auto start = Clock::now();
    auto late = [&] {
      return Clock::now() - start > std::chrono::microseconds(timeoutUs);
    };
    uint32_t phase = loadAcquire(&hs->parkPhase);
    while (phase == kPhaseParking) {
      cpuPause();
      phase = loadAcquire(&hs->parkPhase);
    }
    if (phase != kPhaseParked) {
      ++parkRequests;
      GPUOS_RETURN_IF_ERROR(postEntry(0, 0, kRingOpPark, 0));
      for (uint32_t spins = 0; loadAcquire(&hs->parkPhase) != kPhaseParked;
           ++spins) {
        if ((spins & 4095) == 4095) {
          GPUOS_RETURN_IF_ERROR(checkResident());
          if (late())
            return Status::error(ErrorCode::Timeout,
                                 "the resident kernel did not park within " +
                                     std::to_string(timeoutUs / 1000) + " ms");
          std::this_thread::yield();
        }
        cpuPause();
      }
    }
    GPUOS_RETURN_IF_ERROR(waitExit());
    launched = false;
    safePoint();
    return Status::success();
  }

  /// Last resort when parking fails: raise the stop flag in device memory
  /// (the poller and the workers exit when they see it). True when the
  /// kernel is gone within `timeoutUs`.
  bool forceStop(int64_t timeoutUs) {
    uint32_t one = 1;
    if (!backend->copyToDevice(ctlDev + offsetof(DeviceControl, stop), &one,
                               sizeof(one))
             .ok())
      return false;
    auto start = Clock::now();
    for (;;) {
      bool running = true;
      if (!backend->residentStatus(running).ok())
        return false;
      if (!running)
        return true;
      if (Clock::now() - start > std::chrono::microseconds(timeoutUs))
        return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  //===--------------------------------------------------------------------===//
  // Completion
  //===--------------------------------------------------------------------===//

  static uint64_t submissionId(uint64_t serial, uint32_t run) {
    return serial << 24 | run;
  }

  bool completedWord(uint32_t run, uint16_t epoch, uint32_t &status) const {
    uint32_t c = loadAcquire(completion + run);
    if ((c & 0xFFFFu) != epoch || (c >> 16) == 0)
      return false;
    status = c >> 16;
    return true;
  }

  /// Marks run slot `index` complete if its completion word says so.
  bool reap(uint32_t index) {
    RunSlot &rs = runs[index];
    uint32_t status = 0;
    if (!rs.busy || !completedWord(index, rs.epoch, status))
      return false;
    rs.busy = false;
    busyRuns.erase(std::find(busyRuns.begin(), busyRuns.end(), index));
    inFlightTiles[rs.queue] -= rs.tiles;
    ++completed;
    tasksRun += rs.numTasks;
    if (status == kStatusFailed) {
      ++failed;
      ErrorRecord e{};
      (void)backend->copyFromDevice(&e, rs.countersDev + offsetof(RunCounters, error),
                                    sizeof(e));
      std::string kind = e.kind < manifest.tasks.size()
                             ? manifest.tasks[e.kind].kind
                             : std::to_string(e.kind);
      std::string message =
          "a task of the graph failed: task " +
          std::to_string(e.task) + " ('" + kind + "'), tile " +
          std::to_string(e.tile) + ", gpuos_dispatch returned " +
          std::to_string(e.code);
      failures[rs.serial] = message;
      failureOrder.push_back(rs.serial);
      if (failureOrder.size() > 4096) {
        failures.erase(failureOrder.front());
        failureOrder.pop_front();
      }
    }
    return true;
  }

  void reapAll() {
    for (size_t i = busyRuns.size(); i-- > 0;)
      if (i < busyRuns.size())
        reap(busyRuns[i]);
  }

  Status finishedStatus(uint64_t serial) const {
    auto it = failures.find(serial);
    if (it != failures.end())
      return Status::error(ErrorCode::TaskFailed, it->second);
    return Status::success();
  }

  /// Decodes a submission. done: finished (then `result` is its status).
  Status lookup(Submission s, uint32_t &index, uint16_t &epoch, bool &done,
                Status &result) {
    uint64_t serial = s.id >> 24;
    index = (uint32_t)(s.id & 0xFFFFFFu);
    if (serial == 0 || serial >= nextSerial || index >= runs.size())
      return invalid("unknown submission " + std::to_string(s.id));
    RunSlot &rs = runs[index];
    if (rs.serial != serial || !rs.busy || reap(index)) {
      // The slot moved on (or just completed): this submission finished.
      if (rs.serial < serial)
        return invalid("unknown submission " + std::to_string(s.id));
      done = true;
      result = finishedStatus(serial);
      return Status::success();
    }
    done = false;
    epoch = rs.epoch;
    return Status::success();
  }

  //===--------------------------------------------------------------------===//
  // Memory
  //===--------------------------------------------------------------------===//

  /// Arena allocation; when full but frees are pending, park and reclaim.
  Status arenaAlloc(uint64_t bytes, uint64_t &addr) {
    if (arena.allocate(bytes, addr))
      return Status::success();
    if (arena.pendingBytes()) {
      GPUOS_RETURN_IF_ERROR(parkLocked());
      if (arena.allocate(bytes, addr))
        return Status::success();
    }
    return Status::error(ErrorCode::OutOfMemory,
                         "the graph arena is full (" +
                             std::to_string(arena.capacity()) +
                             " bytes); raise RuntimeOptions::arenaBytes or "
                             "destroy graphs");
  }

  Status upload(uint64_t dst, const void *src, size_t bytes) {
    Status st = backend->copyToDevice(dst, src, bytes);
    if (!st.ok())
      return Status::error(ErrorCode::Cuda, "upload: " + st.message());
    return Status::success();
  }

  Status createRunSlot(GraphId id, GraphRecord &g, uint32_t &index) {
    if (!freeRuns.empty()) {
      index = freeRuns.back();
      freeRuns.pop_back();
    } else if (runs.size() < options.maxRuns) {
      index = (uint32_t)runs.size();
      runs.emplace_back();
    } else {
      return Status::error(ErrorCode::OutOfMemory,
                           "all " + std::to_string(options.maxRuns) +
                               " run slots are in use (raise "
                               "RuntimeOptions::maxRuns)");
    }
    RunSlot &rs = runs[index];
    auto giveBack = [&] {
      rs.inUse = false;
      freeRuns.push_back(index);
    };
    const GraphLayout &L = g.layout;
    std::vector<uint8_t> counters = L.runCounters();
    Status st = arenaAlloc(counters.size(), rs.countersDev);
    if (!st.ok()) {
      giveBack();
      return st;
    }
    std::vector<QueueEntry> roots = L.rootEntries(g.blobDev, index, rs.countersDev);
    rs.rootsDev = 0;
    if (roots.size() > 1) {
      st = arenaAlloc(roots.size() * sizeof(QueueEntry), rs.rootsDev);
      if (!st.ok()) {
        arena.release(rs.countersDev);
        giveBack();
        return st;
      }
    }
    RunRow row{};
    row.rootEntries = rs.rootsDev;
    row.numRootEntries = (uint32_t)roots.size();
    row.numTasks = L.numTasks();
    row.first = roots.front();
    st = upload(rs.countersDev, counters.data(), counters.size());
    if (st.ok() && rs.rootsDev)
      st = upload(rs.rootsDev, roots.data(), roots.size() * sizeof(QueueEntry));
    if (st.ok())
      st = upload(runTableDev + (uint64_t)index * sizeof(RunRow), &row, sizeof(row));
    if (!st.ok())
      return st;
    rs.graph = id;
    rs.inUse = true;
    rs.busy = false;
    rs.numTasks = L.numTasks();
    g.runSlots.push_back(index);
    return Status::success();
  }

  void releaseGraph(GraphRecord &g) {
    arena.release(g.blobDev);
    for (uint32_t index : g.runSlots) {
      RunSlot &rs = runs[index];
      arena.release(rs.countersDev);
      if (rs.rootsDev)
        arena.release(rs.rootsDev);
      rs.inUse = false;
      freeRuns.push_back(index);
    }
    for (uint64_t p : g.ownedBuffers) {
      allocations.erase(p);
      pendingFrees.push_back(p);
    }
    g.runSlots.clear();
    g.ownedBuffers.clear();
  }

  //===--------------------------------------------------------------------===//
  // Setup and teardown
  //===--------------------------------------------------------------------===//

  Status setup() {
    const RuntimeOptions &o = options;
    if (!isPowerOfTwo(o.ringCapacity) || o.ringCapacity < 32 ||
        o.ringCapacity > (1u << 24))
      return invalid("ringCapacity must be a power of two in [32, 2^24]");
    if (!isPowerOfTwo(o.queueCapacity) || o.queueCapacity < 64 ||
        o.queueCapacity > (1u << 26))
      return invalid("queueCapacity must be a power of two in [64, 2^26]");
    if (o.maxRuns < 1 || o.maxRuns > (1u << 24))
      return invalid("maxRuns must be in [1, 2^24]");
    if (o.workersPerSM < 1 || o.workersPerSM > 32)
      return invalid("workersPerSM must be in [1, 32]");
    if (o.blockThreads && (o.blockThreads % 32 || o.blockThreads > 1024))
      return invalid("blockThreads must be 0 or a multiple of 32 up to 1024");
    if (o.arenaBytes < (1u << 16))
      return invalid("arenaBytes must be at least 64 KiB");
    GPUOS_RETURN_IF_ERROR(backend->makeCurrent());

    size_t ringBytes = (size_t)o.ringCapacity * sizeof(RingEntry);
    size_t hsOffset = (ringBytes + 127) & ~size_t(127);
    size_t completionOffset = (hsOffset + sizeof(HostShared) + 127) & ~size_t(127);
    size_t mappedBytes = completionOffset + (size_t)o.maxRuns * sizeof(uint32_t);
    GPUOS_RETURN_IF_ERROR(backend->allocMapped(mappedBytes, mappedHost, mappedDev));
    std::memset(mappedHost, 0, mappedBytes);
    ring = static_cast<RingEntry *>(mappedHost);
    hs = reinterpret_cast<HostShared *>(static_cast<char *>(mappedHost) + hsOffset);
    completion = reinterpret_cast<uint32_t *>(static_cast<char *>(mappedHost) +
                                              completionOffset);
    ringDev = mappedDev;
    hsDev = mappedDev + hsOffset;
    completionDev = mappedDev + completionOffset;

    GPUOS_RETURN_IF_ERROR(backend->allocDevice(sizeof(DeviceControl), ctlDev));
    DeviceControl zero{};
    GPUOS_RETURN_IF_ERROR(upload(ctlDev, &zero, sizeof(zero)));
    std::vector<QueueEntry> slots(o.queueCapacity);
    for (uint32_t i = 0; i < o.queueCapacity; ++i)
      slots[i].seq = i; // slot i is free for position i
    for (uint32_t q = 0; q < kNumQueues; ++q) {
      GPUOS_RETURN_IF_ERROR(
          backend->allocDevice(slots.size() * sizeof(QueueEntry), queueDev[q]));
      GPUOS_RETURN_IF_ERROR(
          upload(queueDev[q], slots.data(), slots.size() * sizeof(QueueEntry)));
    }
    std::vector<RunRow> rows(o.maxRuns);
    GPUOS_RETURN_IF_ERROR(
        backend->allocDevice(rows.size() * sizeof(RunRow), runTableDev));
    GPUOS_RETURN_IF_ERROR(upload(runTableDev, rows.data(), rows.size() * sizeof(RunRow)));
    GPUOS_RETURN_IF_ERROR(backend->allocDevice(o.arenaBytes, arenaDev));
    arena.reset(arenaDev, o.arenaBytes);
    return Status::success();
  }

  void shutdown() {
    if (!backend)
      return;
    (void)backend->makeCurrent();
    if (fault.ok() && launched && !parkLocked(20'000'000).ok() && fault.ok()) {
      if (forceStop(5'000'000)) {
        (void)waitExit();
        launched = false;
      } else {
        fault = Status::error(ErrorCode::Faulted, "the resident kernel is wedged");
      }
    }
    if (fault.ok()) {
      for (auto &[id, g] : graphs)
        releaseGraph(g);
      graphs.clear();
      for (auto &[p, bytes] : allocations)
        pendingFrees.push_back(p);
      allocations.clear();
      safePoint();
      for (uint64_t *p : {&ctlDev, &runTableDev, &blockTilesDev, &arenaDev,
                          &queueDev[0], &queueDev[1], &queueDev[2]})
        if (*p)
          (void)backend->freeDevice(*p);
      if (mappedHost)
        backend->freeMapped(mappedHost);
      if (imageLoaded)
        backend->unloadImage();
    }
    mappedHost = nullptr;
    bool running = false;
    if (!fault.ok() && (!backend->residentStatus(running).ok() || !running)) {
      // Faulted: the context is unusable; the backend's destructor
      // releases it, which frees everything.
      backend.reset();
    } else if (!fault.ok()) {
      // Wedged: a kernel that ignores stop. Module unload and context
      // teardown would block on it; leave them to process exit.
      (void)backend.release();
    } else {
      backend.reset();
    }
  }

  Status writeControl() {
    DeviceControl c{};
    c.ring = ringDev;
    c.hostShared = hsDev;
    c.completion = completionDev;
    c.runTable = runTableDev;
    for (uint32_t q = 0; q < kNumQueues; ++q)
      c.queueSlots[q] = queueDev[q];
    c.blockTiles = blockTilesDev;
    c.idleNs = (uint64_t)options.idleParkUs * 1000;
    c.ringMask = options.ringCapacity - 1;
    c.queueMask = options.queueCapacity - 1;
    c.numBlocks = shape.blocks;
    c.maxRuns = options.maxRuns;
    c.protocol = kProtocolVersion;
    c.idleSleepNs = options.workerIdleSleepNs;
    c.inlineUrgent = options.inlineUrgentSingletons ? 1u : 0u;
    c.continuations = options.continueSuccessors ? 1u : 0u;
    // Only the configuration: the device state after it (ring head, queue
    // counters, whose values the slots' sequence numbers depend on) stays.
    return upload(ctlDev, &c, offsetof(DeviceControl, ringHead));
  }
};

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

Runtime::Runtime(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Runtime::~Runtime() = default;

Status Runtime::open(int ordinal, const RuntimeOptions &options,
                     std::unique_ptr<Runtime> &out) {
  std::unique_ptr<Backend> backend;
  GPUOS_RETURN_IF_ERROR(openCudaBackend(ordinal, options.ownContext, backend));
  return openWithBackend(std::move(backend), options, out);
}

Status Runtime::openWithBackend(std::unique_ptr<Backend> backend,
                                const RuntimeOptions &options,
                                std::unique_ptr<Runtime> &out) {
  if (!backend)
    return invalid("no backend");
  auto impl = std::make_unique<Impl>();
  impl->backend = std::move(backend);
  impl->options = options;
  Status st = impl->setup();
  if (!st.ok())
    return st; // ~Impl frees what setup allocated
  out.reset(new Runtime(std::move(impl)));
  return Status::success();
}

bool Runtime::closed() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->closed;
}

const BackendInfo &Runtime::deviceInfo() const {
  static const BackendInfo none;
  return impl_->backend ? impl_->backend->info() : none;
}

const ImageManifest *Runtime::manifest() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->imageLoaded ? &impl_->manifest : nullptr;
}

Status Runtime::loadImageFiles(const std::string &cubinPath,
                               const std::string &manifestPath) {
  std::vector<char> cubin, json;
  GPUOS_RETURN_IF_ERROR(readFile(cubinPath, cubin));
  GPUOS_RETURN_IF_ERROR(readFile(manifestPath, json));
  return loadImage(std::move(cubin), std::string(json.begin(), json.end()));
}

Status Runtime::loadImage(std::vector<char> cubin, const std::string &json) {
  ImageManifest manifest;
  GPUOS_RETURN_IF_ERROR(parseManifest(json, manifest));
  return loadImage(std::move(cubin), std::move(manifest));
}

Status Runtime::loadImage(std::vector<char> cubin, ImageManifest manifest) {
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  GPUOS_RETURN_IF_ERROR(m.usable());
  if (cubin.empty())
    return invalid("the cubin is empty");
  if (manifest.tasks.empty())
    return Status::error(ErrorCode::BadImage, "the manifest lists no tasks");
  const BackendInfo &info = m.backend->info();
  if (!info.simulated && !manifest.arch.empty()) {
    std::string arch = "sm_" + std::to_string(info.computeMajor) +
                       std::to_string(info.computeMinor);
    if (manifest.arch != arch)
      return Status::error(ErrorCode::BadImage,
                           "the image is for " + manifest.arch + ", the device is " +
                               arch);
  }
  GPUOS_RETURN_IF_ERROR(m.backend->makeCurrent());
  GPUOS_RETURN_IF_ERROR(m.parkLocked()); // a safe point: nothing resident
  for (auto &[id, g] : m.graphs)
    m.releaseGraph(g);
  m.graphs.clear();
  m.safePoint();
  if (m.imageLoaded) {
    m.backend->unloadImage();
    m.imageLoaded = false;
  }
  uint32_t protocol = 0;
  Status st = m.backend->loadImage(cubin, protocol);
  if (!st.ok())
    return Status::error(ErrorCode::BadImage, st.message());
  if (protocol != kProtocolVersion) {
    m.backend->unloadImage();
    return Status::error(ErrorCode::BadImage,
                         "the image's runtime device library speaks protocol " +
                             std::to_string(protocol) + ", this runtime " +
                             std::to_string(kProtocolVersion) +
                             "; relink the image");
  }
  LaunchShape shape;
  uint32_t threads = m.options.blockThreads, shared = 0;
  for (const ManifestTask &t : manifest.tasks) {
    if (!m.options.blockThreads)
      threads = std::max(threads, (uint32_t)t.blockSize);
    shared = std::max(shared, (uint32_t)t.sharedBytes);
  }
  shape.threads = threads ? threads : 256;
  shape.sharedBytes = shared;
  int perSM = 0;
  st = m.backend->blocksPerMultiprocessor(shape, perSM);
  if (!st.ok() || perSM < 1) {
    m.backend->unloadImage();
    return Status::error(ErrorCode::BadImage,
                         "the resident kernel does not fit on a multiprocessor "
                         "with " + std::to_string(shape.threads) + " threads and " +
                             std::to_string(shared) + " bytes of shared memory" +
                             (st.ok() ? "" : ": " + st.message()));
  }
  uint32_t sms = (uint32_t)std::max(1, info.multiprocessors);
  uint32_t capacity = (uint32_t)perSM * sms;
  uint32_t workers = std::min(m.options.workersPerSM, (uint32_t)perSM) * sms;
  workers = std::min(workers, capacity - 1); // the poller block must fit too
  if (workers < 1) {
    m.backend->unloadImage();
    return Status::error(ErrorCode::BadImage,
                         "no room for a worker block next to the poller");
  }
  shape.blocks = workers + 1;
  if (m.blockTilesDev) {
    (void)m.backend->freeDevice(m.blockTilesDev);
    m.blockTilesDev = 0;
  }
  std::vector<uint64_t> zeros(shape.blocks, 0);
  GPUOS_RETURN_IF_ERROR(m.backend->allocDevice(zeros.size() * 8, m.blockTilesDev));
  GPUOS_RETURN_IF_ERROR(m.upload(m.blockTilesDev, zeros.data(), zeros.size() * 8));
  m.shape = shape;
  m.workers = workers;
  GPUOS_RETURN_IF_ERROR(m.writeControl());
  m.manifest = std::move(manifest);
  m.imageLoaded = true;
  return Status::success();
}

Status Runtime::alloc(uint64_t bytes, Buffer &out) {
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  GPUOS_RETURN_IF_ERROR(m.usable());
  if (bytes == 0)
    return invalid("alloc: zero bytes");
  GPUOS_RETURN_IF_ERROR(m.backend->makeCurrent());
  uint64_t p = 0;
  Status st = m.backend->allocDevice(bytes, p);
  if (!st.ok())
    return Status::error(ErrorCode::OutOfMemory,
                         "alloc(" + std::to_string(bytes) + "): " + st.message());
  m.allocations[p] = bytes;
  out.ptr = p;
  out.bytes = bytes;
  return Status::success();
}

Status Runtime::free(uint64_t ptr) {
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  GPUOS_RETURN_IF_ERROR(m.usable());
  auto it = m.allocations.find(ptr);
  if (it == m.allocations.end())
    return invalid("free: " + std::to_string(ptr) +
                   " is not a buffer from alloc() (or was freed)");
  for (const auto &[id, g] : m.graphs)
    if (std::find(g.ownedBuffers.begin(), g.ownedBuffers.end(), ptr) !=
        g.ownedBuffers.end())
      return invalid("free: the buffer belongs to graph " + std::to_string(id));
  m.allocations.erase(it);
  m.pendingFrees.push_back(ptr);
  if (!m.launched) {
    GPUOS_RETURN_IF_ERROR(m.backend->makeCurrent());
    m.safePoint();
  }
  return Status::success();
}

/// Host-side checks of a copy between `host` and the device buffer at
/// `device`: a usable runtime, no null pointer, no overrun of the buffer.
static Status checkCopy(Runtime::Impl &m, const char *what, uint64_t device,
                        const void *host, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(m.mutex);
  GPUOS_RETURN_IF_ERROR(m.usable());
  if (!device || (!host && bytes))
    return invalid(std::string(what) + ": null pointer");
  uint64_t cap = m.capacityAt(device);
  if (cap && bytes > cap)
    return invalid(std::string(what) + ": " + std::to_string(bytes) +
                   " bytes overrun the buffer (" + std::to_string(cap) +
                   " available)");
  return Status::success();
}

Status Runtime::copyToDevice(uint64_t dst, const void *src, uint64_t bytes) {
  Impl &m = *impl_;
  GPUOS_RETURN_IF_ERROR(checkCopy(m, "copyToDevice", dst, src, bytes));
  if (!bytes)
    return Status::success();
  GPUOS_RETURN_IF_ERROR(m.backend->makeCurrent());
  return m.upload(dst, src, bytes);
}

Status Runtime::copyFromDevice(void *dst, uint64_t src, uint64_t bytes) {
  Impl &m = *impl_;
  GPUOS_RETURN_IF_ERROR(checkCopy(m, "copyFromDevice", src, dst, bytes));
  if (!bytes)
    return Status::success();
  GPUOS_RETURN_IF_ERROR(m.backend->makeCurrent());
  Status st = m.backend->copyFromDevice(dst, src, bytes);
  if (!st.ok())
    return Status::error(ErrorCode::Cuda, "copyFromDevice: " + st.message());
  return st;
}

Status Runtime::createGraph(const GraphSpec &spec, GraphId &out) {
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  GPUOS_RETURN_IF_ERROR(m.needImage());
  GraphRecord g;
  LayoutLimits limits;
  limits.maxTilesPerGraph = m.maxTilesInFlight();
  GPUOS_RETURN_IF_ERROR(buildGraphLayout(
      m.manifest, spec, [&](uint64_t p) { return m.capacityAt(p); }, limits,
      g.layout));
  g.priority = spec.priority;
  GPUOS_RETURN_IF_ERROR(m.backend->makeCurrent());
  GPUOS_RETURN_IF_ERROR(m.arenaAlloc(g.layout.blobBytes(), g.blobDev));
  std::vector<uint8_t> blob = g.layout.blob(g.blobDev);
  Status st = m.upload(g.blobDev, blob.data(), blob.size());
  if (!st.ok()) {
    m.arena.release(g.blobDev);
    return st;
  }
  GraphId id = m.nextGraph++;
  GraphRecord &stored = m.graphs[id] = std::move(g);
  uint32_t index;
  st = m.createRunSlot(id, stored, index); // one ready for the first submit
  if (!st.ok()) {
    m.releaseGraph(stored);
    m.graphs.erase(id);
    return st;
  }
  out = id;
  return Status::success();
}

Status Runtime::createGraphFromManifest(
    const std::string &graph, const std::map<std::string, BufferArg> &bindings,
    GraphId &out) {
  GraphSpec spec;
  std::vector<uint64_t> owned;
  {
    Impl &m = *impl_;
    std::lock_guard<std::mutex> lock(m.mutex);
    GPUOS_RETURN_IF_ERROR(m.needImage());
    const ImageManifest &man = m.manifest;
    std::vector<int> members;
    std::set<std::string> graphNames;
    for (size_t i = 0; i < man.tasks.size(); ++i) {
      graphNames.insert(man.tasks[i].graph);
      if (man.tasks[i].graph == graph)
        members.push_back((int)i);
    }
    if (members.empty()) {
      std::string list;
      for (const std::string &n : graphNames)
        list += (list.empty() ? "" : ", ") + n;
      return invalid("the image has no graph '" + graph + "' (it has: " + list + ")");
    }
    std::map<int, uint32_t> local;
    for (size_t k = 0; k < members.size(); ++k)
      local[members[k]] = (uint32_t)k;
    std::set<std::string> produced, consumed;
    for (int t : members)
      for (const ManifestBuffer &b : man.tasks[t].buffers)
        (b.isOutput ? produced : consumed).insert(b.name);
    for (const auto &[name, arg] : bindings) {
      (void)arg;
      if (!produced.count(name) && !consumed.count(name))
        return invalid("graph '" + graph + "' has no buffer named '" + name + "'");
    }
    std::map<std::string, BufferArg> resolved = bindings;
    auto failOwned = [&](Status st) {
      for (uint64_t p : owned) {
        m.allocations.erase(p);
        m.pendingFrees.push_back(p);
      }
      return st;
    };
    GPUOS_RETURN_IF_ERROR(m.backend->makeCurrent());
    spec.priority = Priority::Background;
    for (int t : members) {
      const ManifestTask &mt = man.tasks[t];
      if ((uint32_t)mt.priority < (uint32_t)spec.priority)
        spec.priority = mt.priority;
      if (!mt.dynamic.empty())
        return failOwned(invalid("task '" + mt.kind + "' has dynamic sizes; "
                                 "build its graph with createGraph"));
      TaskSpec ts;
      ts.kind = mt.kind;
      for (int64_t d : mt.dependsOn)
        ts.deps.push_back(local.at((int)d));
      for (const ManifestBuffer &b : mt.buffers) {
        auto it = resolved.find(b.name);
        if (it == resolved.end()) {
          bool intermediate = produced.count(b.name) && consumed.count(b.name);
          if (!intermediate)
            return failOwned(invalid(
                "graph '" + graph + "': buffer '" + b.name + "' (" +
                (b.isOutput ? "an output" : "an input") + " of '" + mt.kind +
                "') is not bound"));
          uint64_t extent = (uint64_t)b.elemBytes;
          for (size_t d = 0; d < b.shape.size(); ++d)
            if (b.shape[d] > 0)
              extent += (uint64_t)(b.shape[d] - 1) * (uint64_t)b.strides[d] *
                        (uint64_t)b.elemBytes;
          uint64_t p = 0;
          Status st = m.backend->allocDevice(extent, p);
          if (!st.ok())
            return failOwned(Status::error(ErrorCode::OutOfMemory,
                                           "intermediate '" + b.name + "': " +
                                               st.message()));
          m.allocations[p] = extent;
          owned.push_back(p);
          it = resolved.emplace(b.name, BufferArg{p, extent, {}, {}}).first;
        }
        ts.buffers.push_back(it->second);
      }
      spec.tasks.push_back(std::move(ts));
    }
  }
  Status st = createGraph(spec, out);
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  if (!st.ok()) {
    for (uint64_t p : owned) {
      m.allocations.erase(p);
      m.pendingFrees.push_back(p);
    }
    return st;
  }
  m.graphs[out].ownedBuffers = owned;
  return st;
}

Status Runtime::destroyGraph(GraphId id) {
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  GPUOS_RETURN_IF_ERROR(m.usable());
  auto it = m.graphs.find(id);
  if (it == m.graphs.end())
    return invalid("unknown graph " + std::to_string(id));
  m.reapAll();
  size_t busy = 0;
  for (uint32_t index : it->second.runSlots)
    busy += m.runs[index].busy;
  if (busy)
    return invalid("graph " + std::to_string(id) + " has " +
                   std::to_string(busy) + " submissions in flight");
  m.releaseGraph(it->second);
  m.graphs.erase(it);
  if (!m.launched)
    m.safePoint();
  return Status::success();
}

Status Runtime::submit(GraphId id, Submission &out) {
  Priority priority;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    auto it = impl_->graphs.find(id);
    if (it == impl_->graphs.end()) {
      GPUOS_RETURN_IF_ERROR(impl_->usable());
      return invalid("unknown graph " + std::to_string(id));
    }
    priority = it->second.priority;
  }
  return submit(id, priority, out);
}

Status Runtime::submit(GraphId id, Priority priority, Submission &out) {
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  GPUOS_RETURN_IF_ERROR(m.needImage());
  if ((uint32_t)priority >= kNumPriorities)
    return invalid("priority " + std::to_string((uint32_t)priority) +
                   " is not urgent (0), normal (1) or background (2)");
  auto it = m.graphs.find(id);
  if (it == m.graphs.end())
    return invalid("unknown graph " + std::to_string(id));
  GraphRecord &g = it->second;
  uint32_t q = (uint32_t)priority;
  uint64_t tiles = g.layout.totalTiles;

  // Admission: at most half a queue of tiles in flight per priority (over
  // its root and shared queues), so a producer never finds its queue full
  // of entries nobody can take.
  m.reapAll();
  for (uint32_t spins = 0; m.inFlightTiles[q] + tiles > m.maxTilesInFlight();
       ++spins) {
    if ((spins & 1023) == 1023)
      GPUOS_RETURN_IF_ERROR(m.checkResident());
    cpuPause();
    m.reapAll();
  }
  uint32_t index = UINT32_MAX;
  for (uint32_t r : g.runSlots)
    if (!m.runs[r].busy) {
      index = r;
      break;
    }
  if (index == UINT32_MAX) {
    GPUOS_RETURN_IF_ERROR(m.backend->makeCurrent());
    GPUOS_RETURN_IF_ERROR(m.createRunSlot(id, g, index));
  }
  RunSlot &rs = m.runs[index];
  rs.epoch = (uint16_t)(rs.epoch + 1); // differs from the word's last value
  if (rs.epoch == 0)
    rs.epoch = 1;
  rs.busy = true;
  rs.serial = m.nextSerial++;
  rs.queue = q;
  rs.tiles = tiles;
  m.busyRuns.push_back(index);
  m.inFlightTiles[q] += tiles;
  ++m.submissions;
  m.queued[q] += tiles;
  out.id = Impl::submissionId(rs.serial, index);
  if (!m.launched)
    GPUOS_RETURN_IF_ERROR(m.backend->makeCurrent());
  return m.postEntry(index, rs.epoch, kRingOpSubmit, q);
}

Status Runtime::poll(Submission s) {
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  if (m.closed)
    return Status::error(ErrorCode::Closed, "the runtime is closed");
  uint32_t index;
  uint16_t epoch;
  bool done = false;
  Status result;
  GPUOS_RETURN_IF_ERROR(m.lookup(s, index, epoch, done, result));
  if (done)
    return result;
  GPUOS_RETURN_IF_ERROR(m.checkResident());
  return Status::error(ErrorCode::NotReady, "the submission is still running");
}

Status Runtime::wait(Submission s, int64_t timeoutUs) {
  Impl &m = *impl_;
  uint32_t index;
  uint16_t epoch;
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    if (m.closed)
      return Status::error(ErrorCode::Closed, "the runtime is closed");
    bool done = false;
    Status result;
    GPUOS_RETURN_IF_ERROR(m.lookup(s, index, epoch, done, result));
    if (done)
      return result;
  }
  auto start = Clock::now();
  uint32_t status;
  for (uint64_t spins = 1;; ++spins) {
    // The fast path reads one word of host memory; the device wrote it.
    if (m.completedWord(index, epoch, status) || (spins & 4095) == 0) {
      std::lock_guard<std::mutex> lock(m.mutex);
      if (m.closed)
        return Status::error(ErrorCode::Closed, "the runtime is closed");
      bool done = false;
      Status result;
      GPUOS_RETURN_IF_ERROR(m.lookup(s, index, epoch, done, result));
      if (done)
        return result;
      GPUOS_RETURN_IF_ERROR(m.checkResident());
      if (timeoutUs >= 0 &&
          Clock::now() - start >= std::chrono::microseconds(timeoutUs))
        return Status::error(ErrorCode::Timeout,
                             "the submission did not finish within " +
                                 std::to_string(timeoutUs) + " us");
      if ((spins & 65535) == 0)
        std::this_thread::yield();
    }
    cpuPause();
  }
}

Status Runtime::park() {
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  GPUOS_RETURN_IF_ERROR(m.usable());
  GPUOS_RETURN_IF_ERROR(m.backend->makeCurrent());
  Status st = m.parkLocked();
  m.reapAll();
  return st;
}

Status Runtime::stats(Stats &out) {
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  GPUOS_RETURN_IF_ERROR(m.usable());
  m.reapAll();
  Stats s;
  s.submissions = m.submissions;
  s.completed = m.completed;
  s.failed = m.failed;
  s.tasksRun = m.tasksRun;
  s.launches = m.launches;
  s.parks = loadAcquire(&m.hs->parks);
  s.parkRequests = m.parkRequests;
  s.workers = m.workers;
  s.blockThreads = m.shape.threads;
  s.resident = m.launched && loadAcquire(&m.hs->parkPhase) != kPhaseParked;
  s.runsInFlight = (uint32_t)m.busyRuns.size();
  for (uint32_t p = 0; p < kNumPriorities; ++p)
    s.queueTotal[p] = m.queued[p];
  if (m.imageLoaded) {
    GPUOS_RETURN_IF_ERROR(m.backend->makeCurrent());
    s.tilesPerBlock.resize(m.shape.blocks);
    GPUOS_RETURN_IF_ERROR(m.backend->copyFromDevice(
        s.tilesPerBlock.data(), m.blockTilesDev, s.tilesPerBlock.size() * 8));
    for (uint64_t t : s.tilesPerBlock)
      s.tilesRun += t;
    QueueState queues[kNumQueues];
    GPUOS_RETURN_IF_ERROR(m.backend->copyFromDevice(
        queues, m.ctlDev + offsetof(DeviceControl, queues), sizeof(queues)));
    for (uint32_t q = 0; q < kNumQueues; ++q)
      s.queueDepth[priorityOfQueue(q)] +=
          queues[q].reserve.value > queues[q].head.value
              ? queues[q].reserve.value - queues[q].head.value
              : 0;
  }
  out = std::move(s);
  return Status::success();
}

Status Runtime::close() {
  Impl &m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  if (m.closed)
    return Status::success();
  m.shutdown();
  m.closed = true;
  return Status::success();
}

} // namespace gpuos::runtime
