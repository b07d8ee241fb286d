//===- RuntimeImpl.h - the runtime's private state --------------*- C++ -*-===//
//
// Runtime::Impl, shared by the files that implement the runtime:
// Runtime.cpp (the public API and the host half of the protocol),
// Swap.cpp (quiescing, image swaps, safe-point actions) and Recovery.cpp
// (deadlines, fault and hang recovery, job records). Private to runtime/lib.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_RUNTIME_RUNTIMEIMPL_H
#define GPUOS_RUNTIME_RUNTIMEIMPL_H

#include "gpuos/runtime/Runtime.h"
#include "gpuos/runtime/Arena.h"
#include "gpuos/runtime/Protocol.h"
#include "TestHooks.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <unordered_map>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace gpuos::runtime {

using namespace proto;

namespace rtdetail {

using Clock = std::chrono::steady_clock;

/// A caller's microseconds as a Clock duration, clamped to a century: a
/// "never" such as INT64_MAX us overflows when scaled to the clock's
/// nanoseconds, and the deadline or timeout it sets lands in the past.
inline Clock::duration micros(int64_t us) {
  constexpr int64_t kCenturyUs = 100LL * 366 * 24 * 3600 * 1'000'000;
  return std::chrono::microseconds(std::clamp(us, -kCenturyUs, kCenturyUs));
}

inline void cpuPause() {
#if defined(__x86_64__)
  _mm_pause();
#endif
}

inline uint32_t loadAcquire(const uint32_t *p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
inline uint64_t loadAcquire(const uint64_t *p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

inline bool isPowerOfTwo(uint64_t v) { return v && !(v & (v - 1)); }

inline Status invalid(std::string message) {
  return Status::error(ErrorCode::InvalidArgument, std::move(message));
}

} // namespace rtdetail
using namespace rtdetail;

//===----------------------------------------------------------------------===//
// State
//===----------------------------------------------------------------------===//

struct GraphRecord {
  GraphSpec spec; // kept: kinds are rebound by name when the image changes
  GraphLayout layout;
  uint64_t blobDev = 0;
  Priority priority = Priority::Normal;
  std::vector<uint32_t> runSlots;
  std::vector<uint64_t> ownedBuffers; // intermediates of manifest graphs
  int64_t timeoutUs = -1;             // -1: RuntimeOptions::timeoutUs
  /// Not ok: the graph cannot run any more (its kinds left the image, or its
  /// buffers were lost with a context); submit() returns this.
  Status stale;
  bool lost = false; // stale for good: its buffers died with a context, or were freed
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
  // Deadline (submit time + timeout) of the submission in flight, if any.
  bool hasDeadline = false;
  std::chrono::steady_clock::time_point deadline;
  /// The submission was declared failed (deadline) before the device was
  /// done with it: the waiter has its error; the slot stays busy until the
  /// device completes the run (or the context is recreated).
  bool declared = false;
};

struct Runtime::Impl {
  std::unique_ptr<Backend> backend;
  RuntimeOptions options;
  mutable std::mutex mutex;
  bool closed = false;
  Status fault; // set once the kernel faulted

  // Quiescing (Swap.cpp): between beginQuiesce and endQuiesce the kernel
  // is parked and stays parked; submissions are queued on the host
  // (`deferred`) and posted to the ring when it ends. Operations that need
  // the kernel gone or the image fixed wait on `quiesceEnded`.
  std::condition_variable quiesceEnded;
  bool quiesced = false, swapping = false;
  std::thread::id quiesceOwner;
  struct Deferred {
    uint32_t index, queue;
  };
  std::vector<Deferred> deferred;

  // Pinned host memory, mapped: ring | HostShared | completion words |
  // job records (one per possible block).
  void *mappedHost = nullptr;
  uint64_t mappedDev = 0;
  RingEntry *ring = nullptr;
  HostShared *hs = nullptr;
  uint32_t *completion = nullptr;
  JobRecord *jobs = nullptr;
  uint64_t ringDev = 0, hsDev = 0, completionDev = 0, jobsDev = 0;
  uint32_t maxBlocks = 0; // job records and BlockStats allocated

  // Device memory.
  uint64_t ctlDev = 0, runTableDev = 0, queueDev[kNumQueues] = {};
  uint64_t blockStatsDev = 0, arenaDev = 0;
  uint64_t jobsScratchDev = 0; // job records when !options.recordJobs
  uint64_t traceDev = 0;       // TraceSlot[traceCount] (the poller's ring),
                               // then kHopTraceSlots per block (traceRecords)
  uint32_t traceCount = 0;

  /// Worker blocks per SM that the job records and statistics are sized for.
  uint32_t maxWorkersPerSM() const {
    return options.workersPerSM ? options.workersPerSM
                                : RuntimeOptions::kAutoWorkersPerSM;
  }
  Arena arena;

  // Image and launch shape.
  bool imageLoaded = false;
  ImageManifest manifest;
  std::vector<char> cubin; // the current image, reloaded after a reset
  LaunchShape shape;
  uint32_t workers = 0;

  // Kernel and ring.
  bool launched = false;
  bool controlWritten = false;
  uint64_t ringTail = 0;
  bool closing = false;
  // wait() and the notifier read completion words without the lock; a
  // recovery or shutdown (which free the mapped memory) raises `resetting`
  // and waits until no reader is between its check of it and its read.
  std::atomic<bool> resetting{false};
  std::atomic<uint32_t> spinners{0};
  /// Runs `read` (lock-free reads of completion words) unless the mapped
  /// memory is being freed; false when it was skipped.
  template <typename Read> bool whileMapped(Read read) {
    spinners.fetch_add(1);
    bool mapped = !resetting.load();
    if (mapped)
      read();
    spinners.fetch_sub(1);
    return mapped;
  }
  /// Before the mapped memory is freed: no lock-free reader is inside it
  /// from here on (until resetting is lowered again).
  void fenceWaiters() {
    resetting.store(true);
    while (spinners.load() != 0)
      cpuPause();
  }

  // Graphs, run slots, submissions.
  std::map<GraphId, GraphRecord> graphs;
  GraphId nextGraph = 1;
  std::vector<RunSlot> runs;
  std::vector<uint32_t> freeRuns;
  std::vector<uint32_t> busyRuns;
  uint64_t nextSerial = 1;
  uint64_t inFlightTiles[kNumPriorities] = {};
  std::unordered_map<uint64_t, Status> failures; // serial -> its error
  std::deque<uint64_t> failureOrder;
  static constexpr size_t kKeptFailures = 4096;
  /// Submissions before this serial may have failed and been forgotten.
  uint64_t forgottenBelow = 0;

  // Completion callbacks (Callbacks.cpp): pending by serial until the
  // submission finishes (finished()), then ready; the notifier thread calls
  // ready ones without the lock, and reaps while some are pending.
  struct PendingCallback {
    Submission submission;
    Runtime::CompletionCallback fn;
    uint32_t index = 0; // its run slot and epoch, watched without the lock
    uint16_t epoch = 0;
  };
  std::unordered_multimap<uint64_t, PendingCallback> callbacks;
  std::vector<std::pair<PendingCallback, Status>> readyCallbacks;
  std::thread notifier;
  std::condition_variable notifierWake;
  bool notifierStop = false;
  /// Submission `serial` ended with `result`: its callbacks become ready.
  void finished(uint64_t serial, const Status &result) {
    if (callbacks.empty())
      return;
    auto [first, last] = callbacks.equal_range(serial);
    for (auto it = first; it != last; ++it)
      readyCallbacks.push_back({std::move(it->second), result});
    if (first != last) {
      callbacks.erase(first, last);
      notifierWake.notify_one();
    }
  }
  void notifierLoop();
  /// Lets the notifier call what is ready and end; joins it unless called
  /// from it (then ~Impl joins it: a callback must not destroy the
  /// runtime). Not under the lock.
  void stopNotifier();

  // Buffers.
  std::map<uint64_t, uint64_t> allocations; // base -> bytes
  std::vector<uint64_t> pendingFrees;
  /// Buffers from alloc() that died with a recreated context (free() and
  /// copies of them say so instead of touching memory).
  std::map<uint64_t, uint64_t> lostAllocations; // base -> bytes
  bool isLost(uint64_t p) const {
    auto it = lostAllocations.upper_bound(p);
    if (it == lostAllocations.begin())
      return false;
    --it;
    return p < it->first + it->second;
  }

  // Statistics.
  uint64_t submissions = 0, completed = 0, failed = 0, tasksRun = 0;
  uint64_t launches = 0, parkRequests = 0;
  uint64_t queued[kNumPriorities] = {};
  uint64_t swaps = 0, recoveries = 0, deadlineMisses = 0;
  uint64_t deferredTotal = 0;
  Stats::SwapPhases lastSwap;
  uint32_t runsWithDeadline = 0; // busy runs whose deadline is watched

  //===--------------------------------------------------------------------===//
  // Out of line: Swap.cpp
  //===--------------------------------------------------------------------===//

  /// Waits until no other thread quiesces (the caller holds `lock`). Error
  /// when the calling thread itself is inside atSafePoint/loadImage.
  Status waitQuiesce(std::unique_lock<std::mutex> &lock, const char *what);
  /// Parks (draining), then keeps the kernel parked until endQuiesce.
  Status beginQuiesce(std::unique_lock<std::mutex> &lock, bool swap);
  /// Posts the submissions queued meanwhile, in order, each admitted again
  /// with its graph's tile count now (a swap may have rebound it), waiting
  /// for room with `lock` released; fails those of graphs that went stale
  /// and finishes those whose deadline was declared meanwhile. Relaunches
  /// when anything was posted or `relaunchNow`.
  Status endQuiesce(std::unique_lock<std::mutex> &lock, bool relaunchNow);
  /// The tiles admitted to `queue` for deferred submissions not yet posted.
  uint64_t deferredTiles(uint32_t queue) const;
  /// Loads, checks and shapes an image; on success the image is current
  /// and keeps `bytes` (moved in: an image is hundreds of KiB, copied
  /// inside the swap's pause).
  Status installImage(std::vector<char> &&bytes, ImageManifest &manifest);
  /// Rebuilds every graph's layout against the current manifest: same
  /// bytes stay, changed ones are re-uploaded, impossible ones go stale.
  void rebindGraphs();

  //===--------------------------------------------------------------------===//
  // Out of line: Recovery.cpp
  //===--------------------------------------------------------------------===//

  /// Finishes run slot `index` on the host with `result` (never started,
  /// or lost with a context): the waiter sees it at once.
  void failOnHost(uint32_t index, const Status &result);
  /// Declares submissions past their deadline failed; recovers the context
  /// when a declared one still runs past the hang grace. Called from
  /// checkResident (every slow path that waits).
  Status watchdog();
  /// A sticky device error or a hung kernel: fail everything in flight with
  /// a message naming what was running, recreate the context, reload the
  /// image, re-upload what survives. Returns the error to report.
  Status recover(const std::string &reason, bool hung);
  /// What the job records say was running for run slot `run` (or for any
  /// run when run == UINT32_MAX), e.g. "task 2 ('spin') tile 0 on block 7".
  std::string describeRunning(uint32_t run) const;
  std::string describeGraphTask(uint32_t graph, uint32_t task,
                                uint32_t kind) const;
  /// The kernel was stopped with runs in flight, but the context is fine:
  /// resets the protocol state (ring, shared words, control block, queues,
  /// run counters) and keeps every buffer and graph.
  Status resetProtocol();

  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      shutdown();
      closed = true; // the notifier touches nothing from here on
    }
    stopNotifier();
  }

