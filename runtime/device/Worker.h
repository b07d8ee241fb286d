//===- Worker.h - worker blocks: run tiles, resolve dependencies -*- C++ -*-===//
//
// Every block but block 0 is a worker. Its thread 0 schedules (pickJob),
// the whole block runs the tile (gpuos_dispatch, the ABI's one-block call),
// and thread 0 finishes it. An entry is a range of tiles (Protocol.h): the
// block runs them one after the other; before each next tile thread 0
// looks at the queues (scanAtBoundary) and gives the rest of the range
// back when higher-priority work waits, or splits off the upper half when
// a worker is idle and its priority's queues are empty. The range's tiles
// are counted once, after its last tile (step 2). Finishing a tile:
//
//   0. a run of one task with one tile completes at once: one
//      st.release.sys of the completion word, no counters (fast path);
//   1. fence (release): the block's writes, ordered before thread 0 by the
//      barrier, are visible GPU-wide before any counter says "done"; the
//      queue slot it came from is freed under the same fence. The fence is
//      issued lazily, before the first step below that needs it (step 2's
//      update releases by itself unless a slot was freed), so a
//      continuation hop (step 3) that frees no slot, counts no tiles,
//      counts down no dependency and defers step 4 issues none;
//   2. multi-tile task: atomicAdd on tilesDone[task] (of all the tiles the
//      block ran of the range, after its last one), with release and
//      acquire semantics on the update itself; the block that brings it to
//      numTiles finished the task, resets the counter, and has seen every
//      other tile's writes;
//   3. each successor: one with a single dependency is ready at once; the
//      others count down depsLeft[s] with an acquiring update, and whoever
//      reaches zero resets it (it has every predecessor's writes). A ready successor
//      is published into its priority's shared queue as about one range
//      per worker (WorkerConfig::fan; warp 0 publishes them together when
//      there are more than a publish chunk, publishStaged), except that
//      the first one-tile successor is kept and run next by this block
//      (a continuation) unless higher-priority work is waiting by then.
//      The first successor's descriptor is prefetched into shared memory
//      when the tile starts (prefetchTask), so it is there when needed; a
//      hop of one-tile tasks with one successor each is kept inline
//      (keepAtOnce), without the outlined finishTile;
//   4. atomicAdd(-n) on tasksLeft (acquiring); whoever reaches zero resets the run's
//      counters and writes the completion word with st.release.sys. A task
//      that kept a continuation defers its decrement: thread 0 counts it
//      in a register (`pending`) and the chain's first task that keeps
//      none subtracts them all at once (n = pending + 1) after its release
//      fence, which is cumulative over every tile the chain ran. The run
//      cannot complete meanwhile: the kept successor is one of its tasks
//      and not done. When a kept successor is published after all (urgent
//      work came first), the deferred count is subtracted before. A
//      failing tile sets tasksLeft's top bit, so the last decrement also
//      learns whether the run failed.
//
// Gangs (RuntimeOptions::gangs): an urgent run that the poller found with
// no other gang in flight (GangPolicy::WhenIdle: no other run at all) is
// published as G entries of kind kGangKind, one per gang member, G =
// min(workers, the graph's width: the most tiles of one dependency level,
// GraphLayout::gangTiles, which is 0 unless every dependency points to an
// earlier task and some level has two tiles). The block that takes member
// k runs its share of the tiles of every task in index order: tile j of a
// task goes to member (b + j) mod G, b the graph-wide index of the task's
// first tile, so independent tasks of one tile land on different members.
// Before its first tile of a task with dependencies, the member waits until
// gangLeft[task], its predecessors' tiles not done, is 0 (polling with
// acquire loads); after its last tile of a task it fences (release) and takes its
// own tile count off gangLeft of every successor, then counts its tiles in
// tilesDone, and the member that completes the task puts the task's
// counters back at rest; each member subtracts the tasks it completed from
// tasksLeft when it has none left (step 4). So a hop between dependent
// tasks is a fence, a counter update and the waiting members' next poll,
// with no queue entry. Deadlock-free: the members sit in the urgent root queue,
// which workers serve first and in order, G <= workers, and a worker busy
// with other work takes its member after at most one tile of it; the
// first task not yet done has all its dependencies done, so its members,
// which run tasks in order, are at it and not waiting. One gang at a time
// (DeviceControl::gangsInFlight), so no two gangs wait on each other's
// members. Members do not yield at tile boundaries: a gang is urgent work,
// and later urgent work that needs their workers waits for it. A gang of
// one needs no counter at all: its block runs the tasks in order, like a
// chain of kept successors, and subtracts them from tasksLeft at its end.
//
// Expansion: an entry of kind kExpandKind names root ranges of a
// non-urgent run that the poller left to a worker (Poller.h): all of them,
// or, on an idle GPU, those past the ones the poller published itself
// beside the entry. Thread 0 reserves the positions in the priority's
// shared queue, warp 0 publishes the ranges (expandRun) and frees the
// entry's slot; no tile runs for it.
//
// Counters are atomics in device memory: releases are a fence before a
// relaxed update (one fence can cover a batch; atomicAddOrdered/stPublish
// name the pairing, Platform.h), acquires are on the access itself
// (ld.acquire, atomicAddAcquire/AcqRel), and what a block acquired is
// released again only by a later fence. The release/acquire chain runs
// tile -> task -> successor -> ... -> completion, so the host that sees the
// completion word sees every output.
//
//===----------------------------------------------------------------------===//

#ifndef GPUOS_DEVICE_WORKER_H
#define GPUOS_DEVICE_WORKER_H

#include "Park.h"
#include "ReadyQueue.h"

namespace gpuos::dev {

/// Successor ranges thread 0 reserved and left for warp 0 to publish
/// (publishStaged): entry `e` split into `parts` ranges at p0.. of queue q.
struct StagedRanges {
  QueueEntry e;
  uint64_t p0;
  uint32_t parts;
  uint32_t queue;
};
constexpr uint32_t kMaxStaged = 2; // more ready successors: thread 0 alone

/// What thread 0 needs of the configuration after fences, kept by thread 0
/// (WorkerShared; read once per launch, the host writes it only while
/// parked): read from DeviceControl, each field would be an L2 round trip
/// after every acquire fence (fenceGpu also invalidates the L1).
struct WorkerConfig {
  uint32_t *completion;
  uint32_t fan; // ranges a released successor is published as, at most
  bool continuations;
  bool exclusive; // RuntimeOptions::urgentExclusive
  bool countUrgent; // the poller counts urgent runs (PollerConfig)
  bool urgentSMs;   // RuntimeOptions::urgentSMs is set
  bool urgentOnly;  // this block serves only the urgent queues (onUrgentSM)

