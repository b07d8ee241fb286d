//===- Runtime.h - the resident-kernel runtime, C++ API ---------*- C++ -*-===//
//
//   std::unique_ptr<Runtime> rt;
//   Runtime::open(0, RuntimeOptions(), rt);          // a GPU, or "no GPU: ..."
//   rt->loadImageFiles("img.cubin", "img.json");     // cubin + manifest
//   Buffer x; rt->alloc(4096 * 4, x);                // device memory
//   GraphId g; rt->createGraph(spec, g);             // validated, uploaded once
//   Submission s; rt->submit(g, Priority::Urgent, s);
//   rt->wait(s);                                     // or poll()
//   rt->park();                                      // a safe point
//
// One resident kernel per Runtime executes whole graphs: dependencies are
// resolved on the device, tiles spread over all SMs, urgent work first at
// every tile boundary. The kernel parks after `idleParkUs` without work (or
// on park()) and is relaunched by the next submit. Every call is
// thread-safe; wait() spins on host memory without holding the lock.
// Invalid arguments are rejected on the host with ErrorCode::InvalidArgument
// before anything reaches the GPU.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_RUNTIME_RUNTIME_H
#define GPUOS_RUNTIME_RUNTIME_H

#include "gpuos/runtime/Backend.h"
#include "gpuos/runtime/GraphLayout.h"
#include "gpuos/runtime/Manifest.h"
#include "gpuos/runtime/Status.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gpuos::runtime {

/// When urgent graphs of several tasks run as gangs (RuntimeOptions::gangs).
enum class GangPolicy : uint32_t {
  Off = 0,        // never: always through the ready queues
  WhenIdle = 1,   // when no other run is in flight
  OneAtATime = 2, // when no other gang is in flight, also beside other
                  // work (its members then wait up to a tile of it to start)
  UrgentAlone = 3, // when no other urgent run is in flight: beside normal
                   // and background work as OneAtATime, but not beside
                   // other urgent runs (a batch of urgent calls back to
                   // back goes through the queues, as WhenIdle)
};

