//===- Protocol.h - memory shared by the host runtime and the kernel -*- C++ -*-===//
//
// The one description of every structure that the host runtime and the
// resident kernel (runtime/device/) both read or write. It compiles as plain
// C++17 (the host library, the CPU simulator) and as CUDA (the relocatable
// device library), so the two sides cannot disagree about a layout; the
// static_asserts pin sizes and offsets that the device code relies on.
//
// Where each structure lives and who writes it:
//
//   pinned host memory, mapped into the device (one allocation):
//     RingEntry ring[ringCapacity]   host writes, the poller reads (PCIe)
//     HostShared                     device writes (plain/st.release.sys
//                                    stores, never atomics), host reads
//     uint32_t completion[maxRuns]   device writes, host reads
//     uint32_t gates[maxRuns]        a CUDA stream writes (stream-ordered
//                                    submissions), the poller reads
//   device memory:
//     DeviceControl                  queue counters, flags, configuration
//     QueueEntry slots[kNumQueues][queueCapacity]
//     RunRow runTable[maxRuns]       one per run slot (a submittable copy of
//                                    a graph's counters)
//     TaskDesc tasks[] + successor lists, argument blocks, RunCounters,
//     root QueueEntry templates      in the runtime's arena
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_RUNTIME_PROTOCOL_H
#define GPUOS_RUNTIME_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define GPUOS_PROTO_HD __host__ __device__ inline
#else
#define GPUOS_PROTO_HD inline
#endif