  //===--------------------------------------------------------------------===//
  // Helpers
  //===--------------------------------------------------------------------===//

  /// Every API call's first check (the lock held). A device host lost in
  /// a call that does not query the kernel is recovered here, as the next
  /// query would (the call gets recover's Faulted; later calls run).
  Status usable() {
    if (closed)
      return Status::error(ErrorCode::Closed, "the runtime is closed");
    if (!fault.ok())
      return fault;
    if (std::string why; backend && backend->contextLost(why))
      return recover(why, false);
    return Status::success();
  }

  Status needImage() {
    GPUOS_RETURN_IF_ERROR(usable());
    if (!imageLoaded)
      return invalid("no image is loaded");
    return Status::success();
  }

  uint64_t maxTilesInFlight() const { return options.maxTilesInFlight(); }

  uint64_t capacityAt(uint64_t ptr) const {
    auto it = allocations.upper_bound(ptr);
    if (it == allocations.begin())
      return 0;
    --it;
    if (ptr < it->first + it->second)
      return it->first + it->second - ptr;
    return 0;
  }

  /// The kernel faulted (or another sticky error): recover (or remember
  /// it when that is off or fails). Then the deadlines.
  Status checkResident() {
    if (!fault.ok())
      return fault;
    bool running = false;
    Status st = backend->residentStatus(running);
    if (!st.ok())
      return recover("the resident kernel failed: " + st.message(), false);
    if (!running && launched && loadAcquire(&hs->parkPhase) != kPhaseParked)
      return recover("the resident kernel exited without parking", false);
    return runsWithDeadline ? watchdog() : Status::success();
  }