struct RuntimeOptions {
  /// Worker blocks per multiprocessor (fewer if they do not fit); 0: as
  /// many as fit next to each other (occupancy of the image's resident
  /// kernel with its registers, block size and shared memory), at most
  /// kAutoWorkersPerSM. More resident threads per SM keep more bytes in
  /// flight for memory-bound tiles (docs/runtime.md, "Occupancy").
  uint32_t workersPerSM = 0;
  static constexpr uint32_t kAutoWorkersPerSM = 4;
  /// Park after this long with nothing in flight; 0: only on park().
  uint32_t idleParkUs = 20000;
  /// Submission ring entries in host memory (power of two).
  uint32_t ringCapacity = 4096;
  /// Tiles per ready queue (power of two); half may be in flight at once.
  uint32_t queueCapacity = 1u << 16;
  /// The tiles of one priority in flight at once, so also the most tiles
  /// one graph may have (a larger one is refused at creation).
  uint64_t maxTilesInFlight() const { return queueCapacity / 2; }
  /// Run slots: graphs x submissions of one graph in flight at once.
  uint32_t maxRuns = 4096;
  /// Device memory for graph descriptors, argument blocks and counters.
  uint64_t arenaBytes = 64ull << 20;
  /// Threads per block; 0: the largest block_size in the manifest.
  uint32_t blockThreads = 0;
  /// A private CUDA context instead of the device's primary context.
  bool ownContext = false;
  /// Idle workers nap this long between polls of the ready queues (after a
  /// few hundred empty polls); 0 spins. Trades L2 traffic for latency.
  uint32_t workerIdleSleepNs = 0;
  /// Block 0 (the poller's) runs urgent graphs of one task with one tile
  /// itself instead of queueing them: the lowest latency, but ring polling
  /// pauses while such a tile runs, so keep urgent singletons short. Only
  /// the last entry of a ring read (up to 32 entries) runs inline; those
  /// before it in the same read go to the queues and the workers.
  bool inlineUrgentSingletons = true;
  /// A worker that makes a one-tile successor ready runs it next itself
  /// (after checking that no higher-priority work waits) instead of
  /// queueing it for another worker: shorter dependent chains.
  bool continueSuccessors = true;
  /// Every submission must finish within this long after submit() (0: no
  /// limit; setGraphTimeout overrides it per graph). Past it, the
  /// submission fails with DeadlineExceeded naming the tile(s) still
  /// running; the runtime goes on with everything else.
  int64_t timeoutUs = 0;
  /// A tile cannot be preempted: when a submission past its deadline still
  /// has a tile running this much later, the kernel is declared hung and
  /// the context is recreated as after a fault (see recoverFaults).
  int64_t hangGraceUs = 1'000'000;
  /// After a sticky device error (illegal address, ...) or a hang: fail
  /// what was in flight, recreate the context, reload the image and
  /// re-upload the graphs that survive. Off: the runtime stays Faulted.
  bool recoverFaults = true;
  /// The device's context lives in a helper process, gpuos-device-host
  /// (DeviceHost.h): a fault that the driver keeps for the whole process
  /// (an illegal address) or a tile that never ends is survived by ending
  /// that process and starting another. Submit and wait still touch only
  /// shared memory; allocations, copies and launches become requests to
  /// it. Device pointers from elsewhere in this process (another context,
  /// e.g. PyTorch's tensors) mean nothing there: use buffers from alloc().
  bool isolateDevice = false;
  /// gpuos-device-host's path; empty: findDeviceHost().
  std::string deviceHost;
  /// Workers write what they run into host memory (one 16-byte posted
  /// store per tile), so faults and missed deadlines name the task.
  bool recordJobs = true;
  /// Experimental: the poller's ring loads acquire at GPU scope instead of
  /// the system scope the PTX memory model asks for (see docs/runtime.md,
  /// "Round trip"). Off by default.
  bool ringAcquireGpuScope = false;
  /// After block 0 ran an inline singleton, it waits for the completion
  /// store to perform (fence.sc.sys, ~0.5 us) before it reads the ring
  /// again. A caller that submits when it sees a completion writes its
  /// next entry ~1 us after that store; a ring read issued at once reaches
  /// host memory before the entry is there, misses it, and the entry waits
  /// a whole PCIe read more (docs/runtime.md, "Round trip").
  bool settleAfterInline = true;
  /// Diagnostics: block 0 records timestamps (SM cycles, globaltimer) of
  /// the last this-many inline urgent singletons it ran (poll issued, entry
  /// seen, acquired, row read, tile start/end, completion stored and
  /// performed); readTrace() returns them. 0: off. Costs one fence.sc.sys
  /// after each traced completion. Rounded up to a power of two. Workers
  /// then also stamp each step of their last 64 continuation hops
  /// (readHopTrace; a few stores per hop).
  uint32_t traceRecords = 0;
  /// With traceRecords: workers stamp every tile they run, not only
  /// continuation hops (readHopTrace then shows where a worker's time
  /// between tiles goes; suite-driver profile --trace-tiles).
  bool traceAllTiles = false;
  /// GPU sharing: while an urgent submission that goes through the queues
  /// is in flight, workers take no normal or background work (they leave a
  /// range at its next tile boundary and wait), so urgent tiles do not
  /// share the SMs' memory bandwidth with bulk work. Background resumes
  /// when no urgent run is in flight, so it is never starved by idle urgent
  /// traffic, but a stream of urgent work that never pauses holds it back.
  /// Off by default; docs/runtime.md, "Urgent exclusivity".
  bool urgentExclusive = false;
  /// Latency: an urgent submission of a graph of several tasks may run as
  /// a gang: min(workers, the graph's width) workers each take a
  /// fixed share of every task's tiles, in task order, and wait on the
  /// device's dependency counters for the tasks they need: no queue
  /// entries between dependent tasks (docs/runtime.md, "Gangs"). Graphs
  /// whose dependencies do not point to earlier tasks, and chains of
  /// one-tile tasks (width 1: continuations run them), never run as gangs.
  GangPolicy gangs = GangPolicy::UrgentAlone;
  /// GPU sharing: the workers on the poller's SM and on urgentSMs - 1 other
  /// SMs (the lowest-numbered) serve only urgent work, so what urgent work
  /// keeps in an SM (instructions, address translations) is not replaced
  /// by background tiles between urgent calls; a gang then has at most as
  /// many members as there are such workers. Other work runs on
  /// the remaining SMs; urgent work on all of them. 0: off. Must be below
  /// the device's SM count, and leave a worker to the other priorities
  /// however the blocks are placed (loadImage refuses it when urgentSMs
  /// SMs could hold every worker). Experimental, not in the C API
  /// (docs/runtime.md, "Urgent SMs").
  uint32_t urgentSMs = 0;
};