namespace gpuos::runtime::proto {

/// Bumped whenever a layout below or the meaning of a field changes. The
/// device library exports it as `gpuos_runtime_protocol`; loading an image
/// linked against another version is refused.
constexpr uint32_t kProtocolVersion = 18;

/// Priority classes; lower goes first.
constexpr uint32_t kNumPriorities = 3;
constexpr uint32_t kPriorityUrgent = 0, kPriorityNormal = 1,
                   kPriorityBackground = 2;

/// Two ready queues per priority: the root queue, written only by the
/// poller (one producer: no atomics and no waiting on the submission path),
/// and the shared queue, where workers publish tasks whose dependencies
/// finished. Workers look at them in index order: urgent root, urgent
/// shared, normal root, ...
constexpr uint32_t kNumQueues = 2 * kNumPriorities;
GPUOS_PROTO_HD uint32_t rootQueue(uint32_t priority) { return 2 * priority; }
GPUOS_PROTO_HD uint32_t sharedQueue(uint32_t priority) {
  return 2 * priority + 1;
}
GPUOS_PROTO_HD uint32_t priorityOfQueue(uint32_t q) { return q / 2; }

//===----------------------------------------------------------------------===//
// Submission ring (host -> poller)
//===----------------------------------------------------------------------===//

constexpr uint32_t kRingOpSubmit = 1; // start run slot `run` at `epoch`
constexpr uint32_t kRingOpPark = 2;   // drain, then park
/// Start run slot `run` at `epoch`, but only in a launch whose ticket
/// releases the entry (LaunchTicket::released, cyclic >= its seq): a
/// stream-ordered submission (Runtime::submitOnStream), whose launch the
/// host enqueues on the kernel's stream behind an event of the caller's
/// stream. A launch that meets an entry it does not release parks (the
/// launch that releases it is queued behind this one); nothing behind the
/// entry in the ring is taken before it. (Protocol 16.)
constexpr uint32_t kRingOpStream = 3;

/// What one launch of the resident kernel is given by value (its second
/// parameter): the launches of a runtime are queued on one stream, and each
/// may be allowed a different part of the ring.
struct LaunchTicket {
  /// The seq of the last kRingOpStream entry this launch may take.
  uint32_t released;
  /// Park as soon as nothing is in flight and the ring is empty, instead
  /// of after idleNs: a stream waits for this launch to end.
  uint32_t parkWhenIdle;
};

/// One 16-byte ring entry. The host writes run, epoch, ctl and then seq
/// (x86 stores become visible in program order); the poller reads all 16
/// bytes with one vector load. `seq` is the ring position + 1, so a stale
/// entry from the previous lap never matches; `ctl` carries an 8-bit check
/// of all fields, so a read that mixed old and new words is rejected and
/// simply read again.
struct alignas(16) RingEntry {
  uint32_t seq;
  uint32_t run;
  uint32_t epoch;
  uint32_t ctl; // op (bits 0-3) | priority (bits 4-7) | check (bits 24-31)
};
static_assert(sizeof(RingEntry) == 16, "one vector load");

GPUOS_PROTO_HD uint32_t ringCheck(uint32_t seq, uint32_t run, uint32_t epoch,
                                  uint32_t low) {
  uint32_t h = seq * 0x9E3779B1u;
  h ^= run + 0x7F4A7C15u + (h << 6) + (h >> 2);
  h ^= epoch + 0x85EBCA6Bu + (h << 6) + (h >> 2);
  h ^= low + 0xC2B2AE35u + (h << 6) + (h >> 2);
  h ^= h >> 16;
  return (h ^ (h >> 8)) & 0xFFu;
}

GPUOS_PROTO_HD RingEntry makeRingEntry(uint32_t seq, uint32_t run,
                                       uint32_t epoch, uint32_t op,
                                       uint32_t priority) {
  uint32_t low = (op & 0xFu) | ((priority & 0xFu) << 4);
  RingEntry e;
  e.seq = seq;
  e.run = run;
  e.epoch = epoch;
  e.ctl = low | (ringCheck(seq, run, epoch, low) << 24);
  return e;
}

/// True when `e` is the complete entry for the position whose seq is
/// `expectedSeq`. Zeroed memory is never valid (op 0 is not an op).
GPUOS_PROTO_HD bool ringEntryValid(const RingEntry &e, uint32_t expectedSeq) {
  uint32_t low = e.ctl & 0xFFu;
  uint32_t op = low & 0xFu;
  return e.seq == expectedSeq &&
         (op == kRingOpSubmit || op == kRingOpPark || op == kRingOpStream) &&
         (e.ctl >> 24) == ringCheck(e.seq, e.run, e.epoch, low) &&
         ((e.ctl >> 8) & 0xFFFFu) == 0;
}
GPUOS_PROTO_HD uint32_t ringOp(const RingEntry &e) { return e.ctl & 0xFu; }
GPUOS_PROTO_HD uint32_t ringPriority(const RingEntry &e) {
  return (e.ctl >> 4) & 0xFu;
}
/// A stream-ordered entry that launch `t` may not take yet.
GPUOS_PROTO_HD bool ringEntryHeld(const RingEntry &e, const LaunchTicket &t) {
  return ringOp(e) == kRingOpStream && (int32_t)(e.seq - t.released) > 0;
}

//===----------------------------------------------------------------------===//
// Ready queues (device memory)
//===----------------------------------------------------------------------===//

/// A range of tiles of one task of one run: tiles tile .. tile + rangeExtra
/// (rangeExtra 0: one tile, as a zeroed field says), as a slot of a bounded
/// multi-producer, multi-consumer ring (D. Vyukov's scheme). The worker that
/// takes a range runs its tiles one after the other, gives the upper half
/// back to the queue when the queues of its priority look empty (lazy
/// binary splitting: idle workers then find it), and the whole rest when
/// higher-priority work waits at a tile boundary. A range never holds more
/// than kMaxRangeTiles tiles. For the slot of position p:
///   seq == p            free: the producer of p may write it
///   seq == p + 1        full: the consumer holding ticket p may take it
///   seq == p + capacity consumed: free for position p + capacity
/// Everything but `seq` is the payload, written before seq is released.
/// The entry carries what a worker needs to run the tile and to finish a
/// single-tile task without another memory round trip.
struct alignas(64) QueueEntry {
  uint32_t seq;
  uint32_t tile;
  uint32_t numTiles;
  uint32_t kind;
  uint64_t args;     // argument block (docs/abi.md)
  uint32_t task;     // index of the task in its graph
  uint32_t run;      // run slot: index of the completion word
  uint64_t counters; // RunCounters of the run slot
  uint16_t epoch;    // submission epoch of the run slot
  uint16_t rangeExtra; // tiles of the range after `tile`
  uint32_t numSucc;
  uint64_t graph;    // TaskDesc[numTasks], then TaskDesc successors[]
  uint32_t succOffset;
  uint32_t numTasks;
};
static_assert(sizeof(QueueEntry) == 64, "four 16-byte vectors");
static_assert(offsetof(QueueEntry, args) == 16, "vector 1");
static_assert(offsetof(QueueEntry, counters) == 32, "vector 2");
static_assert(offsetof(QueueEntry, graph) == 48, "vector 3");
static_assert(offsetof(QueueEntry, rangeExtra) == 42, "vector 2, .z high");

/// A QueueEntry whose kind is kGangKind is not a tile but a gang member
/// (Worker.h, "Gangs"): member `tile` of a gang of `numTiles` that runs
/// the whole run of `graph` with its peers, tile j of a task whose first
/// tile has the graph-wide index b going to member (b + j) mod numTiles.
/// The other fields are the run's, as in any entry.
constexpr uint32_t kGangKind = 0xFFFFFFFFu;
/// A QueueEntry whose kind is kExpandKind is not a tile but a run whose root
/// ranges are still to be published (Worker.h, expandRun): the poller hands
/// a non-urgent run of more root ranges than its warp has lanes to a worker
/// as this one entry, so that publishing them never holds up the ring on a
/// loaded GPU (an urgent submission behind a background one of 768 ranges
/// waited ~50 us for the poller on a loaded H200); a short run on an idle
/// GPU it publishes itself (Poller.h, startRun: the hop through a worker
/// cost ~7 us), and of a longer run on an idle GPU it publishes the first
/// ranges beside this entry. `args` is the run's RunRow; the entry names
/// `numTiles` of its root ranges from range `tile` (all of them: 0 and
/// numRootEntries); the other fields are the run's, as in any entry.
/// (Protocol 13.)
constexpr uint32_t kExpandKind = 0xFFFFFFFEu;
/// DeviceControl::gangPolicy (RuntimeOptions::gangs): never; when no
/// other run is in flight; when no other gang is in flight; when no other
/// urgent run is in flight (urgentInFlight; protocol 14).
constexpr uint32_t kGangOff = 0, kGangWhenIdle = 1, kGangOneAtATime = 2,
                   kGangUrgentAlone = 3;

/// The most tiles one queue entry names (rangeExtra is 16 bits).
constexpr uint32_t kMaxRangeTiles = 65536;
/// How many ranges a task's tiles are first published as, at most: root
/// tasks by the poller (GraphLayout::rootEntries: one publish chunk of its
/// 32 lanes, about one range per worker on an H200 with 2 workers per SM;
/// for an expanded non-urgent run (Poller.h, startRun), by the worker that
/// takes its kExpandKind entry, into the shared queue),
/// and successors by the worker that released them (about one range per
/// worker, Worker.h WorkerConfig::fan; warp 0 publishes them in one chunk).
/// With every worker idle, each takes a range at once; from there, ranges
/// split over the idle workers. (Protocol 9; 64 and 8 before.)
constexpr uint32_t kRootRanges = 256;
constexpr uint32_t kMaxSuccessorRanges = 256;

/// The i-th of `parts` near-equal ranges of `n` tiles: first tile and count.
GPUOS_PROTO_HD void rangePart(uint32_t n, uint32_t parts, uint32_t i,
                              uint32_t &first, uint32_t &count) {
  uint32_t base = n / parts, extra = n % parts;
  first = i * base + (i < extra ? i : extra);
  count = base + (i < extra ? 1u : 0u);
}
/// Ranges a task of n tiles is published as, at most `fan`.
GPUOS_PROTO_HD uint32_t rangeCount(uint32_t n, uint32_t fan) {
  uint32_t k = n < fan ? n : fan;
  uint32_t least = (n + kMaxRangeTiles - 1) / kMaxRangeTiles;
  return k < least ? least : k;
}

/// One 64-bit counter on its own 128-byte line (no false sharing between
/// the counters that every worker hammers).
struct alignas(128) PaddedU64 {
  uint64_t value;
};
struct alignas(128) PaddedU32 {
  uint32_t value;
};

/// head: the next consumer ticket (workers take tickets with atomicAdd).
/// reserve: the next producer position. Shared queues: producers reserve
/// ranges with atomicAdd, then fill and publish each slot. Root queues: the
/// poller publishes the slots, then stores the new reserve.
struct QueueState {
  PaddedU64 head;
  PaddedU64 reserve;
};

//===----------------------------------------------------------------------===//
// Graphs and runs (device memory, in the arena)
//===----------------------------------------------------------------------===//

/// Immutable description of one task of an uploaded graph. The graph blob
/// is TaskDesc tasks[numTasks], then the successor lists of all tasks as
/// one TaskDesc array: copies of the successors' descriptors with `index`
/// set, so releasing a successor costs one load, not two.
struct alignas(32) TaskDesc {
  uint64_t args;
  uint32_t kind;
  uint32_t numTiles;
  uint32_t numDeps;
  uint32_t numSucc;
  uint32_t succOffset; // into the successor array
  uint32_t index;      // the task's own index
};
static_assert(sizeof(TaskDesc) == 32, "TaskDesc layout");

/// Per run slot: the counters one run of a graph consumes. Followed by
/// uint32_t depsLeft[numTasks] (dependencies not done, through the queues),
/// tilesDone[numTasks], gangLeft[numTasks] (the predecessors' tiles not
/// done, in a gang: each member subtracts its own) and gangRest[numTasks]
/// (gangLeft's initial value, never written by the device). The counters
/// reset themselves: once a run no longer needs a counter, the block that
/// knows it (the one that drove it to its final value, or for gangLeft the
/// member completing the task) restores its initial value, so a run slot
/// needs no re-initialization between runs (the host reuses a slot only
/// after it saw the previous run complete).
struct ErrorRecord {
  uint32_t code; // gpuos_dispatch's return value (non-zero)
  uint32_t kind;
  uint32_t task;
  uint32_t tile;
  uint32_t run;
  uint32_t epoch;
};

/// tasksLeft's top bit says that a tile of the run failed (its dispatch
/// returned non-zero), so the last decrement learns it without another load.
constexpr uint32_t kRunFailedBit = 0x80000000u;

struct alignas(128) RunCounters {
  uint32_t tasksLeft;  // numTasks at rest; | kRunFailedBit after a failure
  uint32_t errorClaim; // 0 at rest; the first failing tile of a run sets it
  uint32_t numTasks;
  ErrorRecord error;   // that tile's error; the host reads it on failure
  uint32_t urgent;     // 1 while the run counts in urgentInFlight (0 at rest)
  uint32_t reserved[22];
};
static_assert(sizeof(RunCounters) == 128, "RunCounters layout");

GPUOS_PROTO_HD size_t runCountersBytes(uint32_t numTasks) {
  return sizeof(RunCounters) + 4 * sizeof(uint32_t) * (size_t)numTasks;
}

/// One row of the run table: what the poller needs to start a run. The
/// first root tile is embedded so that a graph with a single root tile (the
/// latency-critical case) costs the poller one device-memory read.
struct alignas(128) RunRow {
  uint64_t rootEntries;    // QueueEntry[numRootEntries] templates
  uint32_t numRootEntries; // ranges of all root tasks (rangeCount each)
  uint32_t numTasks;
  uint32_t gangTiles;      // 0: never as a gang (GraphLayout::gangTiles);
                           // else the graph's width (the most tiles of
                           // one dependency level)
  uint32_t rootTiles;      // one root task: its tiles, and the entries are
                           // `first` split as rangePart(rootTiles,
                           // numRootEntries, i) (the poller builds them
                           // without reading the templates); 0: several
  uint32_t reserved[10];
  QueueEntry first; // == rootEntries[0]
};
static_assert(sizeof(RunRow) == 128, "RunRow layout");
static_assert(offsetof(RunRow, first) == 64, "RunRow layout");

//===----------------------------------------------------------------------===//
// Host-visible state (pinned host memory, written by the device)
//===----------------------------------------------------------------------===//

constexpr uint32_t kPhaseRunning = 0;
constexpr uint32_t kPhaseParking = 1; // tentative: the poller re-checks the ring
constexpr uint32_t kPhaseParked = 2;  // final: the kernel is exiting

/// Completion words: (epoch & 0xFFFF) | status << 16.
constexpr uint32_t kStatusOk = 1;
constexpr uint32_t kStatusFailed = 2;

struct HostShared {
  alignas(128) uint64_t ringHead; // ring positions the poller has consumed
  alignas(128) uint32_t parkPhase;
  uint32_t parks; // parks so far (idle and requested)
  uint64_t parkedHead;
};

/// What a block is running, in pinned host memory (one per block), written
/// by the block's thread 0 with one 16-byte store before each tile, and
/// marked idle when its next pick finds nothing. The host reads it without
/// a device call, so it still names the tile that was running after a
/// fault killed the context, or while a tile overstays its deadline.
constexpr uint32_t kJobRunning = 0x80000000u; // in `run`
struct alignas(16) JobRecord {
  uint32_t run;       // run slot | kJobRunning while a tile runs; 0: idle
  uint32_t epochKind; // epoch (16 bits) | kind << 16
  uint32_t task;
  uint32_t tile;
};
static_assert(sizeof(JobRecord) == 16, "one vector store");

/// Per block, in device memory: statistics the host reads with a copy.
/// Cycles are the block's SM clock (clock64); `active` counts the cycles
/// the block was resident up to its last tile, `busy` those inside tiles.
struct BlockStats {
  uint64_t tiles;
  uint64_t busyCycles;
  uint64_t activeCycles;
  uint32_t smid;
  uint32_t reserved;
};
static_assert(sizeof(BlockStats) == 32, "BlockStats layout");

//===----------------------------------------------------------------------===//
// The control block (device memory): the resident kernel's one parameter
//===----------------------------------------------------------------------===//

/// How a worker obtained the tile a hop trace record ends with (TraceSlot
/// run; Runtime.h's TileOrigin).
enum : uint32_t {
  kTileFromQueue = 0,  // picked from a ready queue (a range's first tile)
  kTileContinued = 1,  // the successor the block kept (no queue)
  kTileFromRange = 2,  // the next tile of the range the block holds
  kTileFromGang = 3,   // the next tile of the gang member the block runs
};

/// One traced inline singleton (RuntimeOptions::traceRecords): block 0's
/// SM cycles at each step of the inline path (Poller.h). The same slots,
/// kHopTraceSlots per block after the poller's ring, hold the workers'
/// continuation hops, or every tile with traceAllTiles (Worker.h HopTrace:
/// epoch = the task, run = how the tile was obtained (kTileFromQueue...),
/// seenNs = the globaltimer at the tile's end, cycles = its steps).
constexpr uint32_t kHopTraceSlots = 64;
struct TraceSlot {
  uint32_t run, epoch;
  uint64_t seenNs;
  uint64_t cycles[8]; // poll issued, seen, acquired, row read, tile start,
                      // tile end, completion issued, completion performed
  uint64_t pad[6];
};
static_assert(sizeof(TraceSlot) == 128, "TraceSlot layout");

struct DeviceControl {
  // Configuration: written by the host while the kernel is not running.
  uint64_t ring;       // RingEntry* (device view of pinned host memory)
  uint64_t hostShared; // HostShared* (device view)
  uint64_t completion; // uint32_t[maxRuns] (device view of host memory)
  uint64_t runTable;   // RunRow[maxRuns]
  uint64_t queueSlots[kNumQueues];
  uint64_t blockStats; // BlockStats[numBlocks]
  uint64_t jobs;       // JobRecord[numBlocks] (device view of host memory)
  uint64_t idleNs;     // park after this long idle; 0: only on request
  uint32_t ringMask;
  uint32_t queueMask;
  uint32_t numBlocks; // grid size: block 0 polls, the others work
  uint32_t maxRuns;
  uint32_t protocol;
  uint32_t idleSleepNs; // workers nap this long between idle polls (0: spin)
  uint32_t inlineUrgent; // block 0 runs urgent one-task one-tile graphs itself
  uint32_t continuations; // a worker runs a one-tile successor it released
  uint32_t ringAcquireGpu; // the ring loads acquire at GPU scope, not sys
  uint32_t traceMask;  // trace records - 1 (diagnostics; 0 with trace == 0)
  uint64_t trace;      // TraceSlot[traceMask + 1] in device memory, or 0;
                       // then kHopTraceSlots per block (hop traces)
  uint32_t settleAfterInline; // poll again once the completion performed
  uint32_t traceAllTiles; // with trace: workers record every tile, not
                          // only continuation hops (Worker.h HopTrace)
  uint32_t urgentExclusive; // workers take no other work while an urgent
                            // run is in flight (urgentInFlight)
  uint32_t gangPolicy; // kGangOff, or when an urgent run starts as a gang
                       // (Worker.h, "Gangs")
  uint32_t urgentSMs; // workers on the poller's SM and the urgentSMs - 1
                      // lowest-numbered others serve only the urgent
                      // queues (Worker.h, "Urgent SMs"); 0: none