  GPUOS_DEV void load(const DeviceControl *c) {
    completion = reinterpret_cast<uint32_t *>(c->completion);
    // About one range per worker: with all workers idle, each takes one at
    // once (no splitting round trips on the path of a fan-out); busy
    // workers take several. At most what warp 0 publishes in one chunk.
    uint32_t workers = c->numBlocks > 1 ? c->numBlocks - 1 : 1;
    fan = workers < kMaxSuccessorRanges ? workers : kMaxSuccessorRanges;
    continuations = c->continuations != 0;
    exclusive = c->urgentExclusive != 0;
    countUrgent = countsUrgentRuns(c);
    urgentSMs = c->urgentSMs != 0;
    urgentOnly = false; // workerMain asks onUrgentSM
  }
};

/// Urgent SMs (RuntimeOptions::urgentSMs): the workers on the poller's SM
/// and on the urgentSMs - 1 lowest-numbered other SMs serve only the urgent
/// queues. Right after a background graph, urgent calls took 7 us longer
/// than alone on the H100, even 3 ms later and with the background's lines
/// marked evict-first in L2 (docs/runtime.md, "Shorter background tiles"):
/// if that is state kept per SM (instruction caches, TLBs) that the
/// background's tiles replaced, on SMs that never run other work it stays
/// the urgent work's ("Urgent SMs"). The SM of block 0 is known once it
/// runs: it stores it first, and all blocks are resident at once, so the
/// wait is short (and ends on stop).
GPUOS_DEV_OUTLINE bool onUrgentSM(const DeviceControl *c, uint32_t sm) {
  uint32_t poller;
  while ((poller = ldRelaxed(&c->pollerSm.value)) == 0u) {
    if (ldRelaxed(&c->stop.value) != 0u)
      return false;
    spinPause();
  }
  poller -= 1;
  uint32_t rank = sm < poller ? sm : sm - 1; // among the other SMs
  return sm == poller || rank + 1 < c->urgentSMs;
}

/// A block's position inside a range (thread 0's): the tiles of
/// the range after the current one, and the tiles of the task it ran and
/// has not counted in tilesDone yet (counted once, at the range's end).
struct RangeState {
  uint32_t left;
  uint32_t uncounted;
};

/// A block's statistics (BlockStats), kept by thread 0 and stored
/// after each tile: plain stores, nothing waits for them.
struct BlockCounters {
  BlockStats *stats;
  uint64_t tiles, busy, active, launchStart, tileStart;

  GPUOS_DEV void open(DeviceControl *c, uint32_t blockId) {
    stats = reinterpret_cast<BlockStats *>(c->blockStats) + blockId;
    tiles = ldRelaxed(&stats->tiles);
    busy = ldRelaxed(&stats->busyCycles);
    active = ldRelaxed(&stats->activeCycles);
    launchStart = cycles();
    stRelaxed(&stats->smid, smId(blockId));
  }
  GPUOS_DEV void begin() { tileStart = cycles(); }
  /// Before the tile's completion work: the count is then ordered before
  /// the completion (the host that saw a run complete counts its tiles),
  /// as it was before the cycle counters existed.
  GPUOS_DEV void counted() { stRelaxed(&stats->tiles, ++tiles); }
  /// After it (`now`: the cycle the tile ended): the cycle counters never
  /// delay a completion's release.
  GPUOS_DEV void end(uint64_t now) {
    busy += now - tileStart;
    stRelaxed(&stats->busyCycles, busy);
    stRelaxed(&stats->activeCycles, active + (now - launchStart));
  }
  GPUOS_DEV void close() {
    stRelaxed(&stats->activeCycles, active + (cycles() - launchStart));
  }
};

/// Diagnostics (RuntimeOptions::traceRecords): thread 0 stamps the SM
/// clock at each step of its continuation hops into this block's
/// kHopTraceSlots trace slots (after the poller's ring, Protocol.h), from
/// the end of a tile to the end of the kept successor it ran (cycles 0..7
/// as HopTraceRecord lists them); with traceAllTiles, of every tile. Plain
/// stores nothing waits for; off, each step still loads `slots` from
/// shared memory (WorkerShared) and branches on it (a register flag read
/// once per launch would avoid that; not measured yet).
struct HopTrace {
  TraceSlot *slots; // this block's, or null
  uint32_t n;       // hops recorded
  bool all;         // every tile, not only continuations