/// One traced inline singleton (RuntimeOptions::traceRecords): SM cycles
/// of block 0 at each step, and the globaltimer when the entry was seen.
struct TraceRecord {
  uint32_t run = 0, epoch = 0;
  uint64_t seenNs = 0;       // %globaltimer when the ring read returned
  uint64_t pollIssued = 0;   // the ring read that found it was issued
  uint64_t seen = 0;         // ... and returned
  uint64_t acquired = 0;     // after the acquire fence
  uint64_t rowRead = 0;      // run row read, job set up (startRun)
  uint64_t tileStart = 0;    // block 0 enters gpuos_dispatch
  uint64_t tileEnd = 0;      // after the tile and its barrier
  uint64_t completed = 0;    // the completion st.release.sys issued
  uint64_t performed = 0;    // a fence.sc.sys after it returned
  // A run the poller published to the queues instead (no tile, no
  // completion above): rowRead, then its entries written (lane 0's share)
  // and the queue's reserve stored. For an expanded run (non-urgent, more
  // than 32 root ranges, and beside other runs, or alone with one root task
  // of more than two tiles a range) that is its one kExpandKind entry (a
  // worker publishes the ranges later); for a split one (non-urgent, alone,
  // more than 256 ranges) its entry for the ranges past 255 and the first
  // 255 ranges.
  bool queued = false;
  uint64_t entriesWritten = 0, published = 0;
};

/// How a worker got the tile a HopTraceRecord ends with (the device's
/// proto::TileOrigin values).
enum class TileOrigin : uint32_t {
  FromQueue = 0, // picked from a ready queue (a range's first tile)
  Continued = 1, // the successor the block kept, without a queue
  FromRange = 2, // the next tile of the range the block holds
  FromGang = 3,  // the next tile of the gang member the block runs
};

/// One traced continuation hop of a worker (RuntimeOptions::traceRecords),
/// or with traceAllTiles any tile: thread 0's SM cycles from the end of the
/// block's previous tile (after its barrier) to the end of this one
/// (Worker.h, HopTrace).
struct HopTraceRecord {
  uint32_t block = 0, task = 0; // the worker; the (successor's) task index
  TileOrigin origin = TileOrigin::FromQueue; // how the block got the tile
  uint64_t endNs = 0;           // %globaltimer at the hop's end
  uint64_t tileEnd = 0;         // previous tile ended (after its barrier)
  uint64_t finished = 0;        // finishTile returned
  uint64_t finishDone = 0;      // statistics stored, warp 0 section passed
  uint64_t decided = 0;         // the continuation chosen (priority check)
  uint64_t started = 0;         // prefetch, job record: at the barrier
  uint64_t tileStart = 0;       // after the barrier
  uint64_t dispatched = 0;      // thread 0 returned from gpuos_dispatch
  uint64_t nextTileEnd = 0;     // after the barrier that ends that tile
  uint64_t nextFinished = 0;    // finishing that tile returned (its
                                // counters, a completion), if recorded yet
};

struct Buffer {
  uint64_t ptr = 0;
  uint64_t bytes = 0;
  /// For binding: the whole allocation, shape and dtype unchecked.
  BufferArg arg() const { return BufferArg{ptr, bytes, {}, {}}; }
};

using GraphId = uint32_t;

/// One submission of a graph; valid until the runtime is closed.
struct Submission {
  uint64_t id = 0;
};