  // Device state, each word on its own line.
  PaddedU64 ringHead;     // the poller's position, kept across launches
  PaddedU32 runsInFlight; // runs started and not yet complete
  PaddedU32 stop;         // set by the poller when it parks
  PaddedU32 exited;       // blocks that have left the loop
  PaddedU32 parks;
  PaddedU32 idleWorkers;  // workers whose last pick found nothing (a hint
                          // for splitting ranges; reset when all exit)
  PaddedU32 urgentInFlight; // urgentExclusive or kGangUrgentAlone: urgent
                            // runs started through the queues and not
                            // complete
  PaddedU64 gangRuns;       // gang runs completed (Stats), counted by the
                            // member that completes one
  PaddedU32 gangsInFlight;  // gangs started and not complete (0 or 1)
  PaddedU32 pollerSm;       // the poller's SM + 1, stored as the launch
                            // starts; 0 until then (reset when all exit)
  PaddedU32 urgentWorkers;  // urgentSMs: the workers that serve only the
                            // urgent queues, counted as each starts (the
                            // poller's cap on a gang's members)
  PaddedU32 idleUrgentWorkers; // those of them idle (the hint idleWorkers is
                               // for the others; urgent ranges read both)
  QueueState queues[kNumQueues];
};

/// Whether the poller counts the urgent runs it starts through the queues
/// in urgentInFlight (and their completions uncount them): for
/// urgentExclusive, and for the gang policy kGangUrgentAlone, which reads
/// the count. The poller and the workers must agree, or the count leaks.
GPUOS_PROTO_HD bool countsUrgentRuns(const DeviceControl *c) {
  return c->urgentExclusive != 0 || c->gangPolicy == kGangUrgentAlone;
}

} // namespace gpuos::runtime::proto

#endif // GPUOS_RUNTIME_PROTOCOL_H