  //===--------------------------------------------------------------------===//
  // Ring and park handshake
  //===--------------------------------------------------------------------===//

  /// Runtime::submit and submitOnStream (stream: null for a plain submit).
  /// No priority: the graph's default.
  Status submit(GraphId id, std::optional<Priority> priority, const uint64_t *stream,
                Submission &out);
  /// The most run slots a graph gets for stream-ordered submissions.
  static constexpr size_t kStreamRunSlots = 16;
  /// Posts run slot `index`'s stream-ordered entry and the launch that
  /// releases it, behind `stream` (Runtime.cpp).
  Status postOnStream(uint32_t index, uint32_t queue, uint64_t stream);

  /// Writes ring position ringTail (waiting for space) and advances it;
  /// then makes sure a launch will read it, unless `ensure` is false (the
  /// caller launches).
  Status postEntry(uint32_t run, uint32_t epoch, uint32_t op, uint32_t queue,
                   bool ensure = true) {
    auto start = Clock::now();
    for (uint32_t spins = 0;
         ringTail - loadAcquire(&hs->ringHead) >= options.ringCapacity;
         ++spins) {
      // Full: the poller consumes entries whenever the kernel runs.
      if (!launched || loadAcquire(&hs->parkPhase) == kPhaseParked)
        break; // it will read them after the relaunch below
      if ((spins & 1023) == 1023) {
        GPUOS_RETURN_IF_ERROR(checkResident());
        uint32_t limitMs = testhooks::ringFullTimeoutMs.load(std::memory_order_relaxed);
        if (!limitMs)
          limitMs = 60'000;
        if (Clock::now() - start > std::chrono::milliseconds(limitMs))
          return Status::error(
              ErrorCode::Timeout,
              "the submission ring stayed full for " +
                  (limitMs % 1000 ? std::to_string(limitMs) + " ms"
                                  : std::to_string(limitMs / 1000) + " s") +
                  " (the kernel's poller took no entry)");
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
    uint64_t pos = ringTail++;
    return ensure ? ensureRunning(pos) : Status::success();
  }

  /// The host half of the park handshake (Park.h): after our ring store at
  /// position `pos`, a full fence, then read the phase. RUNNING: the poller
  /// will see the entry. PARKING: wait for the poller's decision. PARKED
  /// (or never launched): launch the kernel, unless the poller parked after
  /// it consumed the entry (its parked head is past `pos`): a park op it
  /// obeyed, or a run it started and finished before an idle park. Launching
  /// then would undo the park that op asked for, and nothing would be left
  /// in the ring to ask again (a park() that timed out on a loaded host,
  /// reproduced on the simulator with a delay right here).
  Status ensureRunning(uint64_t pos) {
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (!launched)
      return relaunch();
    if (uint32_t us = testhooks::delayAfterRingStoreUs.load(std::memory_order_relaxed))
      std::this_thread::sleep_for(std::chrono::microseconds(us));
    uint32_t phase = loadAcquire(&hs->parkPhase);
    for (uint32_t spins = 0; phase == kPhaseParking; ++spins) {
      cpuPause();
      phase = loadAcquire(&hs->parkPhase);
      if ((spins & 4095) == 4095)
        GPUOS_RETURN_IF_ERROR(checkResident());
    }
    if (phase != kPhaseParked)
      return Status::success();
    // Written before the phase (Park.h tryPark), read after its acquire.
    if (__atomic_load_n(&hs->parkedHead, __ATOMIC_RELAXED) > pos) {
      testhooks::parkedAfterConsuming.fetch_add(1, std::memory_order_relaxed);
      return Status::success(); // consumed: the next post relaunches
    }
    return relaunch();
  }

  Status relaunch() {
    // Frees wait for the kernel's exit, unless launches are queued behind
    // callers' streams (then for a later relaunch).
    if (launched && !pendingFrees.empty() && !streamLaunchesPending()) {
      GPUOS_RETURN_IF_ERROR(waitExit());
      safePoint();
    }
    __atomic_store_n(&hs->parkPhase, kPhaseRunning, __ATOMIC_RELEASE);
    Status st = backend->launchResident(ctlDev, shape, LaunchTicket{streamReleased, 0});
    if (!st.ok()) {
      fault = Status::error(ErrorCode::Faulted,
                            "launching the resident kernel failed: " +
                                st.message());
      return fault;
    }
    launched = true;
    ++launches;
    if (uint32_t us = testhooks::delayAfterLaunchUs.load(std::memory_order_relaxed))
      std::this_thread::sleep_for(std::chrono::microseconds(us));
    return Status::success();
  }

  /// Waits for every launch to end. One queued behind a caller's stream
  /// ends when that stream gets there: then the wait polls, and gives up
  /// after a minute (Timeout; the kernel is not faulted).
  Status waitExit() {
    if (streamLaunchesPending()) {
      auto start = Clock::now();
      for (bool running = true;;) {
        Status st = backend->residentStatus(running);
        if (!st.ok() || !running)
          break; // an error: reported by the wait below
        if (Clock::now() - start > std::chrono::seconds(60))
          return Status::error(ErrorCode::Timeout,
                               "the resident kernel's stream still waits, after 60 s, "
                               "for the stream of a stream-ordered submission (is "
                               "that stream held, or blocked?)");
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    }
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
      return Clock::now() - start > micros(timeoutUs);
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
                                     std::to_string(timeoutUs / 1000) + " ms (" +
                                     describeDeviceState() + ")");
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

  /// What the kernel's control block says now (read while it runs, on the
  /// copy stream), for errors about a kernel that does not do what it was
  /// asked: runs it counts in flight, its flags, each queue's tickets.
  std::string describeDeviceState() {
    DeviceControl c{};
    if (!backend->copyFromDevice(&c, ctlDev, sizeof(c)).ok())
      return "its control block could not be read";
    std::string out = "runs in flight " + std::to_string(c.runsInFlight.value) +
                      ", gangs in flight " + std::to_string(c.gangsInFlight.value) +
                      ", stop " + std::to_string(c.stop.value) + ", exited " +
                      std::to_string(c.exited.value) + ", ring " +
                      std::to_string(loadAcquire(&hs->ringHead)) + " of " +
                      std::to_string(ringTail) + " consumed; queues (head/reserve)";
    for (uint32_t q = 0; q < kNumQueues; ++q)
      out += " " + std::to_string(c.queues[q].head.value) + "/" +
             std::to_string(c.queues[q].reserve.value);
    uint32_t busy = 0;
    for (uint32_t r : busyRuns)
      busy += runs[r].busy ? 1 : 0;
    return out + "; the host has " + std::to_string(busy) + " runs in flight";
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
      if (Clock::now() - start > micros(timeoutUs))
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
  static uint32_t runOf(uint64_t submissionId) {
    return (uint32_t)(submissionId & 0xFFFFFFu);
  }

  bool completedWord(uint32_t run, uint16_t epoch, uint32_t &status) const {
    uint32_t c = loadAcquire(completion + run);
    if ((c & 0xFFFFu) != epoch || (c >> 16) == 0)
      return false;
    status = c >> 16;
    return true;
  }

  /// Ends slot `index`'s run on the host: status 3, which no device writes,
  /// wakes a waiter spinning on the word.
  void storeHostFailure(uint32_t index) {
    __atomic_store_n(completion + index, (uint32_t)(runs[index].epoch & 0xFFFFu) | (3u << 16),
                     __ATOMIC_RELEASE);
  }

  //===--------------------------------------------------------------------===//
  // Stream-ordered submissions (Runtime.cpp, postOnStream)
  //===--------------------------------------------------------------------===//

  /// The seq of the last stream-ordered ring entry a launch has been
  /// enqueued for: every later launch may take it (LaunchTicket::released).
  uint32_t streamReleased = 0;
  /// Events of launches enqueued behind callers' streams, oldest first
  /// (they end in that order: one kernel stream).
  std::deque<uint64_t> streamLaunches;

  /// Whether a launch enqueued behind a caller's stream has not ended.
  bool streamLaunchesPending() {
    while (!streamLaunches.empty()) {
      bool done = false;
      if (!backend->streamEventDone(streamLaunches.front(), done).ok())
        done = true; // the context failed: its error shows elsewhere
      if (!done)
        return true;
      backend->releaseStreamEvent(streamLaunches.front());
      streamLaunches.pop_front();
    }
    return false;
  }

  /// Close: gives queued launches `limit` to end (their streams to get to
  /// them); false when some have not.
  bool awaitStreamLaunches(std::chrono::milliseconds limit) {
    auto until = Clock::now() + limit;
    while (streamLaunchesPending()) {
      if (Clock::now() > until)
        return false;
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    return true;
  }

  /// Close, when a stream has not reached its launch: every stream-ordered
  /// entry still in the ring becomes a PARK entry (same position), so that
  /// the launch, when its stream gets to it, runs nothing (the run's
  /// buffers may be gone by then) and ends. The poller rejects a read torn
  /// by the rewrite (the check byte) and reads again.
  void withdrawStreamEntries() {
    uint64_t first = ringTail > options.ringCapacity ? ringTail - options.ringCapacity : 0;
    for (uint64_t pos = first; pos < ringTail; ++pos) {
      RingEntry *slot = ring + (pos & (options.ringCapacity - 1));
      if (__atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE) != (uint32_t)(pos + 1) ||
          ringOp(*slot) != kRingOpStream)
        continue;
      RingEntry e = makeRingEntry((uint32_t)(pos + 1), 0, 0, kRingOpPark, 0);
      __atomic_store_n(&slot->run, e.run, __ATOMIC_RELAXED);
      __atomic_store_n(&slot->epoch, e.epoch, __ATOMIC_RELAXED);
      __atomic_store_n(&slot->ctl, e.ctl, __ATOMIC_RELEASE);
    }
  }

  /// Run slot `index` is done: bookkeeping, and its error if any.
  void finishRun(uint32_t index, const Status &result) {
    RunSlot &rs = runs[index];
    rs.busy = false;
    busyRuns.erase(std::find(busyRuns.begin(), busyRuns.end(), index));
    inFlightTiles[rs.queue] -= rs.tiles;
    if (rs.hasDeadline)
      --runsWithDeadline;
    rs.hasDeadline = false;
    if (rs.declared) { // counted and reported when it was declared
      rs.declared = false;
      return;
    }
    ++completed;
    if (!result.ok())
      recordFailure(rs.serial, result);
    finished(rs.serial, result);
  }

  void recordFailure(uint64_t serial, const Status &result) {
    ++failed;
    failures[serial] = result;
    failureOrder.push_back(serial);
    if (failureOrder.size() > kKeptFailures) {
      // Failures are recorded in completion order: a submission still
      // running may have an older serial and succeed later, so the bound
      // stops below the oldest one in flight.
      uint64_t bound = failureOrder.front() + 1;
      for (uint32_t r : busyRuns)
        bound = std::min(bound, runs[r].serial);
      forgottenBelow = std::max(forgottenBelow, bound);
      failures.erase(failureOrder.front());
      failureOrder.pop_front();
    }
  }

  /// Marks run slot `index` complete if its completion word says so.
  bool reap(uint32_t index) {
    RunSlot &rs = runs[index];
    uint32_t status = 0;
    if (!rs.busy || !completedWord(index, rs.epoch, status))
      return false;
    tasksRun += rs.numTasks;
    Status result;
    if (status == kStatusFailed && !rs.declared) {
      ErrorRecord e{};
      (void)backend->copyFromDevice(&e, rs.countersDev + offsetof(RunCounters, error),
                                    sizeof(e));
      result = Status::error(
          ErrorCode::TaskFailed,
          "a task of the graph failed: " +
              describeGraphTask(rs.graph, e.task, e.kind) + ", tile " +
              std::to_string(e.tile) + ", gpuos_dispatch returned " +
              std::to_string(e.code));
    }
    finishRun(index, result);
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
      return it->second;
    if (serial < forgottenBelow) // never a success it cannot vouch for
      return invalid("submission serial " + std::to_string(serial) +
                     " finished before the last " + std::to_string(kKeptFailures) +
                     " failures; whether it failed is no longer known");
    return Status::success();
  }

  /// What a wait under way when close() ran returns: the result of a run
  /// close drained (its callback got the same), Closed for one it could not.
  Status drainedResult(Submission s) const {
    uint64_t serial = s.id >> 24;
    const RunSlot &rs = runs[runOf(s.id)];
    if (rs.serial == serial && rs.busy && !rs.declared)
      return Status::error(ErrorCode::Closed, "the runtime is closed");
    return finishedStatus(serial);
  }

  /// Decodes a submission. done: finished (then `result` is its status).
  Status lookup(Submission s, uint32_t &index, uint16_t &epoch, bool &done,
                Status &result) {
    uint64_t serial = s.id >> 24;
    index = runOf(s.id);
    if (serial == 0 || serial >= nextSerial || index >= runs.size())
      return invalid("unknown submission " + std::to_string(s.id));
    RunSlot &rs = runs[index];
    if (rs.serial != serial || !rs.busy || rs.declared || reap(index)) {
      // The slot moved on (or just completed): this submission finished,
      // unless the serial is another slot's, still running (a forged id).
      if (rs.serial < serial ||
          (rs.serial != serial &&
           std::any_of(busyRuns.begin(), busyRuns.end(),
                       [&](uint32_t r) { return runs[r].serial == serial; })))
        return invalid("unknown submission " + std::to_string(s.id));
      done = true;
      result = finishedStatus(serial);
      return Status::success();
    }
    done = false;
    epoch = rs.epoch;
    return Status::success();
  }

  /// poll's and wait's check, under the lock. `ended`: the call is over and
  /// returns the Status (Closed, a bad submission, its result once done, or
  /// the kernel's failure); otherwise the submission is still running.
  /// settle's kernel check (checkResident: a driver call, about a
  /// microsecond and at times tens, made with the lock held) runs at most
  /// once per kSettleCheckInterval: a client polling in a loop would
  /// otherwise keep the others waiting for the lock (the benchmark's
  /// background thread, polling every 20 us, delayed urgent submit calls
  /// by up to 38 us on the H200). Faults and deadlines are still noticed
  /// within that interval.
  static constexpr std::chrono::microseconds kSettleCheckInterval{100};
  Clock::time_point nextSettleCheck{};

  Status settle(Submission s, uint32_t &index, uint16_t &epoch, bool &ended) {
    ended = true;
    if (closed)
      return Status::error(ErrorCode::Closed, "the runtime is closed");
    bool done = false;
    Status result;
    GPUOS_RETURN_IF_ERROR(lookup(s, index, epoch, done, result));
    if (done)
      return result;
    Clock::time_point now = Clock::now();
    if (fault.ok() && now < nextSettleCheck) {
      ended = false;
      return Status::success();
    }
    nextSettleCheck = now + kSettleCheckInterval;
    Status st = checkResident();
    if (!st.ok()) {
      // A recovery may just have finished this submission with its error.
      GPUOS_RETURN_IF_ERROR(lookup(s, index, epoch, done, result));
      return done ? result : st;
    }
    // The watchdog may just have declared this submission failed.
    GPUOS_RETURN_IF_ERROR(lookup(s, index, epoch, done, result));
    if (done)
      return result;
    ended = false;
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
      // Parked (or not launched: a swap's rebind, before the first
      // launch), nothing reads the ranges given back.
      GPUOS_RETURN_IF_ERROR(parkLocked());
      arena.reclaim();
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
    } else if (reclaimIdleRunSlot()) {
      index = freeRuns.back();
      freeRuns.pop_back();
    } else {
      return Status::error(ErrorCode::OutOfMemory,
                           "all " + std::to_string(options.maxRuns) +
                               " run slots are in use by submissions in flight "
                               "(raise RuntimeOptions::maxRuns)");
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
    RunRow row = L.runRow(roots, rs.rootsDev);
    st = upload(rs.countersDev, counters.data(), counters.size());
    if (st.ok() && rs.rootsDev)
      st = upload(rs.rootsDev, roots.data(), roots.size() * sizeof(QueueEntry));
    if (st.ok())
      st = upload(runTableDev + (uint64_t)index * sizeof(RunRow), &row, sizeof(row));
    if (!st.ok()) { // the slot and its arena ranges go back, as above
      arena.release(rs.countersDev);
      if (rs.rootsDev)
        arena.release(rs.rootsDev);
      giveBack();
      return st;
    }
    rs.graph = id;
    rs.inUse = true;
    rs.busy = false;
    rs.numTasks = L.numTasks();
    g.runSlots.push_back(index);
    return Status::success();
  }

  /// Run slot `index` (not busy) goes back to the free list.
  void releaseRunSlot(uint32_t index) {
    RunSlot &rs = runs[index];
    arena.release(rs.countersDev);
    if (rs.rootsDev)
      arena.release(rs.rootsDev);
    rs.inUse = false;
    freeRuns.push_back(index);
  }

  /// A graph keeps its run slots for its next submissions, so one burst of
  /// one graph's submissions could hold every slot: when none is left, an
  /// idle one is taken back from the graph that holds it.
  bool reclaimIdleRunSlot() {
    for (auto &entry : graphs) {
      std::vector<uint32_t> &slots = entry.second.runSlots;
      for (size_t k = 0; k < slots.size(); ++k) {
        if (runs[slots[k]].busy)
          continue;
        releaseRunSlot(slots[k]);
        slots.erase(slots.begin() + k);
        return true;
      }
    }
    return false;
  }

  void releaseGraph(GraphRecord &g) {
    arena.release(g.blobDev);
    for (uint32_t index : g.runSlots)
      releaseRunSlot(index);
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

  /// The options' own limits (no device needed: open checks them before it
  /// loads the driver, so a bad option is named even without a GPU).
  static Status checkOptions(const RuntimeOptions &o) {
    if (!isPowerOfTwo(o.ringCapacity) || o.ringCapacity < 32 ||
        o.ringCapacity > (1u << 24))
      return invalid("ringCapacity must be a power of two in [32, 2^24]");
    if (!isPowerOfTwo(o.queueCapacity) || o.queueCapacity < 64 ||
        o.queueCapacity > (1u << 26))
      return invalid("queueCapacity must be a power of two in [64, 2^26]");
    if (o.maxRuns < 1 || o.maxRuns > (1u << 24))
      return invalid("maxRuns must be in [1, 2^24]");
    if (o.workersPerSM > 32)
      return invalid("workersPerSM must be in [0, 32] (0: as many as fit)");
    if (o.traceRecords > (1u << 20))
      return invalid("traceRecords must be at most 2^20");
    if (o.blockThreads && (o.blockThreads % 32 || o.blockThreads > 1024))
      return invalid("blockThreads must be 0 or a multiple of 32 up to 1024");
    if (o.arenaBytes < (1u << 16))
      return invalid("arenaBytes must be at least 64 KiB");
    if (o.timeoutUs < 0 || o.hangGraceUs < 0)
      return invalid("timeoutUs and hangGraceUs must not be negative");
    return Status::success();
  }

  Status setup() {
    GPUOS_RETURN_IF_ERROR(checkOptions(options));
    return allocateShared();
  }

  /// Everything the protocol needs in memory: the mapped ring, shared words,
  /// completion words and job records; the control block, queues, run
  /// table, block statistics and the arena. Run at open and again after a
  /// context reset (when all of it was lost).
  Status allocateShared() {
    const RuntimeOptions &o = options;
    GPUOS_RETURN_IF_ERROR(backend->makeCurrent());
    const uint32_t sms = (uint32_t)std::max(1, backend->info().multiprocessors);
    if (o.urgentSMs >= sms)
      return invalid("urgentSMs is " + std::to_string(o.urgentSMs) +
                     ", but the device has " + std::to_string(sms) +
                     " SMs: at least one must serve the other priorities");
    maxBlocks = sms * maxWorkersPerSM() + 1;

    size_t ringBytes = (size_t)o.ringCapacity * sizeof(RingEntry);
    size_t hsOffset = (ringBytes + 127) & ~size_t(127);
    size_t completionOffset = (hsOffset + sizeof(HostShared) + 127) & ~size_t(127);
    size_t jobsOffset =
        (completionOffset + (size_t)o.maxRuns * sizeof(uint32_t) + 127) & ~size_t(127);
    size_t mappedBytes = jobsOffset + (size_t)maxBlocks * sizeof(JobRecord);
    GPUOS_RETURN_IF_ERROR(backend->allocMapped(mappedBytes, mappedHost, mappedDev));
    std::memset(mappedHost, 0, mappedBytes);
    ring = static_cast<RingEntry *>(mappedHost);
    hs = reinterpret_cast<HostShared *>(static_cast<char *>(mappedHost) + hsOffset);
    completion = reinterpret_cast<uint32_t *>(static_cast<char *>(mappedHost) +
                                              completionOffset);
    jobs = reinterpret_cast<JobRecord *>(static_cast<char *>(mappedHost) + jobsOffset);
    ringDev = mappedDev;
    hsDev = mappedDev + hsOffset;
    completionDev = mappedDev + completionOffset;
    jobsDev = mappedDev + jobsOffset;
    std::vector<BlockStats> blockZero(maxBlocks);
    std::memset(blockZero.data(), 0, blockZero.size() * sizeof(BlockStats));
    GPUOS_RETURN_IF_ERROR(
        backend->allocDevice(blockZero.size() * sizeof(BlockStats), blockStatsDev));
    GPUOS_RETURN_IF_ERROR(upload(blockStatsDev, blockZero.data(),
                                 blockZero.size() * sizeof(BlockStats)));
    if (!o.recordJobs) {
      // The kernel still stores its records, into device memory nobody
      // reads: no PCIe traffic, and no branch on the device.
      GPUOS_RETURN_IF_ERROR(
          backend->allocDevice((size_t)maxBlocks * sizeof(JobRecord), jobsScratchDev));
    }

    traceDev = 0;
    if (o.traceRecords) {
      uint32_t n = 1;
      while (n < o.traceRecords)
        n <<= 1;
      traceCount = n;
      // The poller's ring, then kHopTraceSlots per block for the workers.
      size_t slots = n + (size_t)maxBlocks * kHopTraceSlots;
      std::vector<TraceSlot> zero(slots);
      std::memset(zero.data(), 0, slots * sizeof(TraceSlot));
      GPUOS_RETURN_IF_ERROR(backend->allocDevice(slots * sizeof(TraceSlot), traceDev));
      GPUOS_RETURN_IF_ERROR(upload(traceDev, zero.data(), slots * sizeof(TraceSlot)));
    }

    GPUOS_RETURN_IF_ERROR(backend->allocDevice(sizeof(DeviceControl), ctlDev));
    DeviceControl zero{};
    GPUOS_RETURN_IF_ERROR(upload(ctlDev, &zero, sizeof(zero)));
    for (uint32_t q = 0; q < kNumQueues; ++q)
      GPUOS_RETURN_IF_ERROR(
          backend->allocDevice((size_t)o.queueCapacity * sizeof(QueueEntry), queueDev[q]));
    GPUOS_RETURN_IF_ERROR(initQueues());
    std::vector<RunRow> rows(o.maxRuns);
    GPUOS_RETURN_IF_ERROR(
        backend->allocDevice(rows.size() * sizeof(RunRow), runTableDev));
    GPUOS_RETURN_IF_ERROR(upload(runTableDev, rows.data(), rows.size() * sizeof(RunRow)));
    GPUOS_RETURN_IF_ERROR(backend->allocDevice(o.arenaBytes, arenaDev));
    arena.reset(arenaDev, o.arenaBytes);
    return Status::success();
  }

  /// Every queue slot free for its first position.
  Status initQueues() {
    std::vector<QueueEntry> slots(options.queueCapacity);
    for (uint32_t i = 0; i < options.queueCapacity; ++i)
      slots[i].seq = i; // slot i is free for position i
    for (uint32_t q = 0; q < kNumQueues; ++q)
      GPUOS_RETURN_IF_ERROR(
          upload(queueDev[q], slots.data(), slots.size() * sizeof(QueueEntry)));
    return Status::success();
  }

  void shutdown() {
    if (!backend)
      return;
    (void)backend->makeCurrent();
    closing = true; // no recovery from here on
    bool hung = false; // a declared submission still on the device
    for (uint32_t index : busyRuns)
      hung |= runs[index].declared;
    int64_t parkUs = hung ? std::max<int64_t>(options.hangGraceUs, 100'000) : 20'000'000;
    // A launch queued behind a caller's stream ends when that stream gets
    // to it: a second for that. A stream that does not (held, blocked)
    // would keep parking from returning and make every free wait
    // (cuMemFree and cuModuleUnload wait for all streams): then its entries
    // are withdrawn, nothing is freed, and the backend is left to process
    // exit.
    bool streamsPast = awaitStreamLaunches(std::chrono::milliseconds(1000));
    if (!streamsPast)
      withdrawStreamEntries();
    if (fault.ok() && launched && streamsPast && !parkLocked(parkUs).ok() && fault.ok()) {
      if (forceStop(5'000'000)) {
        (void)waitExit();
        launched = false;
      } else {
        fault = Status::error(ErrorCode::Faulted, "the resident kernel is wedged");
      }
    }
    if (fault.ok()) {
      reapAll(); // drained: every run's completion is there (callbacks)
      for (auto &[id, g] : graphs)
        releaseGraph(g);
      graphs.clear();
      for (auto &[p, bytes] : allocations)
        pendingFrees.push_back(p);
      allocations.clear();
      if (streamsPast)
        safePoint();
      else
        pendingFrees.clear(); // left to process exit, with the backend below
    }
    // The completion words go with the mapped memory, freed next or with
    // the backend below (a faulted or isolated one unmaps it): no lock-free
    // reader (wait, the notifier) may still be in them.
    fenceWaiters();
    if (fault.ok() && streamsPast) {
      for (uint64_t *p : {&ctlDev, &runTableDev, &blockStatsDev, &arenaDev,
                          &jobsScratchDev, &traceDev, &queueDev[0], &queueDev[1],
                          &queueDev[2], &queueDev[3], &queueDev[4], &queueDev[5]})
        if (*p)
          (void)backend->freeDevice(*p);
      if (mappedHost)
        backend->freeMapped(mappedHost);
      if (imageLoaded)
        backend->unloadImage();
    } else if (fault.ok() && mappedHost) {
      backend->leakMapped(mappedHost); // a queued launch will still read it
    }
    mappedHost = nullptr;
    bool running = false;
    if (!fault.ok() && backend->info().isolated()) {
      backend->abandon(); // kills the device host, and any kernel with it,
      backend.reset();    // without waiting for a tile first
    } else if (!fault.ok() && (!backend->residentStatus(running).ok() || !running)) {
      // Faulted: the context is unusable; the backend's destructor
      // releases it, which frees everything.
      backend.reset();
    } else if (!fault.ok() || !streamsPast) {
      // Wedged: a kernel that ignores stop; or a launch still queued behind
      // a caller's stream. Module unload and context teardown would block
      // on them; leave them to process exit.
      backend->abandon();
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
    c.blockStats = blockStatsDev;
    c.jobs = options.recordJobs ? jobsDev : jobsScratchDev;
    c.idleNs = (uint64_t)options.idleParkUs * 1000;
    c.ringMask = options.ringCapacity - 1;
    c.queueMask = options.queueCapacity - 1;
    c.numBlocks = shape.blocks;
    c.maxRuns = options.maxRuns;
    c.protocol = kProtocolVersion;
    c.idleSleepNs = options.workerIdleSleepNs;
    c.inlineUrgent = options.inlineUrgentSingletons ? 1u : 0u;
    c.continuations = options.continueSuccessors ? 1u : 0u;
    c.ringAcquireGpu = options.ringAcquireGpuScope ? 1u : 0u;
    c.settleAfterInline = options.settleAfterInline ? 1u : 0u;
    c.trace = traceDev;
    c.traceMask = traceDev ? traceCount - 1 : 0u;
    c.traceAllTiles = traceDev && options.traceAllTiles ? 1u : 0u;
    c.urgentExclusive = options.urgentExclusive ? 1u : 0u;
    static_assert((uint32_t)GangPolicy::WhenIdle == kGangWhenIdle &&
                      (uint32_t)GangPolicy::OneAtATime == kGangOneAtATime &&
                      (uint32_t)GangPolicy::UrgentAlone == kGangUrgentAlone,
                  "GangPolicy");
    c.gangPolicy = (uint32_t)options.gangs;
    c.urgentSMs = options.urgentSMs;
    // Only the configuration: the device state after it (ring head, queue
    // counters, whose values the slots' sequence numbers depend on) stays.
    return upload(ctlDev, &c, offsetof(DeviceControl, ringHead));
  }
};

} // namespace gpuos::runtime

#endif // GPUOS_RUNTIME_RUNTIMEIMPL_H