  GPUOS_DEV void open(const DeviceControl *c, uint32_t blockId) {
    slots = c->trace ? reinterpret_cast<TraceSlot *>(c->trace) +
                           c->traceMask + 1 +
                           (uint64_t)blockId * kHopTraceSlots
                     : nullptr;
    n = 0;
    all = c->traceAllTiles != 0;
    if (slots) {
      // The first record opens at no tile end of this launch: leave its
      // start 0 (readers skip it), not a stamp of a launch before a park.
      slots[0].seenNs = 0;
      slots[0].cycles[0] = 0;
    }
  }
  GPUOS_DEV void stamp(uint32_t step) {
    if (slots)
      slots[n % kHopTraceSlots].cycles[step] = cycles();
  }
  /// The tile that just ended (after its barrier) was a continuation (or
  /// any tile, with `all`): close its record; then the next one starts at
  /// this tile's end.
  GPUOS_DEV void tileEnded(uint32_t origin, uint32_t task) {
    if (!slots)
      return;
    uint64_t now = cycles();
    if (origin == kTileContinued || all) {
      TraceSlot &t = slots[n % kHopTraceSlots];
      t.cycles[7] = now;
      t.epoch = task;
      t.run = origin;
      t.seenNs = nowNs();
      ++n;
    }
    TraceSlot &next = slots[n % kHopTraceSlots];
    next.seenNs = 0; // open: readHopTrace skips it unless closed
    next.cycles[0] = now;
  }
};

/// A gang member's position (Worker.h header, "Gangs"): thread 0's, except
/// that warp 0 finds the member's next task (gangSeek).
struct GangState {
  QueueEntry member; // its entry: tile = member index, numTiles = gang size
  TaskDesc desc;     // the task it runs tiles of now
  uint64_t pos;      // the queue slot the entry came from, to free
  uint32_t queue;
  uint32_t mustFree;
  uint32_t task;     // desc's index (~0u before the first)
  uint32_t base;     // tiles of the tasks up to `task`: the graph-wide
                     // index of the next task's first tile
  uint32_t first;    // the member's first tile of `task`
  uint32_t next;     // its next tile of `task`
  uint32_t depsSeen; // gangLeft[task] as the search saw it
  uint32_t finished; // tasks it completed; subtracted from tasksLeft when
                     // the member ends
  bool active;       // the block is a gang member
  bool seek;         // warp 0 finds the next task with a tile for it
};

/// sh.stop: what the block does after the scheduling step.
constexpr uint32_t kRunTile = 0, kExitLoop = 1, kNoTile = 2;

/// The block's view of the job, and thread 0's scheduling state; on the
/// GPU this is __shared__. Thread 0's state lives here rather than in
/// registers: it lives across gpuos_dispatch, an ABI call, so this keeps
/// the registers live across the call few (measured: no change in the
/// hop; what it cost was the outlined calls, keepAtOnce).
struct WorkerShared {
  Pick pick;
  uint32_t stop;
  uint32_t staged;               // StagedRanges in `fan` (thread 0 writes)
  StagedRanges fan[kMaxStaged];
  TaskDesc nextSucc;             // the job's first successor (prefetchTask)
  QueueEntry cont;               // a successor this block keeps
  Inbox inbox[kNumQueues];
  WorkerConfig cfg;
  BlockCounters counters;
  HopTrace trace;
  RangeState range;              // where this block is in a range of tiles
  uint32_t pending;              // tasks whose tasksLeft decrement waits
  bool kept;                     // `cont` holds the next job
  uint32_t origin;               // how the running tile came (kTileFrom...)
  GangState gang;
  bool expand;                   // pick.job is a kExpandKind entry: warp 0
  uint64_t expandAt;             // publishes its run's root ranges here
};

GPUOS_DEV uint32_t *depsLeftOf(RunCounters *r) {
  return reinterpret_cast<uint32_t *>(r + 1);
}
GPUOS_DEV uint32_t *tilesDoneOf(RunCounters *r, uint32_t numTasks) {
  return depsLeftOf(r) + numTasks;
}
/// A gang's dependency counters (Protocol.h, RunCounters).
GPUOS_DEV uint32_t *gangLeftOf(RunCounters *r, uint32_t numTasks) {
  return depsLeftOf(r) + 2 * numTasks;
}
GPUOS_DEV const uint32_t *gangRestOf(RunCounters *r, uint32_t numTasks) {
  return depsLeftOf(r) + 3 * numTasks;
}

/// A tile's dispatch returned non-zero (an unknown kind, or a task's own
/// error): flag the run failed and record the run's first such error.
GPUOS_DEV_OUTLINE void recordFailure(RunCounters *r, const QueueEntry &job,
                                     int rc) {
  // Seen by whoever makes the last decrement of tasksLeft (this tile's own
  // decrements, and so the flag, come before it in the counter's order).
  atomicOrRelaxed(&r->tasksLeft, kRunFailedBit);
  if (atomicCasRelaxed(&r->errorClaim, 0u, 1u) != 0u)
    return;
  stRelaxed(&r->error.code, (uint32_t)rc);
  stRelaxed(&r->error.kind, job.kind);
  stRelaxed(&r->error.task, job.task);
  stRelaxed(&r->error.tile, job.tile);
  stRelaxed(&r->error.run, job.run);
  stRelaxed(&r->error.epoch, (uint32_t)job.epoch);
  // Ordered before the completion store (a release at system scope); the
  // host reads the record after it saw the failed completion.
}

/// A finished urgent run the poller counted (urgentExclusive, or the gang
/// policy kGangUrgentAlone) leaves
/// urgentInFlight (before its completion store: the host reuses the slot,
/// and the poller may count it again, only after that store).
GPUOS_DEV void uncountUrgent(DeviceControl *c, RunCounters *r) {
  if (ldRelaxed(&r->urgent) == 0u)
    return;
  stRelaxed(&r->urgent, 0u);
  atomicAddRelaxed(&c->urgentInFlight.value, ~0u);
}

/// The run's last task finished: restore the counters for the next run of
/// this slot, then tell the host. The host reuses the slot only after it
/// has seen this store, so the resets cannot race with the next run.
GPUOS_DEV_OUTLINE void completeRun(DeviceControl *c, uint32_t *completionWords,
                                   RunCounters *r, const QueueEntry &job,
                                   bool failed, bool countUrgent) {
  // The caller's decrement of tasksLeft acquired every task's decrement
  // (and writes) before it (atomicAddAcquire).
  if (countUrgent)
    uncountUrgent(c, r);
  stRelaxed(&r->tasksLeft, job.numTasks);
  if (failed)
    stRelaxed(&r->errorClaim, 0u); // the record itself stays for the host
  uint32_t status = failed ? kStatusFailed : kStatusOk;
  stReleaseSys(completionWords + job.run,
               (job.epoch & 0xFFFFu) | (status << 16));
  atomicAddRelaxed(&c->runsInFlight.value, ~0u); // after: park drains on it
}

/// The last tile of a run's only task was counted (and the caller's count
/// acquired the other tiles): the run is complete. No other
/// task's decrement to wait for, so no tasksLeft atomic: a failure shows in
/// tasksLeft's bit (recordFailure,
/// ordered before the failing tile's count), read after that acquire.
/// Inline: an outlined call after a fence reloads its saved registers from
/// memory the fence made cold.
GPUOS_DEV void completeOnlyTask(DeviceControl *c, const WorkerConfig &cfg,
                                RunCounters *r, const QueueEntry &job) {
  bool failed = (ldRelaxed(&r->tasksLeft) & kRunFailedBit) != 0;
  if (cfg.countUrgent)
    uncountUrgent(c, r);
  if (failed) {
    stRelaxed(&r->tasksLeft, job.numTasks);
    stRelaxed(&r->errorClaim, 0u);
  }
  stReleaseSys(cfg.completion + job.run,
               (job.epoch & 0xFFFFu) |
                   ((failed ? kStatusFailed : kStatusOk) << 16));
  atomicAddRelaxed(&c->runsInFlight.value, ~0u); // after: park drains on it
}

/// A run of one task with one tile, finished by the block that ran it
/// (thread 0, after the barrier): the completion store is a release at
/// system scope, which covers the block's writes the barrier ordered
/// before it. No counter is touched, except to clear a failure.
GPUOS_DEV_OUTLINE void completeSingleton(uint32_t *completionWords,
                                         const QueueEntry &job, int rc) {
  if (rc != 0) {
    RunCounters *r = reinterpret_cast<RunCounters *>(job.counters);
    recordFailure(r, job, rc);
    stRelaxed(&r->tasksLeft, job.numTasks); // clear the failure bit
    stRelaxed(&r->errorClaim, 0u);
  }
  stReleaseSys(completionWords + job.run,
               (job.epoch & 0xFFFFu) |
                   ((rc != 0 ? kStatusFailed : kStatusOk) << 16));
}

/// The successor list of `job`'s task (copies of the descriptors).
GPUOS_DEV const TaskDesc *successorsOf(const QueueEntry &job) {
  return reinterpret_cast<const TaskDesc *>(job.graph) + job.numTasks +
         job.succOffset;
}

/// The queue entry for tile `tile` of task `d` of `run`'s run (a
/// successor released or kept, a gang member's next tile).
GPUOS_DEV void taskEntry(const QueueEntry &run, const TaskDesc &d, uint32_t tile,
                         QueueEntry &e) {
  e = run;
  e.task = d.index;
  e.kind = d.kind;
  e.args = d.args;
  e.numTiles = d.numTiles;
  e.numSucc = d.numSucc;
  e.succOffset = d.succOffset;
  e.tile = tile;
  e.rangeExtra = 0;
}

/// What releaseSuccessors did (bits).
constexpr uint32_t kKept = 1;    // a successor waits in `cont` for this block
constexpr uint32_t kFenced = 2;  // it issued the release fence (step 1)

/// Releases the successors of a finished task and publishes the tiles of
/// those that became ready. A successor with one dependency (this task) is
/// ready now and needs no counter; others count down depsLeft, after the
/// release fence unless `fenced` says it was issued. Publishing needs none
/// of its own: publishEntries' release fence comes after the tile in
/// program order (cumulative). Successors of more than a publish chunk of
/// ranges are reserved here and staged for warp 0 (publishStaged), while
/// kMaxStaged lasts. Thread 0 only (it owns the inbox).
GPUOS_DEV_OUTLINE uint32_t releaseSuccessors(DeviceControl *c,
                                             const WorkerConfig &cfg,
                                             Inbox *inbox, WorkerShared &sh,
                                             bool fenced, QueueEntry *cont) {
  uint32_t out = fenced ? kFenced : 0u;
  const QueueEntry &job = sh.pick.job;
  RunCounters *r = reinterpret_cast<RunCounters *>(job.counters);
  const TaskDesc *succ = successorsOf(job);
  uint32_t *depsLeft = depsLeftOf(r);
  uint32_t sq = sharedQueue(priorityOfQueue(sh.pick.queue));
  waitTaskPrefetch(); // sh.nextSucc == succ[0] (started with the tile)
  for (uint32_t i = 0; i < job.numSucc; ++i) {
    TaskDesc d = i == 0 ? sh.nextSucc : ldcgTask(succ + i);
    if (d.numDeps > 1) {
      if (!(out & kFenced)) {
        fenceGpu(); // release: this block's tile writes
        out |= kFenced;
      }
      // The last predecessor acquires the others' writes with its update.
      if (atomicAddAcquire(depsLeft + d.index, ~0u) != 1u)
        continue;
      // The reset reaches the slot's next run through this successor's
      // release (its publish fence, or the kept chain's last fence).
      stRelaxed(depsLeft + d.index, d.numDeps);
    }
    QueueEntry e;
    taskEntry(job, d, 0, e);
    if (cont && !(out & kKept) && d.numTiles == 1) {
      // Keep it: this block runs it next (see workerMain), unless
      // higher-priority work is waiting by then.
      *cont = e;
      out |= kKept;
      continue;
    }
    // About one range per worker (WorkerConfig::fan), not one entry per
    // tile: the workers that take them split them further while others
    // idle.
    uint32_t parts = rangeCount(d.numTiles, cfg.fan);
    uint64_t p0 = reservePositions(c, sq, parts);
    if (parts > kPublishChunk && sh.staged < kMaxStaged) {
      StagedRanges &f = sh.fan[sh.staged++];
      f.e = e;
      f.p0 = p0;
      f.parts = parts;
      f.queue = sq;
      continue;
    }
    publishEntries(inbox, sq, p0, parts, SoloWarp{},
                   [&](uint32_t k, QueueEntry &o) {
                     uint32_t first = 0, count = 0;
                     rangePart(d.numTiles, parts, k, first, count);
                     o = e;
                     o.tile = first;
                     o.rangeExtra = (uint16_t)(count - 1);
                   });
  }
  return out;
}

/// Warp 0 (all lanes, after thread 0 finished the tile): publishes the
/// successor ranges thread 0 staged, a lane per range, one chunk for up to
/// 32 x kPublishChunk ranges. The lanes' release fences (inside
/// publishEntries) are cumulative over the tile's writes (the barrier after
/// the tile) and over what thread 0 acquired before staging (depsLeft): the
/// warp barrier before this orders those before the lanes' fences.
template <typename Warp>
GPUOS_DEV void publishStaged(Inbox *inbox, const WorkerShared &sh,
                             const Warp &w) {
  for (uint32_t k = 0; k < sh.staged; ++k) {
    const StagedRanges &f = sh.fan[k];
    publishEntries(inbox, f.queue, f.p0, f.parts, w,
                   [&](uint32_t i, QueueEntry &o) {
                     uint32_t first = 0, count = 0;
                     rangePart(f.e.numTiles, f.parts, i, first, count);
                     o = f.e;
                     o.tile = first;
                     o.rangeExtra = (uint16_t)(count - 1);
                   });
  }
}

/// Root range i of `ranges` of a run (its RunRow's numRootEntries), as the
/// host's templates have it: with one root task (rootTiles != 0) its tiles
/// split evenly from `first`, with no template read; else template i.
GPUOS_DEV void rootRange(const QueueEntry &first, const QueueEntry *templates,
                         uint32_t rootTiles, uint32_t ranges, uint32_t i,
                         uint16_t epoch, QueueEntry &out) {
  if (rootTiles) {
    uint32_t tile = 0, count = 0;
    rangePart(rootTiles, ranges, i, tile, count);
    out = first;
    out.tile = tile;
    out.rangeExtra = (uint16_t)(count - 1);
  } else {
    readPayload(templates + i, out);
  }
  out.epoch = epoch;
}

/// Warp 0 (all lanes): publishes the root ranges a run's kExpandKind entry
/// names (Protocol.h: `numTiles` ranges from range `tile`), the ranges the
/// poller would have published (Poller.h, startRun), into the priority's
/// shared queue at the positions thread 0 reserved; then frees the entry's
/// slot (publishEntries' fences come after reading it).
template <typename Warp>
GPUOS_DEV void expandRun(Inbox *inbox, const WorkerShared &sh, const Warp &w) {
  const QueueEntry &x = sh.pick.job;
  const RunRow *row = reinterpret_cast<const RunRow *>(x.args);
  uint32_t rootTiles = ldcg(&row->rootTiles);
  uint32_t ranges = ldcg(&row->numRootEntries);
  const QueueEntry *templates =
      reinterpret_cast<const QueueEntry *>(ldcg(&row->rootEntries));
  QueueEntry t;
  readPayload(&row->first, t);
  uint32_t sq = sharedQueue(priorityOfQueue(sh.pick.queue));
  publishEntries(inbox, sq, sh.expandAt, x.numTiles, w, [&](uint32_t i, QueueEntry &out) {
    rootRange(t, templates, rootTiles, ranges, x.tile + i, x.epoch, out);
  });
  if (w.lane() == 0 && sh.pick.mustFree)
    freeSlot(sh.pick.queue, sh.pick.pos);
}

/// Publishes tiles first .. first + count - 1 of `job`'s task as one range
/// into queue q (a split, or the rest of a range given back).
GPUOS_DEV_OUTLINE void publishRange(DeviceControl *c, Inbox *inbox,
                                    const QueueEntry &job, uint32_t q,
                                    uint32_t first, uint32_t count) {
  uint64_t p0 = reservePositions(c, q, 1);
  publishEntries(inbox, q, p0, 1, SoloWarp{}, [&](uint32_t, QueueEntry &out) {
    out = job;
    out.tile = first;
    out.rangeExtra = (uint16_t)(count - 1);
  });
}

/// What a worker inside a range sees at a tile boundary (scanAtBoundary).
constexpr uint32_t kHigherWaiting = 1; // leave the range: work of a higher
                                       // priority waits, or an entry of
                                       // its own priority that only this
                                       // worker holds (its inbox)
constexpr uint32_t kPeersIdle = 2;     // both queues of its priority
                                       // empty, and some worker idle

/// urgentExclusive: the urgent runs in flight that hold back work whose
/// root queue is `own` (none for urgent work itself, or without the
/// option); one load, issued with the caller's other loads.
GPUOS_DEV uint32_t urgentHeldBackBy(const DeviceControl *c, uint32_t own,
                                    bool exclusive) {
  return exclusive && own != rootQueue(kPriorityUrgent)
             ? ldRelaxed(&c->urgentInFlight.value)
             : 0u;
}

/// One round of independent loads: the queues of higher priority than
/// queue q (as higherPriorityWaiting), this worker's inbox entries of q's
/// priority (taken, or owed and published: nobody else can run them, so
/// they must not wait for a whole range), and whether q's priority has no
/// queued work left (then idle workers may want half of this range). With
/// `exclusive`, an urgent run in flight also counts as higher-priority
/// work for a range below urgent (pickJob then waits for it to finish).
/// With `urgentSMs`, an urgent range also counts the idle urgent-only
/// workers (idleUrgentWorkers), the only range they may take.
GPUOS_DEV_OUTLINE uint32_t scanAtBoundary(const DeviceControl *c,
                                          const Inbox *inbox, uint32_t q,
                                          bool exclusive, bool urgentSMs) {
  uint32_t own = rootQueue(priorityOfQueue(q));
  uint64_t head[kNumQueues], reserve[kNumQueues];
  uint32_t seen[kNumQueues];
  uint32_t idle = ldRelaxed(&c->idleWorkers.value);
  // Urgent-only workers (urgentSMs) take urgent ranges only.
  uint32_t idleUrgentOnly = own == rootQueue(kPriorityUrgent) && urgentSMs
                                ? ldRelaxed(&c->idleUrgentWorkers.value)
                                : 0u;
  uint32_t urgent = urgentHeldBackBy(c, own, exclusive);
  // Constant trip counts: unrolled, the arrays stay in registers. With a
  // bound of own + 2 they went to local memory, and storing each loaded
  // value there waited for its load: the loads ran one after another, 3700
  // of a streaming worker's 6200 cycles between tiles on the H200 (suite
  // profile --trace-tiles, bandwidth), against one L2 round trip now.
  for (uint32_t h = 0; h < kNumQueues; ++h) {
    if (h >= own + 2)
      continue;
    if (inbox[h].state == kInboxOwed)
      seen[h] = ldObserve(&slotOf(h, inbox[h].ticket)->seq);
    if (h >= own || inbox[h].state != kInboxOwed) {
      head[h] = ldRelaxed(&c->queues[h].head.value);
      reserve[h] = ldRelaxed(&c->queues[h].reserve.value);
    }
  }
  uint32_t out = urgent ? kHigherWaiting : 0u;
  bool ownEmpty = true; // both queues of q's priority
  for (uint32_t h = 0; h < kNumQueues; ++h) {
    if (h >= own + 2)
      continue;
    bool held = inbox[h].state == kInboxTaken ||
                (inbox[h].state == kInboxOwed &&
                 seen[h] == (uint32_t)(inbox[h].ticket + 1));
    if (held || (h < own && inbox[h].state != kInboxOwed &&
                 head[h] < reserve[h]))
      out |= kHigherWaiting;
    if (h >= own)
      ownEmpty = ownEmpty && head[h] >= reserve[h];
  }
  // idleWorkers is a hint, not a count to trust: it wraps for a moment
  // when a decrement passes an increment.
  bool someIdle = (idle != 0u && idle < 0x80000000u) ||
                  (idleUrgentOnly != 0u && idleUrgentOnly < 0x80000000u);
  if (someIdle && ownEmpty)
    out |= kPeersIdle;
  return out;
}

/// Splitting: give the upper half of what is left of the range to idle
/// workers when some worker is idle and the queues of its priority are
/// empty (lazy binary splitting, with an idle hint: busy workers never
/// split, so a steady state of full ranges costs no publishes). With one
/// tile left there is nothing to split: publishing it would cost about
/// what running it does.
constexpr uint32_t kMinSplitLeft = 2;

GPUOS_DEV void maybeSplit(DeviceControl *c, Inbox *inbox, const Pick &pick,
                          RangeState &range, uint32_t look) {
  if (!(look & kPeersIdle) || range.left < kMinSplitLeft)
    return;
  uint32_t give = (range.left + 1) / 2;
  range.left -= give;
  publishRange(c, inbox, pick.job,
               sharedQueue(priorityOfQueue(pick.queue)),
               pick.job.tile + 1 + range.left, give);
}

/// Counts the tiles this block ran of a task it leaves before the task's
/// last tile (a range given back): never the task's last count, since the
/// tiles given back are not counted yet.
GPUOS_DEV_OUTLINE void countUncounted(const QueueEntry &job,
                                      uint32_t uncounted) {
  if (!uncounted)
    return;
  RunCounters *r = reinterpret_cast<RunCounters *>(job.counters);
  uint32_t *done = tilesDoneOf(r, job.numTasks) + job.task;
  fenceGpu(); // release: the tiles' writes
  atomicAddOrdered(done, uncounted);
}

/// A tile of a range with more tiles to follow on this block: nothing to
/// count yet (the caller counts it, RangeState); the slot the range
/// came from is freed after its first tile.
GPUOS_DEV_OUTLINE void finishRangeTile(const Pick &pick, int rc) {
  if (rc != 0)
    recordFailure(reinterpret_cast<RunCounters *>(pick.job.counters), pick.job,
                  rc);
  if (pick.mustFree) {
    fenceGpu(); // release: our reads of the slot
    freeSlot(pick.queue, pick.pos);
  }
}

/// Is there work of a priority strictly higher than queue q's waiting for
/// this worker (an entry it took or owes, or a non-empty queue)? One round
/// of independent loads (an L2 round trip), not one per queue: this is on
/// the path of every continuation hop below urgent priority. With
/// `exclusive`, an urgent run in flight counts too (as in scanAtBoundary).
GPUOS_DEV_OUTLINE bool higherPriorityWaiting(const DeviceControl *c,
                                             const Inbox *inbox, uint32_t q,
                                             bool exclusive) {
  const uint32_t end = rootQueue(priorityOfQueue(q));
  uint64_t head[kNumQueues], reserve[kNumQueues];
  uint32_t seen[kNumQueues];
  uint32_t urgent = urgentHeldBackBy(c, end, exclusive);
  // Constant trip counts: unrolled, the arrays stay in registers.
  for (uint32_t h = 0; h < kNumQueues; ++h) {
    if (h < end && inbox[h].state == kInboxOwed) {
      seen[h] = ldObserve(&slotOf(h, inbox[h].ticket)->seq);
    } else if (h < end) {
      head[h] = ldRelaxed(&c->queues[h].head.value);
      reserve[h] = ldRelaxed(&c->queues[h].reserve.value);
    }
  }
  bool waiting = urgent != 0u;
  for (uint32_t h = 0; h < end && h < kNumQueues; ++h) {
    if (inbox[h].state == kInboxTaken)
      waiting = true;
    else if (inbox[h].state == kInboxOwed)
      waiting = waiting || seen[h] == (uint32_t)(inbox[h].ticket + 1);
    else
      waiting = waiting || head[h] < reserve[h];
  }
  return waiting;
}

/// Step 4 for `n` tasks of job's run that this block finished: the
/// caller has issued the release fence since their tiles. Whoever reaches
/// zero completes the run.
GPUOS_DEV void subtractTasks(DeviceControl *c, const WorkerConfig &cfg,
                             const QueueEntry &job, uint32_t n) {
  RunCounters *r = reinterpret_cast<RunCounters *>(job.counters);
  uint32_t old = atomicAddAcquire(&r->tasksLeft, 0u - n);
  if ((old & ~kRunFailedBit) == n)
    completeRun(c, cfg.completion, r, job, (old & kRunFailedBit) != 0,
                cfg.countUrgent);
}

/// Returns true when it kept a ready successor in `cont` for this block;
/// its own tasksLeft decrement is then deferred (the caller's `pending`
/// grows by one; see the header, step 4). Otherwise it subtracted this
/// task and the `pending` ones before it. `uncounted`: tiles of this task
/// the block ran before this one (the rest of a range; finishRangeTile
/// counted none of them), added to tilesDone with this tile's in one
/// atomic. The common continuation hop does not get here (keepAtOnce).
GPUOS_DEV_OUTLINE bool finishTile(DeviceControl *c, const WorkerConfig &cfg,
                                  Inbox *inbox, WorkerShared &sh, int rc,
                                  QueueEntry &cont, uint32_t uncounted,
                                  uint32_t pending) {
  const Pick &pick = sh.pick;
  const QueueEntry &job = pick.job;
  RunCounters *r = reinterpret_cast<RunCounters *>(job.counters);
  if (job.numTasks == 1 && job.numTiles == 1) {
    // The whole run was this tile: no counter to consult. The slot is
    // freed after the completion store, with its own release, off the path
    // to the host.
    if (cfg.countUrgent)
      uncountUrgent(c, r);
    completeSingleton(cfg.completion, job, rc);
    if (pick.mustFree)
      stRelease(&slotOf(pick.queue, pick.pos)->seq, freedSeq(pick.pos));
    atomicAddRelaxed(&c->runsInFlight.value, ~0u);
    return false;
  }
  if (rc != 0)
    recordFailure(r, job, rc);
  // Step 1, lazily: here only for a slot to free (step 2's update releases
  // by itself); later for a decrement that is not deferred.
  bool fenced = false;
  if (pick.mustFree) {
    fenceGpu(); // release: this block's tile writes and our slot reads
    fenced = true;
    freeSlot(pick.queue, pick.pos);
  }
  if (job.numTiles > 1) {
    uint32_t *done = tilesDoneOf(r, job.numTasks) + job.task;
    uint32_t n = uncounted + 1;
    // Releases this block's tiles (unless the fence above did) and, for
    // the task's last tile, acquires the task's other tiles.
    uint32_t old = fenced ? atomicAddAcquire(done, n) : atomicAddAcqRel(done, n);
    if (old + n != job.numTiles) {
      // Not the task's last tile. Only one-tile continuations defer, and a
      // multi-tile task is never one, so nothing is pending here.
      if (pending) {
        fenceGpu(); // release: the pending tasks' tiles
        subtractTasks(c, cfg, job, pending);
      }
      return false;
    }
    stRelaxed(done, 0u);
    // What it acquired is released again only by a fence: successors and
    // tasksLeft below get one (completeOnlyTask's store releases itself).
    fenced = false;
    if (job.numTasks == 1) {
      completeOnlyTask(c, cfg, r, job);
      return false;
    }
  }
  if (job.numSucc) {
    uint32_t did = releaseSuccessors(c, cfg, inbox, sh, fenced,
                                     cfg.continuations ? &cont : nullptr);
    // A kept successor is not done, so the run cannot complete before it:
    // this task's decrement waits for the chain's end (header, step 4).
    if (did & kKept)
      return true;
    fenced = (did & kFenced) != 0;
  }
  if (!fenced)
    fenceGpu(); // release: the tiles of this task and of the pending ones
  subtractTasks(c, cfg, job, pending + 1);
  return false;
}

/// finishTile's most common case without the call (a chain hop): a
/// one-tile task of a run of several tasks, from no queue slot (a
/// continuation), that succeeded and whose only successor has one
/// dependency and one tile. It is kept exactly as finishTile would keep it
/// (no fence, no counter; the caller defers the decrement). Measured on the
/// H200: the outlined finishTile/releaseSuccessors calls cost about 1 us of
/// a hop by themselves (no memory operation on that path); without them
/// the hop went from 2.4 to 1.3 us (docs/runtime.md).
GPUOS_DEV bool keepAtOnce(WorkerShared &sh, bool continuations, int rc) {
  const QueueEntry &job = sh.pick.job;
  if (rc != 0 || !continuations || sh.pick.mustFree || job.numTiles != 1 ||
      job.numTasks == 1 || job.numSucc != 1)
    return false;
  waitTaskPrefetch(); // sh.nextSucc (started with the tile)
  const TaskDesc &d = sh.nextSucc;
  if (d.numDeps != 1 || d.numTiles != 1)
    return false;
  taskEntry(job, d, 0, sh.cont);
  return true;
}

/// The kept successor `e` goes to queue q after all (higher-priority work
/// came first), so its predecessors' deferred decrements (`pending`, of
/// e's run) are due now. Subtracted before it is visible, so they are
/// never the run's last.
GPUOS_DEV_OUTLINE void publishKept(DeviceControl *c, const WorkerConfig &cfg,
                                   Inbox *inbox, const QueueEntry &e,
                                   uint32_t q, uint32_t pending) {
  fenceGpu(); // release: the tiles of the pending tasks
  subtractTasks(c, cfg, e, pending);
  uint64_t p0 = reservePositions(c, q, 1);
  publishEntries(inbox, q, p0, 1, SoloWarp{},
                 [&](uint32_t, QueueEntry &out) { out = e; });
}

/// Tells the host which tile this block starts (JobRecord, host memory).
GPUOS_DEV void recordJob(JobRecord *record, const QueueEntry &job) {
  stJobRecord(record, job.run | kJobRunning,
              (job.epoch & 0xFFFFu) | (job.kind << 16), job.task, job.tile);
}

/// Thread 0: the block took gang member entry `pick` (header, "Gangs").
GPUOS_DEV void gangStart(GangState &g, const Pick &pick) {
  g.member = pick.job;
  g.pos = pick.pos;
  g.queue = pick.queue;
  g.mustFree = pick.mustFree;
  g.task = ~0u;
  g.base = 0;
  g.finished = 0;
  g.active = true;
  g.seek = true;
}

/// The member's share of a task whose first tile has the graph-wide index
/// `base`: tile j goes to member (base + j) mod size, so tasks of few
/// tiles land on different members (independent one-tile tasks run side by
/// side, not all on member 0). Its first tile, or >= numTiles for none.
GPUOS_DEV uint32_t gangFirstTile(uint32_t member, uint32_t size, uint32_t base) {
  return (member + size - base % size) % size;
}

/// The member ran its tiles of every task: its completed tasks leave the
/// run's count (whoever reaches zero completes the run), its slot is
/// freed if it never was, and the block picks again.
GPUOS_DEV void gangEnd(DeviceControl *c, const WorkerConfig &cfg, GangState &g) {
  if (g.finished || g.mustFree)
    fenceGpu(); // release: the tasks it completed (their resets), the slot
  if (g.mustFree) // (every member has a tile, G <= the graph's tiles)
    freeSlot(g.queue, g.pos);
  if (g.finished) {
    RunCounters *r = reinterpret_cast<RunCounters *>(g.member.counters);
    uint32_t old = atomicAddAcquire(&r->tasksLeft, 0u - g.finished);
    if ((old & ~kRunFailedBit) == g.finished) {
      // Out of flight (and counted) before the completion store: a caller
      // that submits when it sees the completion gets a gang again, and
      // its statistics include this one.
      atomicAddRelaxed(&c->gangsInFlight.value, ~0u);
      atomicAddRelaxed(&c->gangRuns.value, (uint64_t)1);
      completeRun(c, cfg.completion, r, g.member, (old & kRunFailedBit) != 0,
                  cfg.countUrgent);
    }
  }
  g.active = false;
}

/// Warp 0 (all lanes): the member's next task with a tile for it, reading
/// 32 tasks' descriptors and dependency counters per round of loads; then
/// thread 0 waits until the task's dependencies are done and sets up its
/// first tile. With no task left the member ends (gangEnd). kExitLoop if
/// the host stopped the kernel meanwhile.
template <typename Warp>
GPUOS_DEV void gangSeek(DeviceControl *c, WorkerShared &sh, const Warp &w,
                        JobRecord *record) {
  GangState &g = sh.gang;
  const uint32_t k = g.member.tile, size = g.member.numTiles;
  const uint32_t numTasks = g.member.numTasks;
  const TaskDesc *tasks = reinterpret_cast<const TaskDesc *>(g.member.graph);
  RunCounters *r = reinterpret_cast<RunCounters *>(g.member.counters);
  uint32_t *gangLeft = gangLeftOf(r, numTasks);
  uint32_t t = g.task + 1, base = g.base;
  w.sync(); // every lane has read the state before the hit's lane writes it
  bool found = false;
  for (; t < numTasks && !found; t += w.width()) {
    uint32_t i = t + w.lane();
    TaskDesc d{};
    uint32_t left = 0;
    if (i < numTasks) {
      d = ldcgTask(tasks + i);
      left = ldAcquire(gangLeft + i); // with the descriptor: one round
    }
    uint32_t before = w.exclusiveSum(d.numTiles);
    uint32_t j = gangFirstTile(k, size, base + before);
    uint32_t hit = w.firstTrue(i < numTasks && j < d.numTiles);
    if (hit < w.width()) {
      if (w.lane() == hit) {
        g.desc = d;
        g.task = i;
        g.first = j;
        g.base = base + before + d.numTiles;
        g.depsSeen = left; // at 0, its acquire load acquired the tasks' writes
      }
      found = true;
    }
    base += w.fromLane(w.width() - 1, before + d.numTiles); // the round's tiles
  }
  w.sync(); // the hit's lane wrote the state
  if (w.lane() != 0)
    return;
  g.seek = false;
  if (!found) {
    gangEnd(c, sh.cfg, g);
    sh.stop = kNoTile;
    return;
  }
  // A gang of one runs every task itself, in an order its dependencies
  // allow: the block barrier after each tile orders its writes before the
  // next tile, as for a kept successor, so it waits for no counter.
  // (A search lane that saw the count at 0 has acquired already.)
  if (g.desc.numDeps && g.member.numTiles > 1 && g.depsSeen != 0u) {
    const uint32_t *left = gangLeft + g.task;
    stJobRecord(record, 0u, 0u, 0u, 0u); // waiting, not running a tile
    // An acquire load: the poll that sees 0 acquires the tasks' writes
    // itself, where a relaxed poll needed a fence after it.
    for (uint32_t spin = 1; ldAcquire(left) != 0u; ++spin) {
      if ((spin & 63) == 0) {
        if (ldRelaxed(&c->stop.value)) {
          sh.stop = kExitLoop; // teardown: the run is lost anyway
          return;
        }
        // A producer may wait for a slot this worker owes from a lap ago.
        drainOwed(sh.inbox);
      }
      spinPause();
    }
  }
  g.next = g.first;
  taskEntry(g.member, g.desc, g.next, sh.pick.job);
  sh.origin = kTileFromGang;
  sh.stop = kRunTile;
  recordJob(record, sh.pick.job);
  sh.counters.begin();
}

/// Thread 0, after a member's tile: the next tile of the same task, if the
/// member has one (true), else the next task is to be found (gangSeek).
GPUOS_DEV bool gangNextTile(WorkerShared &sh) {
  GangState &g = sh.gang;
  if (g.next >= g.desc.numTiles) {
    g.seek = true;
    return false;
  }
  taskEntry(g.member, g.desc, g.next, sh.pick.job);
  sh.origin = kTileFromGang;
  return true;
}

/// Thread 0, after a member's tile (header, "Gangs"): after its last tile
/// of the task, the member releases its tiles to the successors itself
/// (a fence, then their gangLeft counters go down by its tile count: the
/// last of the task's members to do so lets them start). Then it counts
/// its tiles in tilesDone, and the member that completes the task puts the
/// counters back at rest for the slot's next run, off the successors' path
/// (its tasksLeft decrement waits for the member's end, gangEnd, whose
/// fence also acquires the other members' tiles before it).
GPUOS_DEV void gangFinishTile(WorkerShared &sh, int rc) {
  GangState &g = sh.gang;
  const QueueEntry &job = sh.pick.job;
  RunCounters *r = reinterpret_cast<RunCounters *>(job.counters);
  if (rc != 0)
    recordFailure(r, job, rc);
  const uint32_t size = g.member.numTiles;
  g.next += size;
  const TaskDesc &d = g.desc;
  if (g.next < d.numTiles)
    return; // more tiles of this task: counted after the last
  if (size == 1) {
    ++g.finished; // no counter: nobody waits for it (gangSeek)
    return;
  }
  // The first successors' indices (immutable) travel with the fence.
  const TaskDesc *succ =
      reinterpret_cast<const TaskDesc *>(job.graph) + job.numTasks + d.succOffset;
  uint32_t s0 = d.numSucc > 0 ? ldcg(&succ[0].index) : 0u;
  uint32_t s1 = d.numSucc > 1 ? ldcg(&succ[1].index) : 0u;
  uint32_t *gangLeft = gangLeftOf(r, job.numTasks);
  const uint32_t mine = (d.numTiles - g.first + size - 1) / size;
  fenceGpu(); // release: the tiles' writes (the first time, the slot reads)
  // Releases: the waiting members acquire them (gangSeek).
  if (d.numSucc > 0)
    atomicAddOrdered(gangLeft + s0, 0u - mine);
  if (d.numSucc > 1)
    atomicAddOrdered(gangLeft + s1, 0u - mine);
  for (uint32_t i = 2; i < d.numSucc; ++i)
    atomicAddOrdered(gangLeft + ldcg(&succ[i].index), 0u - mine);
  if (g.mustFree) {
    freeSlot(g.queue, g.pos);
    g.mustFree = 0;
  }
  const uint32_t *rest = gangRestOf(r, job.numTasks) + g.task;
  if (d.numTiles > 1) {
    uint32_t *done = tilesDoneOf(r, job.numTasks) + g.task;
    if (atomicAddOrdered(done, mine) + mine != d.numTiles)
      return;
    // Every member with tiles of it has counted them, so none waits for
    // its gangLeft any more: both counters go back to rest.
    stRelaxed(done, 0u);
  }
  // (A one-tile task: only this member waited for it.)
  if (d.numDeps)
    stRelaxed(gangLeft + g.task, ldcg(rest));
  ++g.finished;
}

/// The worker loop. `Warp` is the block's warp 0 (publishStaged), `Block`
/// gives the thread index and the block barrier; `Dispatch` runs one tile
/// (gpuos_dispatch on the GPU).
template <typename Warp, typename Block, typename Dispatch>
GPUOS_DEV void workerMain(DeviceControl *c, uint32_t blockId, WorkerShared &sh,
                          const Warp &w, const Block &block,
                          Dispatch dispatch) {
  // Thread 0's state (WorkerShared says why it is not in registers).
  Inbox *inbox = sh.inbox;
  QueueEntry &cont = sh.cont;
  WorkerConfig &cfg = sh.cfg;
  BlockCounters &counters = sh.counters;
  HopTrace &trace = sh.trace;
  RangeState &range = sh.range;
  JobRecord *record = reinterpret_cast<JobRecord *>(c->jobs) + blockId;
  if (block.tid() == 0) {
    for (uint32_t q = 0; q < kNumQueues; ++q)
      inbox[q].state = kInboxEmpty;
    counters.open(c, blockId);
    cfg.load(c);
    cfg.urgentOnly = cfg.urgentSMs && onUrgentSM(c, smId(blockId));
    if (cfg.urgentOnly) // the poller caps gangs at this count
      atomicAddRelaxed(&c->urgentWorkers.value, 1u);
    trace.open(c, blockId);
    openQueueView(c);
    sh.staged = 0;
    sh.kept = false;
    sh.pending = 0;
    sh.origin = kTileFromQueue;
    sh.gang.active = false;
    sh.gang.seek = false;
    sh.expand = false;
    range.left = 0;
    range.uncounted = 0;
  }
  block.sync(); // the queue view, before warp 0's first publish
  for (;;) {
    if (block.tid() == 0) {
      bool next = false;
      sh.expand = false;
      if (sh.gang.active) {
        // A gang member: its next tile of this task, or (gangSeek below)
        // of the next task it has tiles of.
        next = true;
        sh.stop = gangNextTile(sh) ? kRunTile : kNoTile;
      } else if (range.left) {
        // A tile boundary inside a range: urgent first (give the rest of
        // the range back), else the next tile, splitting for idle peers.
        uint32_t look = scanAtBoundary(c, inbox, sh.pick.queue, cfg.exclusive,
                                       cfg.urgentSMs);
        if (look & kHigherWaiting) {
          countUncounted(sh.pick.job, range.uncounted); // before the rest
          range.uncounted = 0;                          // is visible
          publishRange(c, inbox, sh.pick.job,
                       sharedQueue(priorityOfQueue(sh.pick.queue)),
                       sh.pick.job.tile + 1, range.left);
          range.left = 0;
        } else {
          sh.pick.job.tile += 1;
          sh.pick.mustFree = 0; // freed after the range's first tile
          --range.left;
          maybeSplit(c, inbox, sh.pick, range, look);
          sh.stop = 0;
          sh.origin = kTileFromRange;
          next = true;
        }
      }
      uint32_t sq = sh.kept ? sharedQueue(priorityOfQueue(sh.pick.queue)) : 0;
      if (next) {
      } else if (sh.kept && (priorityOfQueue(sq) == kPriorityUrgent ||
                             !higherPriorityWaiting(c, inbox, sq, cfg.exclusive))) {
        // Continue with the successor: no queue, no other worker involved.
        // Its inputs were written by this block, or acquired by thread 0
        // through depsLeft; the barrier below passes them to the block.
        sh.pick.job = cont;
        sh.pick.queue = sq;
        sh.pick.pos = 0;
        sh.pick.mustFree = 0;
        sh.stop = 0;
        sh.origin = kTileContinued;
      } else {
        if (sh.kept) {
          publishKept(c, cfg, inbox, cont, sq, sh.pending);
          sh.pending = 0;
        }
        sh.stop = pickJob(c, inbox, sh.pick, record, cfg.exclusive,
                          cfg.urgentOnly)
                      ? kRunTile
                      : kExitLoop;
        if (sh.stop == kRunTile && sh.pick.job.kind == kGangKind) {
          gangStart(sh.gang, sh.pick);
          sh.stop = kNoTile; // gangSeek sets up its first tile
        } else if (sh.stop == kRunTile && sh.pick.job.kind == kExpandKind) {
          // No tile runs: the job record must not keep naming the last one
          // while warp 0 publishes (a deadline check would take it for
          // running).
          stJobRecord(record, 0u, 0u, 0u, 0u);
          sh.expandAt = reservePositions(
              c, sharedQueue(priorityOfQueue(sh.pick.queue)), sh.pick.job.numTiles);
          sh.expand = true; // warp 0 publishes the ranges (expandRun)
          sh.stop = kNoTile;
        } else if (!sh.stop && sh.pick.job.rangeExtra) {
          range.left = sh.pick.job.rangeExtra;
          sh.pick.job.rangeExtra = 0;
          maybeSplit(c, inbox, sh.pick, range,
                     scanAtBoundary(c, inbox, sh.pick.queue, cfg.exclusive,
                                    cfg.urgentSMs));
        }
      }
      sh.kept = false;
      trace.stamp(3);
      if (sh.stop == kRunTile) {
        // The first successor's descriptor travels while the tile runs
        // (once per job: a range's next tiles keep it).
        if (!next && sh.pick.job.numSucc)
          prefetchTask(&sh.nextSucc, successorsOf(sh.pick.job));
        recordJob(record, sh.pick.job);
        counters.begin();
      }
      trace.stamp(4);
    }
    if (block.tid() < w.width()) {
      w.sync(); // thread 0's decision before the lanes read it
      if (sh.gang.seek)
        gangSeek(c, sh, w, record);
      if (sh.expand)
        expandRun(inbox, sh, w);
    }
    block.sync();
    if (sh.stop == kExitLoop)
      break;
    if (sh.stop == kNoTile) {
      block.sync(); // everyone read sh.stop before thread 0 decides again
      continue;
    }
    if (block.tid() == 0)
      trace.stamp(5);
    int rc = dispatch(sh.pick.job.kind,
                      reinterpret_cast<const unsigned char *>(sh.pick.job.args),
                      sh.pick.job.tile);
    if (block.tid() == 0)
      trace.stamp(6);
    block.sync();
    if (block.tid() == 0) {
      uint64_t ended = cycles();
      trace.tileEnded(sh.origin, sh.pick.job.task);
      sh.origin = kTileFromQueue;
      counters.counted();
      sh.staged = 0;
      if (sh.gang.active) {
        gangFinishTile(sh, rc);
      } else if (range.left) {
        finishRangeTile(sh.pick, rc);
        ++range.uncounted;
        sh.kept = false;
      } else {
        sh.kept = keepAtOnce(sh, cfg.continuations, rc) ||
                  finishTile(c, cfg, inbox, sh, rc, cont, range.uncounted,
                             sh.pending);
        sh.pending = sh.kept ? sh.pending + 1 : 0;
        range.uncounted = 0;
      }
      trace.stamp(1);
      counters.end(ended);
    }
    if (block.tid() < w.width()) {
      w.sync(); // thread 0's staging (and what it acquired) before the lanes
      if (sh.staged)
        publishStaged(inbox, sh, w);
    }
    if (block.tid() == 0)
      trace.stamp(2);
  }
  if (block.tid() == 0) {
    counters.close();
    blockExit(c);
  }
}

} // namespace gpuos::dev

#endif // GPUOS_DEVICE_WORKER_H