struct Stats {
  uint64_t submissions = 0;
  uint64_t completed = 0;
  uint64_t failed = 0;
  uint64_t tasksRun = 0; // tasks of completed submissions
  uint64_t gangRuns = 0; // submissions run as gangs (gangs), since
                         // open or the last recovery
  uint64_t tilesRun = 0; // sum of tilesPerBlock
  uint64_t launches = 0; // kernel launches (first + relaunches)
  uint64_t parks = 0;    // device-side parks (idle and requested)
  uint64_t parkRequests = 0;
  uint32_t workers = 0;      // worker blocks of the current launch shape
  uint32_t blockThreads = 0;
  bool resident = false;     // the kernel was running at the last look
  uint32_t runsInFlight = 0; // submissions not yet seen complete
  uint64_t queueDepth[3] = {0, 0, 0}; // ready queue entries (tile ranges)
                                      // per priority (approx.)
  uint64_t queueTotal[3] = {0, 0, 0}; // tiles ever queued per priority
  std::vector<uint64_t> tilesPerBlock; // index 0: the poller's inline tiles
  uint64_t swaps = 0;          // images installed while one was loaded
  uint64_t recoveries = 0;     // contexts recreated after a fault or hang
  uint64_t deadlineMisses = 0; // submissions failed with DeadlineExceeded
  uint64_t hostQueued = 0;     // submissions queued on the host while
                               // quiesced (a swap or atSafePoint), ever
  /// The last loadImage, in microseconds: drain + park, module load (0 when
  /// the image was still cached), install + rebinding graphs, flushing the
  /// host queue + relaunch.
  struct SwapPhases {
    double parkUs = 0, loadUs = 0, installUs = 0, relaunchUs = 0;
  } lastSwap;
  /// Per multiprocessor (blocks on the same SM summed), from the blocks'
  /// own clocks: busy = inside tiles, active = resident. Since open().
  struct SM {
    uint32_t smid = 0;
    uint32_t blocks = 0;
    uint64_t tiles = 0;
    uint64_t busyCycles = 0;
    uint64_t activeCycles = 0;
    double busyFraction() const {
      return activeCycles ? (double)busyCycles / (double)activeCycles : 0.0;
    }
  };
  std::vector<SM> perSM; // sorted by smid; block 0 (the poller) included
};

class Runtime {
public:
  /// Opens GPU `ordinal` (CUDA driver via dlopen): NoGpu without a driver.
  static Status open(int ordinal, const RuntimeOptions &options,
                     std::unique_ptr<Runtime> &out);
  /// Opens on any backend (tests use makeSimBackend).
  static Status openWithBackend(std::unique_ptr<Backend> backend,
                                const RuntimeOptions &options,
                                std::unique_ptr<Runtime> &out);
  ~Runtime();
  Runtime(const Runtime &) = delete;
  Runtime &operator=(const Runtime &) = delete;

  /// Installs an image at a safe point: drains what is in flight, parks,
  /// loads the new module, relaunches. Submissions made meanwhile (other
  /// threads) are queued on the host and run on the new image. Graphs
  /// survive when all their kinds exist in the new image with an argument
  /// layout that still validates (kinds are rebound by name); the others
  /// fail on their next submit with a message. If the new image cannot be
  /// loaded, the old one stays installed.
  Status loadImage(std::vector<char> cubin, ImageManifest manifest);
  Status loadImage(std::vector<char> cubin, const std::string &manifestJson);
  Status loadImageFiles(const std::string &cubinPath,
                        const std::string &manifestPath);
  /// Null before an image is loaded.
  const ImageManifest *manifest() const;

  Status alloc(uint64_t bytes, Buffer &out);
  /// Frees a buffer from alloc(); the memory is returned at the next safe
  /// point (cuMemFree would block while the kernel is resident).
  Status free(uint64_t ptr);
  Status copyToDevice(uint64_t dst, const void *src, uint64_t bytes);
  Status copyFromDevice(void *dst, uint64_t src, uint64_t bytes);

  /// Validates `spec` against the image and uploads it once.
  Status createGraph(const GraphSpec &spec, GraphId &out);
  /// A graph of the manifest ("graph" fields and depends_on), with
  /// `bindings` for its inputs and outputs by buffer name; intermediates
  /// are allocated by the runtime and owned by the graph.
  Status createGraphFromManifest(const std::string &graph,
                                 const std::map<std::string, BufferArg> &bindings,
                                 GraphId &out);
  /// The graph must have nothing in flight.
  Status destroyGraph(GraphId graph);

  Status submit(GraphId graph, Priority priority, Submission &out);
  /// With the graph's default priority.
  Status submit(GraphId graph, Submission &out);
  /// A stream-ordered submission: the run starts after the work enqueued on
  /// `stream` (a CUstream of the runtime's context; 0 is the legacy default
  /// stream) before this call, and work enqueued on it after this call
  /// starts after the run completes, as with a kernel launched on that
  /// stream; the host does not wait. The run's ring entry is taken only by
  /// a launch of the resident kernel that the host enqueues on the kernel's
  /// stream behind an event of `stream`; a launch before it parks when it
  /// meets the entry, so the stream's earlier work (kernels too) gets the
  /// SMs, and `stream` waits for an event after the launch, which parks as
  /// soon as it is idle. Submissions behind the entry in the ring (from any
  /// thread) wait for it. wait/poll/onComplete work as for submit(). A
  /// failed run still lets the stream go on (its outputs are undefined):
  /// the error is what wait/poll return. A stream capturing a CUDA graph
  /// is refused (InvalidArgument): the run would not be recorded. The GPU
  /// backend and the simulator (a SimStream) only; Unsupported elsewhere.
  /// docs/runtime.md, "Stream-ordered submissions".
  Status submitOnStream(GraphId graph, Priority priority, uint64_t stream,
                        Submission &out);
  /// With the graph's default priority.
  Status submitOnStream(GraphId graph, uint64_t stream, Submission &out);
  /// Ok when done; Timeout (still running), TaskFailed, Faulted, Closed.
  /// timeoutUs < 0: no limit.
  Status wait(Submission submission, int64_t timeoutUs = -1);
  /// Ok when done, NotReady when not, or the submission's error.
  Status poll(Submission submission);
  /// Calls `callback` once with the submission's final status (what wait
  /// would return: Ok, TaskFailed, Faulted, DeadlineExceeded; Closed when
  /// the runtime is closed first), on the runtime's notifier thread, which
  /// watches the submissions that have callbacks. A submission that has
  /// already finished gets its call soon after. Callbacks may call the
  /// runtime (submit, wait, close); they must not destroy it, and should
  /// be short: they run one after another. An exception a callback throws
  /// is caught and dropped. close() returns after the callbacks of every
  /// submission it drained have been called.
  using CompletionCallback = std::function<void(Submission, const Status &)>;
  Status onComplete(Submission submission, CompletionCallback callback);

  /// Drains what is in flight and parks the kernel (returns once it has
  /// exited). Deferred frees happen here. A no-op when already parked.
  Status park();
  /// Runs `action` at a safe point: what is in flight is drained and the
  /// kernel parked, and it stays parked until `action` returns (submissions
  /// from other threads meanwhile are queued on the host and run after).
  /// For host work that needs a quiescent GPU: freeing memory, loading
  /// modules, synchronizing the device. `action` may call alloc/free,
  /// copies, createGraph, destroyGraph, submit (queued), stats; not
  /// loadImage, atSafePoint or close (refused: InvalidArgument). Returns
  /// the action's status.
  Status atSafePoint(const std::function<Status()> &action);
  /// Overrides RuntimeOptions::timeoutUs for `graph` (0: no limit).
  Status setGraphTimeout(GraphId graph, int64_t timeoutUs);
  Status stats(Stats &out);
  /// The trace records (RuntimeOptions::traceRecords), oldest first; empty
  /// when tracing is off. Reading does not clear them.
  Status readTrace(std::vector<TraceRecord> &out);
  /// The run slot submission `s` uses, as TraceRecord::run names it
  /// (diagnostics: a submission's trace records).
  static uint32_t runSlotOf(Submission s);
  /// The workers' traced continuation hops (up to 64 per block, in no
  /// particular order); empty when tracing is off.
  Status readHopTrace(std::vector<HopTraceRecord> &out);
  /// Parks, frees everything; later calls return ErrorCode::Closed.
  Status close();
  bool closed() const;

  const BackendInfo &deviceInfo() const;

  struct Impl;

private:
  explicit Runtime(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Reads a whole file (for cubins and manifests).
Status readFile(const std::string &path, std::vector<char> &out);

} // namespace gpuos::runtime

#endif // GPUOS_RUNTIME_RUNTIME_H
